#!/usr/bin/env bash
# Track read memory (issue 20, finding 5): the server's peak resident memory (VmHWM) for each request that reads a
# huge track — the track page (?fit= and whole), the profile, the cue sheet, the .gpx, .geojson and .gpx436 downloads —
# each on a fresh `bikeride serve` of a data directory holding one track of POINTS points (default 10,000,000),
# written as blocks straight through the store by `ridestore-bench bigtrack` (a file of so many points would take
# longer to import than to read). Target: under 256 MiB peak for any request.
#
#   Benchmarks/run-track-read.sh [POINTS]
#
# Environment:
#   BIKERIDE_BIN=PATH, RIDESTORE_BENCH_BIN=PATH   use these binaries instead of building them in release
#
# Prints a Markdown table (also Benchmarks/out/track-read-results.md); the work folder is Benchmarks/out/track-read.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
points="${1:-10000000}"
mkdir -p "$here/out"
bikeride="${BIKERIDE_BIN:-}"
bench="${RIDESTORE_BENCH_BIN:-}"
if [ -z "$bikeride" ] || [ -z "$bench" ]; then
    echo "building bikeride and ridestore-bench (release) ..." >&2
    (cd "$root" && swift build -c release --product bikeride >&2 && swift build -c release --product ridestore-bench >&2)
    bin="$(cd "$root" && swift build -c release --show-bin-path)"
    bikeride="${bikeride:-$bin/bikeride}"
    bench="${bench:-$bin/ridestore-bench}"
fi
python3 "$here/track_read_memory.py" "$bikeride" "$bench" "$points" "$here/out/track-read" | tee "$here/out/track-read-results.md"
