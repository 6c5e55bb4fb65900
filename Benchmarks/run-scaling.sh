#!/usr/bin/env bash
# Times the GPX reader on every XML construct at N, 2N and 4N (Benchmarks/scaling/scaling.swift) in an optimised
# build and prints a Markdown table with the ratios: about 2 per doubling is linear, about 4 quadratic.
#
#   Benchmarks/run-scaling.sh                 # build (a few minutes) and run, best of 3
#   BENCH_REPEAT=1 Benchmarks/run-scaling.sh  # one reading per size
#   SCALING_ONLY=comment Benchmarks/run-scaling.sh   # only constructs whose name contains the text
#   SOURCES=DIR Benchmarks/run-scaling.sh     # another copy of Sources/RideKit (e.g. an older commit's, to compare)
#   Benchmarks/run-scaling.sh stats FILE      # instead: time what `bikeride stats FILE` reads (best of BENCH_REPEAT)
#
# The tests check the same shapes by counting work (GPXReadingScalesLinearlyTests); this measures time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
sources="${SOURCES:-$root/Sources/RideKit}"
bin="$root/.build/scaling"
mkdir -p "$bin"
name="scaling-$(printf '%s' "$sources" | cksum | cut -d' ' -f1)"

mapfile -t files < <(find "$sources" -name '*.swift' | LC_ALL=C sort)
echo "building $name from scaling.swift and ${#files[@]} files of $sources (-O -wmo, as a release build)..." >&2
swiftc -O -wmo -parse-as-library -swift-version 6 -module-name RideKit -package-name bikeride \
    -I "$root/Sources/CExpat" -lexpat -I "$root/Sources/CZlib" -lz \
    "$here/scaling/scaling.swift" "${files[@]}" -module-cache-path "$bin/module-cache" -o "$bin/$name"
echo "machine load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
"$bin/$name" "$@"
