#!/usr/bin/env bash
# Store benchmark (issue 3): importing the 1M-point ride into bikeride's store, side by side in the same run
# with the sqlite3 shell loading the same points from CSV into a plain one-row-per-point table in one
# transaction; then reading a 100k-point track back and listing a page of 50 from 10,000 tracks.
#
#   Benchmarks/run-store.sh
#
# Prints a Markdown table (also saved as Benchmarks/out/store-results.md) and the targets as PASS/MISS:
#   import ≥ the sqlite3 CSV load in points/s; ≤ 32 bytes per point on disk; a 100k-point track read back
#   (points decoded) ≤ 30 ms; a page of 50 from 10,000 tracks ≤ 5 ms.
#
# Environment:
#   BENCH_REPEAT=N            runs of each import, the fastest counts (default 3)
#   BENCH_ENFORCE_TARGETS=1   exit 1 when a target is missed (by default only reported)
#   RIDESTORE_BENCH_BIN=PATH  use this ridestore-bench binary instead of building one
#
# Data goes to Benchmarks/data/ (the rides, generated if missing) and Benchmarks/out/ (CSV, databases,
# raw outputs, the table); both are git-ignored.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="$here/data"
out="$here/out"
repeat="${BENCH_REPEAT:-3}"
mkdir -p "$data" "$out"

command -v sqlite3 >/dev/null || { echo "run-store.sh: needs the sqlite3 shell (apt-get install sqlite3)" >&2; exit 1; }

for size in 100k 1m; do
    count=$([ "$size" = 1m ] && echo 1000000 || echo 100000)
    if [ ! -s "$data/ride-$size.gpx" ]; then
        echo "generating $data/ride-$size.gpx ..." >&2
        python3 "$here/generate_ride.py" "$count" "$data/ride-$size.gpx" >/dev/null
    fi
done

bench="${RIDESTORE_BENCH_BIN:-}"
if [ -z "$bench" ]; then
    echo "building ridestore-bench (release) ..." >&2
    (cd "$root" && swift build -c release --product ridestore-bench >&2)
    bench="$(cd "$root" && swift build -c release --show-bin-path)/ridestore-bench"
fi

now() { date +%s.%N; }
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
size_of() { stat -c %s "$1" 2>/dev/null || echo 0; }

ride="$data/ride-1m.gpx"
cat "$ride" >/dev/null   # read once, so that nobody pays for the disk

echo "writing the points as CSV ..." >&2
"$bench" csv "$ride" "$out/ride-1m.csv" >/dev/null
points=$(wc -l <"$out/ride-1m.csv")

best_sqlite=""
best_store=""
for run in $(seq "$repeat"); do
    # The sqlite3 shell, default settings, into a plain table: BEGIN … .import … COMMIT.
    rm -f "$out/sqlite3-csv.db" "$out/sqlite3-csv.db-wal" "$out/sqlite3-csv.db-journal"
    start=$(now)
    sqlite3 "$out/sqlite3-csv.db" <<SQL
CREATE TABLE trackPoint (track INTEGER, seq INTEGER, latitude REAL, longitude REAL, elevation REAL, time TEXT);
BEGIN;
.mode csv
.import '$out/ride-1m.csv' trackPoint
COMMIT;
SQL
    end=$(now)
    seconds=$(python3 -c "print($end - $start)")
    if [ -z "$best_sqlite" ] || python3 -c "import sys; sys.exit(0 if $seconds < $best_sqlite else 1)"; then
        best_sqlite=$seconds
        sqlite_bytes=$(size_of "$out/sqlite3-csv.db")
    fi

    result=$("$bench" import "$ride" "$out/store-1m.sqlite")
    echo "$result" >"$out/store-import-$run.json"
    seconds=$(field "$result" seconds)
    if [ -z "$best_store" ] || python3 -c "import sys; sys.exit(0 if $seconds < $best_store else 1)"; then
        best_store=$seconds
        store_bytes=$(field "$result" databaseBytes)
        store_points=$(field "$result" points)
    fi
done

read_result=$("$bench" read "$data/ride-100k.gpx" "$out/store-read.sqlite")
list_result=$("$bench" list "$out/store-list.sqlite" 10000)
echo "$read_result" >"$out/store-read.json"
echo "$list_result" >"$out/store-list.json"

python3 - "$points" "$best_sqlite" "$sqlite_bytes" "$store_points" "$best_store" "$store_bytes" "$read_result" "$list_result" \
    "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" >"$out/store-results.md" <<'PY'
import json, sys, datetime, os, platform
points, sqlite_s, sqlite_bytes, store_points, store_s, store_bytes = sys.argv[1:7]
points, sqlite_s, sqlite_bytes = int(points), float(sqlite_s), int(sqlite_bytes)
store_points, store_s, store_bytes = int(store_points), float(store_s), int(store_bytes)
read, listing, commit = json.loads(sys.argv[7]), json.loads(sys.argv[8]), sys.argv[9]
sqlite_rate, store_rate = points / sqlite_s, store_points / store_s
rows = [
    ("import 1M points (ride-1m.gpx, 333 MB)", "bikeride store", f"{store_s:.2f} s", f"{store_rate/1e6:.2f} M", f"{store_bytes/store_points:.1f}", f"{store_bytes/1e6:.1f} MB"),
    ("load the same 1M points from CSV", "sqlite3 shell", f"{sqlite_s:.2f} s", f"{sqlite_rate/1e6:.2f} M", f"{sqlite_bytes/points:.1f}", f"{sqlite_bytes/1e6:.1f} MB"),
]
cpu = "?"
try:
    cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
except Exception:
    pass
print(f"_{datetime.date.today()}, commit {commit}, {os.cpu_count()} cores ({cpu}), release build, best of the runs._")
print()
print("| what | tool | time | points/s | bytes/point | database |")
print("|---|---|---:|---:|---:|---:|")
for row in rows:
    print("| " + " | ".join(row) + " |")
print()
print("| read / list | median | best |")
print("|---|---:|---:|")
print(f"| read a {read['points']:,}-point track back, every point decoded | {read['medianMilliseconds']:.1f} ms | {read['bestMilliseconds']:.1f} ms |")
print(f"| first page of 50 from {listing['tracks']:,} tracks | {listing['firstPageMedianMilliseconds']:.2f} ms | |")
print(f"| page 101 of 50 (cursor) from {listing['tracks']:,} tracks | {listing['deepPageMedianMilliseconds']:.2f} ms | |")
print(f"| search \"lake\", first page of 50 | {listing['searchMedianMilliseconds']:.2f} ms | |")
print()
targets = [
    ("import ≥ sqlite3 CSV load (points/s)", store_rate >= sqlite_rate, f"{store_rate/sqlite_rate:.2f}×"),
    ("≤ 32 bytes per point on disk", store_bytes / store_points <= 32, f"{store_bytes/store_points:.1f} B"),
    ("read a 100k-point track ≤ 30 ms", read["medianMilliseconds"] <= 30, f"{read['medianMilliseconds']:.1f} ms"),
    ("a page of 50 from 10,000 tracks ≤ 5 ms", listing["firstPageMedianMilliseconds"] <= 5 and listing["deepPageMedianMilliseconds"] <= 5,
     f"{max(listing['firstPageMedianMilliseconds'], listing['deepPageMedianMilliseconds']):.2f} ms"),
]
print("Targets: " + "; ".join(f"{name}: **{'PASS' if ok else 'MISS'}** ({value})" for name, ok, value in targets) + ".")
open(os.environ.get("STORE_TARGETS_FILE", "/dev/null"), "w").write("\n".join("1" if ok else "0" for _, ok, _ in targets))
PY
cat "$out/store-results.md"
if [ "${BENCH_ENFORCE_TARGETS:-0}" = 1 ] && grep -q MISS "$out/store-results.md"; then exit 1; fi
