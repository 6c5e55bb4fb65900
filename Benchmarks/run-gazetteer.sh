#!/usr/bin/env bash
# The offline gazetteer (issue 24): index build time and search times by query length and region size (p50/p99/max).
#
#   Benchmarks/run-gazetteer.sh
#
# Output to Benchmarks/out/gazetteer.jsonl.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
mkdir -p "$here/out"
cd "$root"
bin="${GAZETTEER_BENCH_BIN:-}"
if [ -z "$bin" ]; then
    swift build -c release --product gazetteer-bench >&2
    bin="$(swift build -c release --show-bin-path)/gazetteer-bench"
fi
"$bin" | tee "$here/out/gazetteer.jsonl"
