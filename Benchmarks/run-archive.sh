#!/usr/bin/env bash
# Archive benchmark (issue 21): a Strava-style bulk export of 2,000 activities (Benchmarks/generate_archive.py: FIT,
# GPX and TCX, gzipped or not, indoor rides, activities.csv) imported with `bikeride import export.zip` into a new
# SQLite data directory, then the same archive again (which must add nothing). Target: the first import in under
# 60 s on this machine.
#
#   Benchmarks/run-archive.sh
#
# Environment:
#   BENCH_ACTIVITIES=2000    activities in the generated archive (Benchmarks/data/strava-2000.zip)
#   BENCH_REPEAT=N           imports into a new data directory, the median counts (default 1: each takes a minute)
#   BENCH_ENFORCE_TARGETS=1  exit 1 when the target is missed
#   BIKERIDE_BIN=PATH        use this bikeride binary instead of building one (`swift build -c release`)
#
# The data directories go to Benchmarks/data/archive-run-N/ (removed after each run), the outputs and the table to
# Benchmarks/out/archive-*.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="$here/data"
out="$here/out"
activities="${BENCH_ACTIVITIES:-2000}"
repeat="${BENCH_REPEAT:-1}"
mkdir -p "$data" "$out"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if [ ! -x /usr/bin/time ]; then
    as_root apt-get update -qq && as_root apt-get install -y -qq time >&2
fi

zip="$data/strava-$activities.zip"
if [ ! -s "$zip" ] || [ ! -s "$zip.truth.json" ]; then
    echo "generating $zip (a few minutes)..." >&2
    python3 "$here/generate_archive.py" "$activities" "$zip" >/dev/null
fi

if [ -n "${BIKERIDE_BIN:-}" ]; then
    bikeride="$BIKERIDE_BIN"
else
    echo "building bikeride (release)..." >&2
    (cd "$root" && swift build -c release --product bikeride >&2)
    bikeride="$(cd "$root" && swift build -c release --show-bin-path)/bikeride"
fi
[ -x "$bikeride" ] || { echo "run-archive.sh: no bikeride binary at $bikeride" >&2; exit 1; }

results="$out/archive-results.tsv"
printf 'run\tphase\twall\trss_kb\tstatus\toutput\tload\n' > "$results"
cat "$zip" > /dev/null
for ((i = 1; i <= repeat; i++)); do
    dir="$data/archive-run-$i"
    rm -rf "$dir"
    for phase in first again; do
        output="$out/archive-$i-$phase.txt"
        load=$(cut -d' ' -f1 /proc/loadavg)
        status=0
        start=$(date +%s%N)
        /usr/bin/time -f '%e %M' -o "$out/.archive-time" "$bikeride" import "$zip" --data-dir "$dir" > "$output" 2>&1 || status=$?
        end=$(date +%s%N)
        wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
        rss=$(awk 'END { print $2 }' "$out/.archive-time")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$phase" "$wall" "${rss:-0}" "$status" "$output" "$load" >> "$results"
        echo "  import $i ($phase): ${wall}s, $((${rss:-0} / 1024)) MiB, exit $status: $(tail -1 "$output")" >&2
    done
    "$bikeride" list --data-dir "$dir" --all > "$out/archive-$i-list.txt" 2>&1 || true
    du -sb "$dir" | cut -f1 > "$out/archive-$i-bytes.txt"
    rm -rf "$dir"
done

status=0
python3 - "$results" "$zip" "$out" "${BENCH_ENFORCE_TARGETS:-0}" > "$out/archive-results.md" <<'PYTHON' || status=$?
import json, os, re, statistics, subprocess, sys

results_path, zip_path, out, enforce = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
with open(results_path) as f:
    header = f.readline().rstrip("\n").split("\t")
    rows = [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f]
truth = json.load(open(zip_path + ".truth.json"))
problems = []

def last_line(path):
    """The import's summary ("2,000 imported", "2,000 already imported, 1 failed"): the last line that says one."""
    said = [l.strip() for l in open(path, errors="replace") if re.search(r": [\d,]+ (already )?imported|failed", l)]
    return said[-1].split(": ", 1)[-1] if said else "(no summary)"

cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print("Archive benchmark, %s; %s, %d cores" % (subprocess.run(["date", "-u", "+%Y-%m-%d %H:%M UTC"], capture_output=True,
                                                              text=True).stdout.strip(), cpu, os.cpu_count() or 0))
print("Archive: %s, %s activities (%s files: %s; %s indoor without positions; %s manual rows), %s points, %.0f MB" % (
    os.path.basename(zip_path), format(truth["activities"], ","), format(truth["files"], ","),
    ", ".join("%d %s" % (v, k) for k, v in sorted(truth["formats"].items(), key=lambda kv: -kv[1])),
    truth["indoor"], truth["manual"], format(truth["points"], ","), truth["bytes"] / 1e6))
print()
print("| run | import | wall (s) | files/s | points/s | peak RSS (MiB) | load avg at start | what it said |")
print("|---|---|---:|---:|---:|---:|---:|---|")
firsts = []
for r in rows:
    wall = float(r["wall"])
    said = last_line(r["output"])
    files_rate = points_rate = ""
    if r["phase"] == "first":
        firsts.append(wall)
        files_rate = "%.0f" % (truth["files"] / wall)
        points_rate = "%.0f k" % (truth["points"] / wall / 1000)
        m = re.search(r"(\d[\d,]*) of (\d[\d,]*)", said)
        listed = sum(1 for l in open(os.path.join(out, "archive-%s-list.txt" % r["run"])) if re.match(r"^[0-9A-Z]{8}\s", l))
        if listed != truth["files"]:
            problems.append("run %s: %d tracks listed after the import, %d files in the archive" % (r["run"], listed, truth["files"]))
    else:
        if "already imported" not in said or re.search(r"\b[1-9][\d,]* imported", said):
            problems.append("run %s: the second import said %r" % (r["run"], said))
    if r["status"] != "0":
        problems.append("run %s (%s) exited %s" % (r["run"], r["phase"], r["status"]))
    print("| %s | %s | %.2f | %s | %s | %.0f | %s | %s |" % (r["run"], r["phase"], wall, files_rate, points_rate,
                                                          int(r["rss_kb"]) / 1024, r["load"], said.replace("|", "\\|")))
print()
if firsts:
    median = statistics.median(firsts)
    ok = median < 60
    print("Target: **%s activities imported in under 60 s: %s (%.1f s)**" % (format(truth["activities"], ","),
                                                                          "PASS" if ok else "MISS", median))
    if enforce and not ok:
        problems.append("target missed")
for p in problems:
    print("\nPROBLEM: " + p)
sys.exit(1 if problems else 0)
PYTHON
cat "$out/archive-results.md"
exit "$status"
