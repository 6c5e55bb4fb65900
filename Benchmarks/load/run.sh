#!/usr/bin/env bash
# Issue 4's load benchmarks against a release `bikeride serve` on a fresh data directory (real SQLite store):
#   1. fix-batch round trip under 200 recording clients (fix_latency.py), with /health as the peer;
#   2. opening a 100,000-point track in Chromium, click to red line, desktop and phone (open_track.py);
#   3. the app's first load to interactive (first_load.py).
#
#   bash Benchmarks/load/run.sh [fix|open|first ...]     # all three when none is named
#
# Builds nothing: run `swift build -c release --product bikeride` first (BIKERIDE=path to use another binary,
# WEB_ROOT=folder for another copy of Web/, e.g. an older commit's from `git archive COMMIT Web | tar -x -C DIR`).
# Prints the machine's load before and after each step. Data and logs go to a temporary folder, removed at the end.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source Benchmarks/load/serve_options.sh

binary=${BIKERIDE:-.build/release/bikeride}
web=${WEB_ROOT:-Web}
[ -x "$binary" ] || { echo "no $binary: swift build -c release --product bikeride" >&2; exit 1; }
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(fix open first)

work=$(mktemp -d /tmp/bikeride-load-XXXXXX)
server=
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
load() { printf '[%s] load average: %s\n' "$1" "$(cut -d' ' -f1-3 /proc/loadavg)"; }

echo "binary: $binary (built $(stat -c %y "$binary" | cut -d. -f1)); checkout at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Web || echo ' + uncommitted changes')"
echo "web app: $web"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"

if [[ " ${steps[*]} " == *" open "* ]]; then
    mkdir -p Benchmarks/data
    [ -f Benchmarks/data/ride-100k.gpx ] || python3 Benchmarks/generate_ride.py 100000 Benchmarks/data/ride-100k.gpx >/dev/null
    "$binary" import Benchmarks/data/ride-100k.gpx --data-dir "$work/data" >/dev/null
fi
python3 Tests/browser/make_mbtiles.py "$work/map.mbtiles" >/dev/null
"$binary" serve --port "$port" --data-dir "$work/data" $(load_serve_options "$binary") --tiles "$work/map.mbtiles" --web-root "$web" --log-level warning \
    >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -fsS "$base/health" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS "$base/health"; echo

for step in "${steps[@]}"; do
    case $step in
        fix)
            load "before fix_latency"
            python3 Benchmarks/load/fix_latency.py --base "$base" --clients 200 --seconds 30 --peer
            load "after fix_latency" ;;
        open)
            load "before open_track"
            python3 Benchmarks/load/open_track.py --base "$base" --runs 9 --viewport desktop
            python3 Benchmarks/load/open_track.py --base "$base" --runs 9 --viewport phone
            load "after open_track" ;;
        first)
            load "before first_load"
            python3 Benchmarks/load/first_load.py --base "$base" --runs 7
            load "after first_load" ;;
        *) echo "unknown step $step (fix, open, first)" >&2; exit 2 ;;
    esac
done
