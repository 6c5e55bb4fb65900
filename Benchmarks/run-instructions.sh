#!/usr/bin/env bash
# Instructions executed by `bikeride stats` on a file, counted by callgrind: a figure that does not depend on the
# machine's load, for comparing two versions of RideKit. valgrind cannot run the full `bikeride` binary (it dies
# in libdispatch's signal thread), so RideKit is compiled on its own, whole-module and -O as `swift build -c
# release` compiles it, and linked to a small driver (Benchmarks/instructions/main.swift) that reads the file as
# `bikeride stats` does.
#
#   Benchmarks/run-instructions.sh [FILE] [SOURCE_ROOT]
#
# FILE defaults to Benchmarks/data/ride-100k.gpx (made with generate_ride.py if missing); SOURCE_ROOT, the
# checkout whose Sources/RideKit is measured, to this one. BIKERIDE_READER_THREADS=0 measures the sequential
# reader. Prints the total (valgrind's "I refs") and the 30 costliest functions; the build takes a few minutes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="${2:-$(cd "$here/.." && pwd)}"
file="${1:-$here/data/ride-100k.gpx}"
if [ ! -s "$file" ]; then mkdir -p "$(dirname "$file")"; python3 "$here/generate_ride.py" 100000 "$file" >/dev/null; fi
out="$here/out/instructions"
mkdir -p "$out"
swiftc -O -wmo -parse-as-library -module-name RideKit -package-name bikeride -emit-module -emit-module-path "$out/RideKit.swiftmodule" \
    -emit-library -static -o "$out/libRideKit.a" -I "$root/Sources/CZlib" $(find "$root/Sources/RideKit" -name '*.swift')
swiftc -O -I "$out" -I "$root/Sources/CZlib" -L "$out" -lRideKit -lz "$here/instructions/main.swift" -o "$out/statsbench"
valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" "$out/statsbench" "$file" 2>&1 | grep 'refs'
callgrind_annotate "$out/callgrind.out" | sed -n '/file:function/,$p' | sed -n '3,32p'
