#!/usr/bin/env bash
# Heatmap benchmark (issue 22): 3,000 generated rides of 10,000 points (30 million) in a SQLite store, then in one run
# the index build rate, adding one ride, tile times at zoom 0–18 (p50/p99/max, the densest places included) and the
# explorer tiles. Targets: any tile ≤ 300 ms, build ≥ 1M points/s, one 10,000-point ride added ≤ 1 s.
#
#   Benchmarks/run-heatmap.sh [--rides N] [--points N] [--postgres URL]
#
# The database goes to Benchmarks/data/heatmap.sqlite (about 0.5 GB; git-ignored), the output to
# Benchmarks/out/heatmap.jsonl.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
mkdir -p "$here/data" "$here/out"
cd "$root"
bin="${HEATMAP_BENCH_BIN:-}"
if [ -z "$bin" ]; then
    swift build -c release --product heatmap-bench >&2
    bin="$(swift build -c release --show-bin-path)/heatmap-bench"
fi
"$bin" --db "$here/data/heatmap.sqlite" "$@" | tee "$here/out/heatmap.jsonl"
