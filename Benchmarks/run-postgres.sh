#!/usr/bin/env bash
# Issue 13's benchmark: SQLite and PostgreSQL side by side, in one run, with one and two `serve` instances on one
# PostgreSQL database.
#
#   Benchmarks/run-postgres.sh                  # every case; about 5 minutes plus the release build
#   BENCH_CASES="fix ingest" Benchmarks/run-postgres.sh
#
# Cases (each on a fresh SQLite data directory or a fresh PostgreSQL database, stores interleaved case by case):
#   fix     fix-batch round trip, 200 recording clients (load/fix_latency.py): paced 1 batch/s each (p50, p99),
#           then back to back (batches/s, p99)
#   ingest  single-fix OwnTracks posts from 200 devices, back to back (load/ingest_throughput.py --phases single)
#   import  `bikeride import Benchmarks/data/ride-1m.gpx` (--data-dir / --database): wall time and peak RSS
#           (/usr/bin/time -v), then the database's size; on SQLite the command also writes the track to the
#           documents folder (333 MB of GPX, flushed), which PostgreSQL has not, so the store's import alone
#           (`ridestore-bench seed`, the same `TrackLibrary.importFile` without that copy) is timed too
#   list    100,000 tracks of 10 points from one generated GPX (load/track_list.py gpx), imported in one transaction
#           by `ridestore-bench seed` (the import of `bikeride import`, without its copy of each track in the
#           documents folder, which takes ~13 ms a track: README), then `GET /api/tracks`: the first page and page
#           1,001 by its cursor (load/track_list.py measure). PostgreSQL gets a VACUUM (ANALYZE) after the seeding
#           (what autovacuum does within a minute; timed): without it the first reads of the fresh rows write
#           their hint bits, and the walk measured that
#
# Stores: sqlite (one `serve` on a data directory), pg1 (one `serve --database`), pg2 (two `serve --database` on the
# same database, each with its own data directory; the clients send their requests to both in turn). import runs
# for sqlite and pg1 only (a command, not a server); list on pg2 reuses pg1's seeded database.
#
# PostgreSQL: the throwaway cluster of scripts/lib/postgres.sh (Debian's PostgreSQL 15, installed when missing),
# restarted with fsync on (the test cluster runs with fsync=off): every commit is flushed, as SQLite's
# `synchronous = FULL` flushes every commit. Default settings otherwise (shared_buffers 128 MB), max_connections 200.
#
# Environment: BENCH_SECONDS (10: each load phase), BENCH_CASES, BENCH_STORES ("sqlite pg1 pg2"), BENCH_CLIENTS (200),
# BENCH_TRACKS (100000), BENCH_RIDE (the file to import; Benchmarks/data/ride-1m.gpx), BENCH_DEEP_PAGE (1000: pages
# walked before the deep page), BENCH_PG_FSYNC (on), BENCH_DB_CONNECTIONS (serve's --database-connections; its default, 10, when unset), BIKERIDE_BIN=PATH (skip the
# build). Prints the load average around each case. Raw outputs go to Benchmarks/out/postgres/, the table to
# Benchmarks/out/postgres.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source Benchmarks/load/serve_options.sh

seconds=${BENCH_SECONDS:-10}
cases=${BENCH_CASES:-fix ingest import list}
stores=${BENCH_STORES:-sqlite pg1 pg2}
clients=${BENCH_CLIENTS:-200}
track_count=${BENCH_TRACKS:-100000}
deep_page=${BENCH_DEEP_PAGE:-1000}
pg_fsync=${BENCH_PG_FSYNC:-on}

if [ -n "${BIKERIDE_BIN:-}" ]; then
    binary=$BIKERIDE_BIN
    seeder=${SEED_BIN:-$(dirname "$BIKERIDE_BIN")/ridestore-bench}
else
    echo "building bikeride and ridestore-bench in release (.build-release)…"
    nice -n 15 swift build -c release --scratch-path .build-release --product bikeride
    nice -n 15 swift build -c release --scratch-path .build-release --product ridestore-bench
    binary=.build-release/release/bikeride
    seeder=.build-release/release/ridestore-bench
fi
[ -x "$binary" ] || { echo "no $binary" >&2; exit 1; }
[ -x "$seeder" ] || { echo "no $seeder (SEED_BIN=PATH)" >&2; exit 1; }
binary=$(realpath "$binary")
seeder=$(realpath "$seeder")
mapfile -t load_options < <(load_serve_options "$binary")

mkdir -p Benchmarks/data Benchmarks/out/postgres
out=Benchmarks/out/postgres
results=$out/results.jsonl
: >"$results"
ride=${BENCH_RIDE:-Benchmarks/data/ride-1m.gpx}
[ -f "$ride" ] || python3 Benchmarks/generate_ride.py 1000000 "$ride" >/dev/null
tracks_gpx=Benchmarks/data/tracks-$track_count.gpx
[ -f "$tracks_gpx" ] || python3 Benchmarks/load/track_list.py gpx "$track_count" "$tracks_gpx"

# shellcheck source=../scripts/lib/install.sh
source scripts/lib/install.sh
# shellcheck source=../scripts/lib/postgres.sh
source scripts/lib/postgres.sh
start_test_postgres
work=$(mktemp -d /tmp/bikeride-pgbench-XXXXXX)
servers=()
stop_servers() {
    local pid
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${servers[@]}"; do wait "$pid" 2>/dev/null || true; done
    servers=()
}
cleanup() {
    stop_servers
    rm -rf "$work"
    stop_test_postgres
}
trap cleanup EXIT

# The test cluster runs with fsync off; a benchmark against SQLite's flushed commits wants it on.
pg_port=${BIKERIDE_TEST_DATABASE_URL##*:}
pg_port=${pg_port%%/*}
as_postgres_owner "$postgres_test_bin/pg_ctl" -D "$postgres_test_dir/data" -m fast -w stop >/dev/null
as_postgres_owner "$postgres_test_bin/pg_ctl" -D "$postgres_test_dir/data" -l "$postgres_test_dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $postgres_test_dir -c max_connections=200 -c fsync=$pg_fsync" start >/dev/null
psql_admin() { psql "$BIKERIDE_TEST_DATABASE_URL" -X -q -t -A -v ON_ERROR_STOP=1 "$@"; }
pg_settings=$(psql_admin -c "SELECT string_agg(name || '=' || setting || coalesce(unit, ''), ', ' ORDER BY name) FROM pg_settings
    WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'wal_sync_method', 'max_connections')")
pg_version=$(psql_admin -c 'SHOW server_version')

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
load() { cut -d' ' -f1 /proc/loadavg; }

# Starts the servers of STORE and notes the load before the measurement (`before`) and the clients' `--base`
# arguments for every instance (`base_args`).
start_measuring() {
    start_servers "$1" "$where"
    before=$(load)
    base_args=()
    for b in "${bases[@]}"; do base_args+=(--base "$b"); done
}

# start_servers STORE URL_OR_DIR: starts 1 or 2 instances; fills `servers` and `bases`.
bases=()
start_servers() {
    local store=$1 where=$2 count=1 i port
    if [ "$store" = pg2 ]; then count=2; fi
    bases=()
    if [ "$store" != sqlite ]; then "$binary" migrate --database "$where" >/dev/null; fi
    for i in $(seq "$count"); do
        port=$(free_port)
        local options=(--data-dir "$work/serve-$store-$i-$RANDOM")
        if [ "$store" = sqlite ]; then
            options=(--data-dir "$where")
        else
            options+=(--database "$where")
            if [ -n "${BENCH_DB_CONNECTIONS:-}" ]; then options+=(--database-connections "$BENCH_DB_CONNECTIONS"); fi
        fi
        "$binary" serve --port "$port" "${options[@]}" "${load_options[@]}" --no-accounts --log-level warning >>"$out/serve-$store.log" 2>&1 &
        servers+=($!)
        local ok=
        for _ in $(seq 200); do
            if curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1; then ok=1; break; fi
            sleep 0.1
        done
        [ -n "$ok" ] || { echo "serve ($store #$i) did not answer; its log:" >&2; tail -20 "$out/serve-$store.log" >&2; exit 1; }
        bases+=("http://127.0.0.1:$port")
    done
}

# Peak RSS of the running servers, MiB, comma-separated.
servers_peak() {
    local pid list=()
    for pid in "${servers[@]}"; do list+=("$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status" 2>/dev/null || echo '?')"); done
    (IFS=,; echo "${list[*]}")
}

# fresh_store CASE STORE: sets `where` to a new SQLite data directory or the URL of a new, empty database.
fresh_store() {
    if [ "$2" = sqlite ]; then
        where=$work/sqlite-$1
    else
        psql_admin -c "CREATE DATABASE bench_${1}_$2" >/dev/null
        where=${BIKERIDE_TEST_DATABASE_URL%/*}/bench_${1}_$2
    fi
}

store_option() { if [ "$1" = sqlite ]; then echo --data-dir; else echo --database; fi; }

record() {  # record CASE STORE LOAD_BEFORE JSON_FIELDS...: one line of results.jsonl
    local kind=$1 store=$2 before=$3
    shift 3
    python3 - "$kind" "$store" "$before" "$(load)" "$@" >>"$results" <<'EOF'
import json, sys
case, store, before, after = sys.argv[1:5]
row = {'case': case, 'store': store, 'load': [float(before), float(after)]}
for item in sys.argv[5:]:
    row.update(json.loads(item))
print(json.dumps(row))
EOF
}

echo "binary: $binary (built $(stat -c %y "$binary" | cut -d. -f1)); checkout $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources || echo ' + uncommitted changes')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem:/ { print $2 }') GB"
echo "PostgreSQL $pg_version: $pg_settings"
echo "load phases ${seconds} s, $clients clients; load average now $(cut -d' ' -f1-3 /proc/loadavg)"

for case in $cases; do
    for store in $stores; do
        case $case in
            fix)
                fresh_store "$case" "$store"
                start_measuring "$store"
                python3 Benchmarks/load/fix_latency.py "${base_args[@]}" --clients "$clients" --seconds "$seconds" --json \
                    | tee "$out/fix-$store.txt" | grep -v '^{'
                peak=$(servers_peak)
                record fix "$store" "$before" "$(grep '"phase": "paced"' "$out/fix-$store.txt" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(json.dumps({"paced": r}))')" \
                    "$(grep '"phase": "unpaced"' "$out/fix-$store.txt" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(json.dumps({"unpaced": r}))')" \
                    "{\"serverPeakMiB\": \"$peak\"}"
                stop_servers ;;
            ingest)
                fresh_store "$case" "$store"
                start_measuring "$store"
                python3 Benchmarks/load/ingest_throughput.py "${base_args[@]}" --devices "$clients" --seconds "$seconds" \
                    --phases single --json | tee "$out/ingest-$store.txt" | grep -v '^{'
                peak=$(servers_peak)
                record ingest "$store" "$before" "$(grep '"phase": "single"' "$out/ingest-$store.txt" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(json.dumps({"single": r}))')" \
                    "{\"serverPeakMiB\": \"$peak\"}"
                stop_servers ;;
            import)
                if [ "$store" = pg2 ]; then continue; fi
                cat "$ride" >/dev/null  # from the page cache for both
                before=$(load)
                fields=()
                for how in command library; do
                    fresh_store "${case}_$how" "$store"
                    if [ "$store" != sqlite ]; then "$binary" migrate --database "$where" >/dev/null; fi
                    if [ "$how" = command ]; then
                        run=("$binary" import "$ride" "$(store_option "$store")" "$where")
                    elif [ "$store" = sqlite ]; then
                        mkdir -p "$where"
                        run=("$seeder" seed "$ride" "$where/bikeride.sqlite")
                    else
                        run=("$seeder" seed "$ride" "$where")
                    fi
                    /usr/bin/time -v -o "$out/import-$how-$store.time" "${run[@]}" >"$out/import-$how-$store.txt" 2>&1 \
                        || { cat "$out/import-$how-$store.txt" "$out/import-$how-$store.time" >&2; exit 1; }
                    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$out/import-$how-$store.time")
                    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/import-$how-$store.time")
                    cpu=$(awk -F': ' '/Percent of CPU/ { sub("%", "", $2); print $2 }' "$out/import-$how-$store.time")
                    documents=0
                    if [ "$store" = sqlite ]; then
                        bytes=$(cat "$where"/bikeride.sqlite* | wc -c)
                        if [ -d "$where/Documents" ]; then documents=$(du -sb "$where/Documents" | cut -f1); fi
                    else
                        bytes=$(psql "$where" -X -q -t -A -c 'SELECT pg_database_size(current_database())')
                    fi
                    echo "import ($how) $store: ${wall} s, peak RSS $((rss / 1024)) MiB, CPU ${cpu} %, database $((bytes / 1048576)) MiB, documents $((documents / 1048576)) MiB ($(tail -1 "$out/import-$how-$store.txt"))"
                    fields+=("{\"$how\": {\"seconds\": $wall, \"peakKiB\": $rss, \"cpuPercent\": $cpu, \"databaseBytes\": $bytes, \"documentsBytes\": $documents}}")
                done
                record import "$store" "$before" "${fields[@]}" ;;
            list)
                if [ "$store" = pg2 ] && [ -n "${list_database:-}" ]; then
                    where=$list_database  # the same 100,000 tracks, read by two instances
                    seed='{}'
                else
                    fresh_store "$case" "$store"
                    if [ "$store" = sqlite ]; then
                        mkdir -p "$where"
                        target=$where/bikeride.sqlite
                    else
                        "$binary" migrate --database "$where" >/dev/null
                        target=$where
                    fi
                    "$seeder" seed "$tracks_gpx" "$target" >"$out/seed-$store.txt" \
                        || { cat "$out/seed-$store.txt" >&2; exit 1; }
                    echo "seeded $store: $(cat "$out/seed-$store.txt")"
                    vacuum=null
                    if [ "$store" != sqlite ]; then
                        started=$(date +%s.%N)
                        psql "$where" -X -q -c 'VACUUM (ANALYZE)'
                        vacuum=$(python3 -c "import sys; print(round($(date +%s.%N) - $started, 2))")
                        echo "VACUUM (ANALYZE): $vacuum s"
                    fi
                    seed=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["tracks"] == int(sys.argv[2]), r; print(json.dumps({"seedSeconds": r["seconds"], "seedTracks": r["tracks"], "vacuumSeconds": json.loads(sys.argv[3])}))' "$out/seed-$store.txt" "$track_count" "$vacuum")
                    if [ "$store" = pg1 ]; then list_database=$where; fi
                fi
                start_measuring "$store"
                (cd Benchmarks/load && python3 track_list.py measure "${base_args[@]}" --deep "$deep_page" --runs 51 --json) \
                    | tee "$out/list-$store.txt" | grep -v '^{'
                record list "$store" "$before" "$(grep '^{' "$out/list-$store.txt")" "$seed"
                stop_servers ;;
            *) echo "unknown case $case (fix, ingest, import, list)" >&2; exit 2 ;;
        esac
        echo "[$case $store] load average $(cut -d' ' -f1-3 /proc/loadavg)"
    done
done

# The table, stores side by side.
python3 - "$results" "$clients" "$seconds" "$track_count" "$deep_page" "$(date -u '+%Y-%m-%d %H:%M UTC')" \
    "$(git rev-parse --short HEAD)" "PostgreSQL $pg_version ($pg_settings)" "$(basename "$ride")" <<'EOF' | tee Benchmarks/out/postgres.md
import json, sys
path, clients, seconds, tracks, deep, when, commit, pg, ride = sys.argv[1:]
rows = [json.loads(line) for line in open(path)]
by = {(r['case'], r['store']): r for r in rows}
stores = [s for s in ('sqlite', 'pg1', 'pg2') if any(r['store'] == s for r in rows)]
names = {'sqlite': 'SQLite', 'pg1': 'PostgreSQL ×1', 'pg2': 'PostgreSQL ×2'}
lines = [f'_{when}, commit {commit}, {pg}; load phases {seconds} s._', '',
         '| case | figure | ' + ' | '.join(names[s] for s in stores) + ' |', '|---|---|' + '---:|' * len(stores)]
def cell(case, store, f):
    r = by.get((case, store))
    if r is None:
        return '—'
    try:
        return f(r)
    except KeyError:
        return '—'
def row(case, label, f):
    if any((case, s) in by for s in stores):
        lines.append(f'| {case} | {label} | ' + ' | '.join(cell(case, s, f) for s in stores) + ' |')
n = f'{int(clients):,}'
row('fix', f'paced, {n} clients × 1 batch/s: p50 / p90 / p99', lambda r: f"{r['paced']['p50']:.1f} / {r['paced']['p90']:.1f} / {r['paced']['p99']:.0f} ms")
row('fix', 'paced: answered/s, errors', lambda r: f"{r['paced']['rate']:.0f}, {r['paced']['errors']}")
row('fix', 'back to back: batches/s', lambda r: f"**{r['unpaced']['rate']:,.0f}**")
row('fix', 'back to back: p50 / p99', lambda r: f"{r['unpaced']['p50']:.0f} / {r['unpaced']['p99']:.0f} ms")
row('fix', 'serve peak RSS', lambda r: f"{r['serverPeakMiB']} MiB")
row('fix', 'load average (1 min) before → after', lambda r: f"{r['load'][0]:.1f} → {r['load'][1]:.1f}")
row('ingest', f'OwnTracks single fixes, {n} devices: posts/s', lambda r: f"**{r['single']['rate']:,.0f}**")
row('ingest', 'p50 / p99', lambda r: f"{r['single']['p50']:.0f} / {r['single']['p99']:.0f} ms")
row('ingest', 'serve peak RSS', lambda r: f"{r['serverPeakMiB']} MiB")
row('ingest', 'load average before → after', lambda r: f"{r['load'][0]:.1f} → {r['load'][1]:.1f}")
row('import', f'`bikeride import {ride}`: wall', lambda r: f"**{r['command']['seconds']:.2f} s**")
row('import', '… peak RSS (bikeride) / CPU', lambda r: f"{r['command']['peakKiB'] / 1024:.0f} MiB / {r['command']['cpuPercent']} %")
row('import', '… database / documents folder after', lambda r: f"{r['command']['databaseBytes'] / 1048576:.1f} MiB / {r['command']['documentsBytes'] / 1048576:.0f} MiB")
row('import', 'the store\'s import alone (`ridestore-bench seed`): wall', lambda r: f"**{r['library']['seconds']:.2f} s**")
row('import', '… peak RSS / CPU', lambda r: f"{r['library']['peakKiB'] / 1024:.0f} MiB / {r['library']['cpuPercent']} %")
row('import', 'load average before → after', lambda r: f"{r['load'][0]:.1f} → {r['load'][1]:.1f}")
row('list', f'seed {int(tracks):,} tracks (one import, `ridestore-bench seed`)', lambda r: f"{r['seedSeconds']:.1f} s" if 'seedSeconds' in r else '(pg1\'s)')
row('list', '… then VACUUM (ANALYZE)', lambda r: f"{r['vacuumSeconds']:.1f} s" if r.get('vacuumSeconds') is not None else '—')
row('list', 'first page of 50: median / p90', lambda r: f"**{r['first']['medianMs']:.1f}** / {r['first']['p90Ms']:.1f} ms")
row('list', f'page {int(deep) + 1:,} (cursor): median / p90', lambda r: f"**{r['deep']['medianMs']:.1f}** / {r['deep']['p90Ms']:.1f} ms")
row('list', f'walk of {int(deep):,} pages: mean a page', lambda r: f"{r['walkMeanMs']:.1f} ms")
row('list', 'load average before → after', lambda r: f"{r['load'][0]:.1f} → {r['load'][1]:.1f}")
print('\n'.join(lines))
EOF
