#!/usr/bin/env bash
# The fix-batch round trip of two builds side by side (issue 19: "on SQLite nothing changes for the rider"):
# A and B take turns (A B A B …), each on a fresh data directory, each run `fix_latency.py --clients 200`, and the
# table gives every run's paced p50/p90/p99/max and the back-to-back rate, then the median of each column per build.
#
#   bash Benchmarks/load/fix_latency_ab.sh BINARY_A BINARY_B [ROUNDS] [SECONDS]
#
# Build each with `swift build -c release --product bikeride` in its own worktree (e.g. `git worktree add ../base
# COMMIT`). ROUNDS defaults to 3, SECONDS (of the paced phase) to 30. Data and logs go to a temporary folder.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source Benchmarks/load/serve_options.sh
a=$1 b=$2 rounds=${3:-3} seconds=${4:-30}
for binary in "$a" "$b"; do [ -x "$binary" ] || { echo "no $binary" >&2; exit 1; }; done
work=$(mktemp -d /tmp/bikeride-fix-ab-XXXXXX)
server=
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
echo "A: $a (built $(stat -c %y "$a" | cut -d. -f1))"
echo "B: $b (built $(stat -c %y "$b" | cut -d. -f1))"
echo "machine: $(nproc) cores; $rounds rounds of A then B, ${seconds} s paced each"

run() {
    local label=$1 binary=$2 round=$3
    local port data=$work/data-$label-$round
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$binary" serve --port "$port" --data-dir "$data" $(load_serve_options "$binary") --log-level warning >"$work/server-$label-$round.log" 2>&1 &
    server=$!
    for _ in $(seq 200); do curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.1; done
    local load
    load=$(cut -d' ' -f1 /proc/loadavg)
    python3 Benchmarks/load/fix_latency.py --base "http://127.0.0.1:$port" --clients 200 --seconds "$seconds" --json \
        | grep '^{' | sed "s/^{/{\"build\": \"$label\", \"round\": $round, \"load\": $load, /" >>"$work/results.jsonl"
    kill "$server"; wait "$server" 2>/dev/null || true; server=
}
for round in $(seq "$rounds"); do
    run A "$a" "$round"
    run B "$b" "$round"
done
python3 - "$work/results.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print(f"{'build':5} {'round':>5} {'load':>5} {'paced req/s':>11} {'p50':>6} {'p90':>6} {'p99':>6} {'max':>7} {'errors':>6} {'unpaced req/s':>13} {'p99':>7}")
def pair(build, round_):
    paced = next(r for r in rows if r['build'] == build and r['round'] == round_ and r['phase'] == 'paced')
    unpaced = next(r for r in rows if r['build'] == build and r['round'] == round_ and r['phase'] == 'unpaced')
    return paced, unpaced
for build in ('A', 'B'):
    pairs = [pair(build, r) for r in sorted({r['round'] for r in rows if r['build'] == build})]
    for paced, unpaced in pairs:
        print(f"{build:5} {paced['round']:>5} {paced['load']:>5} {paced['rate']:>11.0f} {paced['p50']:>6.1f} {paced['p90']:>6.1f} "
              f"{paced['p99']:>6.1f} {paced['max']:>7.1f} {paced['errors'] + unpaced['errors']:>6} {unpaced['rate']:>13.0f} {unpaced['p99']:>7.1f}")
    med = lambda key, phase=0: statistics.median(p[phase][key] for p in pairs)
    print(f"{build + ' med':9} {'':>5} {med('rate'):>11.0f} {med('p50'):>6.1f} {med('p90'):>6.1f} {med('p99'):>6.1f} "
          f"{med('max'):>7.1f} {'':>6} {med('rate', 1):>13.0f} {med('p99', 1):>7.1f}")
PY
