#!/usr/bin/env bash
# FIT benchmark (issue 21): a 100,000-record FIT activity (Benchmarks/generate_fit.py) read side by side, in the
# same run, by
#   - `bikeride stats --json FILE` against fitdecode reading every frame and summing the same figures
#     (Benchmarks/baselines/fitdecode_stats.py) and against gpsbabel only reading it (`gpsbabel -t -i garmin_fit
#     -f FILE`, no output);
#   - `bikeride convert FILE OUT.gpx` against `gpsbabel -t -i garmin_fit -f FILE -o gpx -F OUT.gpx`.
# The commands run in turn (bikeride, fitdecode, gpsbabel, ... BENCH_REPEAT times), so a change in the machine's load
# reaches all of them; the median counts. Prints a Markdown table (also Benchmarks/out/fit-results.md) with wall time,
# peak RSS, how many times faster bikeride is, the records or points each read and the distance, then the targets:
# stats ≥ 20× faster than fitdecode and faster than gpsbabel.
#
#   Benchmarks/run-fit.sh
#
# Environment:
#   BENCH_RECORDS=100000     records in the generated file (Benchmarks/data/ride-100k.fit for 100,000)
#   BENCH_REPEAT=N           runs of each command (default 5; fitdecode, 6 s a run, at most 3)
#   BENCH_ENFORCE_TARGETS=1  exit 1 when a target is missed
#   BIKERIDE_BIN=PATH        use this bikeride binary instead of building one (`swift build -c release`)
#   BIKERIDE_STATS_BIN=PATH  time this program instead of `bikeride stats --json` (Benchmarks/fit/bin/fit_stats, RideKit
#                            alone built by Benchmarks/fit/build.sh); without BIKERIDE_BIN, the convert rows are left out
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="$here/data"
out="$here/out"
records="${BENCH_RECORDS:-100000}"
repeat="${BENCH_REPEAT:-5}"
mkdir -p "$data" "$out"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# --- tools -----------------------------------------------------------------------------------------------
if [ ! -x /usr/bin/time ]; then
    echo "installing GNU time (/usr/bin/time)..." >&2
    as_root apt-get update -qq && as_root apt-get install -y -qq time >&2
fi
if ! command -v gpsbabel >/dev/null; then
    echo "installing gpsbabel..." >&2
    as_root apt-get update -qq && as_root apt-get install -y -qq gpsbabel >&2
fi
if ! python3 -c 'import fitdecode' 2>/dev/null; then
    echo "installing fitdecode with pip..." >&2
    python3 -m pip install --quiet fitdecode >&2 || python3 -m pip install --quiet --break-system-packages fitdecode >&2
fi

# --- data --------------------------------------------------------------------------------------------------
name="ride-$((records / 1000))k.fit"
file="$data/$name"
if [ ! -s "$file" ] || [ ! -s "$file.truth.json" ]; then
    echo "generating $file..." >&2
    python3 "$here/generate_fit.py" "$records" "$file" >/dev/null
fi

# --- build -------------------------------------------------------------------------------------------------
bikeride=""
if [ -n "${BIKERIDE_BIN:-}" ]; then
    bikeride="$BIKERIDE_BIN"
elif [ -n "${BIKERIDE_STATS_BIN:-}" ]; then
    echo "timing $BIKERIDE_STATS_BIN for stats; no bikeride binary: no convert rows" >&2
else
    echo "building bikeride (release)..." >&2
    (cd "$root" && swift build -c release --product bikeride >&2)
    bikeride="$(cd "$root" && swift build -c release --show-bin-path)/bikeride"
fi
[ -z "$bikeride" ] || [ -x "$bikeride" ] || { echo "run-fit.sh: no bikeride binary at $bikeride" >&2; exit 1; }
if [ -n "${BIKERIDE_STATS_BIN:-}" ]; then stats_command=("$BIKERIDE_STATS_BIN"); else stats_command=("$bikeride" stats --json); fi

# --- runs --------------------------------------------------------------------------------------------------
results="$out/fit-results.tsv"
printf 'tool\trun\twall\trss_kb\tstatus\toutput\n' > "$results"

# measure TOOL RUN OUTPUT COMMAND...: wall time from the clock, peak RSS from GNU time (%M, KiB)
measure() {
    local tool="$1" run="$2" output="$3"
    shift 3
    local timefile="$out/.fit-time" start end status=0
    start=$(date +%s%N)
    /usr/bin/time -f '%e %M' -o "$timefile" "$@" > "$output" 2> "$output.stderr" || status=$?
    end=$(date +%s%N)
    local rss wall
    rss=$(awk 'END { print $2 }' "$timefile")
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$run" "$wall" "${rss:-0}" "$status" "$output" >> "$results"
    echo "  $tool: ${wall}s, $((${rss:-0} / 1024)) MiB, exit $status" >&2
    if [ "$status" != 0 ]; then sed 's/^/    /' "$output.stderr" | head -5 >&2; fi
}

echo "$name ($(stat -L -c %s "$file") bytes), $repeat runs each:" >&2
cat "$file" > /dev/null
for ((i = 1; i <= repeat; i++)); do
    measure "bikeride stats" "$i" "$out/fit.stats.$i.json" "${stats_command[@]}" "$file"
    if [ "$i" -le 3 ]; then
        measure "fitdecode" "$i" "$out/fit.fitdecode.$i.json" python3 "$here/baselines/fitdecode_stats.py" "$file"
    fi
    measure "gpsbabel read" "$i" "$out/fit.gpsbabel-read.$i.txt" gpsbabel -t -i garmin_fit -f "$file"
    if [ -n "$bikeride" ]; then
        measure "bikeride convert → GPX" "$i" "$out/fit.convert.$i.txt" "$bikeride" convert "$file" "$out/fit.bikeride.gpx"
        measure "gpsbabel → GPX" "$i" "$out/fit.gpsbabel.$i.txt" gpsbabel -t -i garmin_fit -f "$file" -o gpx -F "$out/fit.gpsbabel.gpx"
    fi
done

# --- report ------------------------------------------------------------------------------------------------
status=0
python3 - "$results" "$file" "$out" "${BENCH_ENFORCE_TARGETS:-0}" "$root" > "$out/fit-results.md" <<'PYTHON' || status=$?
import json, os, re, statistics, subprocess, sys

results_path, fit_path, out, enforce, root = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1", sys.argv[5]
rows = []
with open(results_path) as f:
    header = f.readline().rstrip("\n").split("\t")
    for line in f:
        rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
truth = json.load(open(fit_path + ".truth.json"))

def cmd(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, cwd=root).stdout.strip()
    except OSError:
        return "?"

def gpx_points(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return text.count("<trkpt "), text.count("<trkseg>")
    except OSError:
        return None, None

tools = ["bikeride stats", "fitdecode", "gpsbabel read", "bikeride convert → GPX", "gpsbabel → GPX"]
summary = {}
problems = []
for tool in tools:
    runs = [r for r in rows if r["tool"] == tool]
    ok = [r for r in runs if r["status"] == "0"]
    if not runs:
        continue
    if len(ok) < len(runs):
        problems.append("%s failed in %d of %d runs" % (tool, len(runs) - len(ok), len(runs)))
    if not ok:
        continue
    walls = sorted(float(r["wall"]) for r in ok)
    summary[tool] = {"median": statistics.median(walls), "min": walls[0], "max": walls[-1],
                     "rss": max(int(r["rss_kb"]) for r in ok) / 1024, "runs": len(ok), "output": ok[-1]["output"]}

# What each read: bikeride's figures, fitdecode's records and distance, the GPX files' points.
detail = {}
if "bikeride stats" in summary:
    s = json.load(open(summary["bikeride stats"]["output"]))
    detail["bikeride stats"] = "%s points, %.3f km (device %.3f km)" % (
        format(s.get("pointCount", s.get("points", 0)), ","), s["distanceMeters"] / 1000,
        (s.get("device") or {}).get("distanceMeters", 0) / 1000)
if "fitdecode" in summary:
    s = json.load(open(summary["fitdecode"]["output"]))
    detail["fitdecode"] = "%s records, %.3f km (haversine; session %.3f km)" % (
        format(s["records"], ","), s["distanceMeters"] / 1000, (s["session"].get("distanceMeters") or 0) / 1000)
for tool, path in (("bikeride convert → GPX", os.path.join(out, "fit.bikeride.gpx")),
                   ("gpsbabel → GPX", os.path.join(out, "fit.gpsbabel.gpx"))):
    points, segments = gpx_points(path)
    if points is not None:
        detail[tool] = "%s trkpt in %d trkseg, %.1f MB" % (format(points, ","), segments, os.path.getsize(path) / 1e6)
        if points != truth["records"]:
            problems.append("%s wrote %d points of %d records" % (tool, points, truth["records"]))
detail["gpsbabel read"] = "(reads into memory, writes nothing)"

cpu = "?"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip()
        break
swift = cmd(["swift", "--version"]).splitlines()
print("FIT benchmark, %s, commit %s" % (cmd(["date", "-u", "+%Y-%m-%d %H:%M UTC"]), cmd(["git", "rev-parse", "--short", "HEAD"]) or "?"))
print("Machine: %s, %d cores; %s; load average before the report: %s" % (
    cpu, os.cpu_count() or 0, swift[0] if swift else "swift ?", open("/proc/loadavg").read().split()[0]))
print("File: %s, %s records, %.1f MB, %s laps, %s timer pauses, device distance %.3f km" % (
    os.path.basename(fit_path), format(truth["records"], ","), truth["bytes"] / 1e6, truth["laps"], truth["pauses"],
    truth["deviceDistanceMeters"] / 1000))
print()
print("| tool | wall, median (min–max) | peak RSS (MiB) | bikeride is × faster | what it read |")
print("|---|---:|---:|---:|---|")
pairs = {"fitdecode": "bikeride stats", "gpsbabel read": "bikeride stats", "gpsbabel → GPX": "bikeride convert → GPX"}
for tool in tools:
    if tool not in summary:
        continue
    s = summary[tool]
    ratio = ""
    if tool in pairs and pairs[tool] in summary:
        ratio = "%.1f×" % (s["median"] / summary[pairs[tool]]["median"])
    elif tool.startswith("bikeride"):
        ratio = "1×"
    print("| %s | %.3f s (%.3f–%.3f) | %.1f | %s | %s |" % (tool, s["median"], s["min"], s["max"], s["rss"], ratio,
                                                         detail.get(tool, "")))
print()
targets = []
if "bikeride stats" in summary and "fitdecode" in summary:
    r = summary["fitdecode"]["median"] / summary["bikeride stats"]["median"]
    targets.append(("stats ≥ 20× faster than fitdecode", r >= 20, "%.1f×" % r))
if "bikeride stats" in summary and "gpsbabel read" in summary:
    r = summary["gpsbabel read"]["median"] / summary["bikeride stats"]["median"]
    targets.append(("stats faster than gpsbabel reading the file", r > 1, "%.2f×" % r))
if "bikeride convert → GPX" in summary and "gpsbabel → GPX" in summary:
    r = summary["gpsbabel → GPX"]["median"] / summary["bikeride convert → GPX"]["median"]
    targets.append(("convert to GPX faster than gpsbabel's", r > 1, "%.2f×" % r))
print("Targets: " + "; ".join("**%s: %s (%s)**" % (t, "PASS" if ok else "MISS", v) for t, ok, v in targets))
for p in problems:
    print("\nPROBLEM: " + p)
sys.exit(1 if problems or (enforce and not all(ok for _, ok, _ in targets)) else 0)
PYTHON
cat "$out/fit-results.md"
exit "$status"
