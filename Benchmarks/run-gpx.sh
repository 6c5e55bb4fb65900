#!/usr/bin/env bash
# GPX benchmark: `bikeride stats --json` side by side, in the same run, with
#   - xmlparser-stats: a small Swift program doing the same work with Foundation's XMLParser(contentsOf:)
#     (Benchmarks/baselines/xmlparser, its own package), and
#   - gpxpy: gpx.length_2d() + gpx.get_uphill_downhill() (Benchmarks/baselines/gpxpy_stats.py),
# on generated rides of 10k, 100k and 1M points (Benchmarks/generate_ride.py; 1 Hz, ~5 m apart, ele,
# time, hr, cad; the 1M file is about 330 MB). Prints a Markdown table: wall time, peak RSS, MB/s and
# how many times faster bikeride is; checks that the three distances agree with each other and with
# the generator's true length; checks the targets of issue 2 on the 1M-point file.
#
#   Benchmarks/run-gpx.sh
#
# Environment:
#   BENCH_SIZES="10k 100k 1m"   which files (any of 10k 100k 1m)
#   BENCH_SKIP_GPXPY_1M=1       skip gpxpy on the 1M file (about a minute and 4.5 GB of memory)
#   BENCH_SKIP_GPXPY=1          skip gpxpy altogether
#   BENCH_REPEAT=N              run bikeride and xmlparser-stats N times each, keep the fastest (default 3);
#                               gpxpy runs once
#   BENCH_TOLERANCE_PERCENT=P   distance agreement tolerance (default 2)
#   BENCH_ENFORCE_TARGETS=1     exit 1 when a target is missed (by default only reported)
#   BIKERIDE_BIN=PATH           use this bikeride binary instead of building one (`swift build -c release`)
#
# Data goes to Benchmarks/data/ and raw outputs and the table to Benchmarks/out/ (both git-ignored).
# Exit status: 0, or 1 when a tool fails or the distances disagree (or a target is missed, if enforced).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="$here/data"
out="$here/out"
sizes="${BENCH_SIZES:-10k 100k 1m}"
repeat="${BENCH_REPEAT:-3}"
tolerance="${BENCH_TOLERANCE_PERCENT:-2}"
mkdir -p "$data" "$out"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# --- tools ---------------------------------------------------------------------------------------------
if [ ! -x /usr/bin/time ]; then
    echo "installing GNU time (/usr/bin/time)..." >&2
    as_root apt-get update -qq && as_root apt-get install -y -qq time >&2
fi
run_gpxpy=1
[ "${BENCH_SKIP_GPXPY:-0}" = 1 ] && run_gpxpy=0
if [ "$run_gpxpy" = 1 ] && ! python3 -c 'import gpxpy' 2>/dev/null; then
    echo "installing gpxpy with pip..." >&2
    python3 -m pip install --quiet gpxpy >&2 || python3 -m pip install --quiet --break-system-packages gpxpy >&2
fi

# --- data ------------------------------------------------------------------------------------------------
points_of() {
    case "$1" in
    10k) echo 10000 ;;
    100k) echo 100000 ;;
    1m) echo 1000000 ;;
    *) echo "run-gpx.sh: unknown size '$1' (use 10k, 100k, 1m)" >&2; exit 2 ;;
    esac
}
for size in $sizes; do
    file="$data/ride-$size.gpx"
    if [ ! -s "$file" ] || [ ! -s "$file.truth.json" ]; then
        echo "generating $file..." >&2
        python3 "$here/generate_ride.py" "$(points_of "$size")" "$file" >/dev/null
    fi
done

# --- builds ----------------------------------------------------------------------------------------------
if [ -n "${BIKERIDE_BIN:-}" ]; then
    bikeride="$BIKERIDE_BIN"
else
    echo "building bikeride (release)..." >&2
    (cd "$root" && swift build -c release --product bikeride >&2)
    bikeride="$(cd "$root" && swift build -c release --show-bin-path)/bikeride"
fi
[ -x "$bikeride" ] || { echo "run-gpx.sh: no bikeride binary at $bikeride" >&2; exit 1; }

echo "building the XMLParser baseline (release)..." >&2
baseline_dir="$here/baselines/xmlparser"
(cd "$baseline_dir" && swift build -c release --scratch-path .build >&2)
xmlparser="$baseline_dir/.build/release/xmlparser-stats"

# --- runs ------------------------------------------------------------------------------------------------
results="$out/results.tsv"
printf 'size\tfile\tbytes\ttool\twall\trss_kb\tstatus\toutput\n' > "$results"

# measure TOOL SIZE FILE OUTPUT COMMAND...: wall time from the clock (ns), peak RSS from GNU time (%M, KiB)
measure() {
    local tool="$1" size="$2" file="$3" output="$4"
    shift 4
    local timefile="$out/.time" start end status=0
    start=$(date +%s%N)
    /usr/bin/time -f '%e %M' -o "$timefile" "$@" > "$output" 2> "$output.stderr" || status=$?
    end=$(date +%s%N)
    local rss
    rss=$(awk 'END { print $2 }' "$timefile")
    local wall
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$size" "$file" "$(stat -L -c %s "$file")" "$tool" "$wall" "${rss:-0}" \
        "$status" "$output" >> "$results"
    echo "  $tool: ${wall}s, $((${rss:-0} / 1024)) MiB, exit $status" >&2
    if [ "$status" != 0 ]; then
        sed 's/^/    /' "$output.stderr" | head -5 >&2
    fi
}

for size in $sizes; do
    file="$data/ride-$size.gpx"
    echo "ride-$size.gpx ($(($(stat -L -c %s "$file") / 1000000)) MB):" >&2
    cat "$file" > /dev/null  # the first tool should not pay for reading from disk
    for ((i = 1; i <= repeat; i++)); do
        measure bikeride "$size" "$file" "$out/ride-$size.bikeride.$i.json" "$bikeride" stats --json "$file"
        measure xmlparser "$size" "$file" "$out/ride-$size.xmlparser.$i.json" "$xmlparser" "$file"
    done
    if [ "$run_gpxpy" = 1 ] && ! { [ "$size" = 1m ] && [ "${BENCH_SKIP_GPXPY_1M:-0}" = 1 ]; }; then
        measure gpxpy "$size" "$file" "$out/ride-$size.gpxpy.json" python3 "$here/baselines/gpxpy_stats.py" "$file"
    fi
done

# --- report ----------------------------------------------------------------------------------------------
status=0
python3 - "$results" "$tolerance" "${BENCH_ENFORCE_TARGETS:-0}" "$root" > "$out/results.md" <<'PYTHON' || status=$?
import json, os, platform, subprocess, sys
from collections import OrderedDict

results_path, tolerance, enforce, root = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
rows = []
with open(results_path) as f:
    header = f.readline().rstrip("\n").split("\t")
    for line in f:
        rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))

def first_json(path):
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    return json.loads(line)
    except (OSError, ValueError):
        pass
    return None

# Per size and tool: the fastest successful run (its RSS), or the failure.
best = OrderedDict()
for r in rows:
    key = (r["size"], r["tool"])
    r["wall"] = float(r["wall"]); r["rss_kb"] = int(r["rss_kb"]); r["bytes"] = int(r["bytes"])
    r["ok"] = r["status"] == "0"
    r["json"] = first_json(r["output"]) if r["ok"] else None
    if r["ok"] and r["json"] is None:
        r["ok"] = False
    if r["ok"] and r["tool"] == "bikeride" and "distanceMeters" not in r["json"]:
        r["ok"] = False
    old = best.get(key)
    if old is None or (r["ok"] and (not old["ok"] or r["wall"] < old["wall"])):
        best[key] = r

def truth(file):
    try:
        with open(file + ".truth.json") as f:
            return json.load(f)
    except OSError:
        return {}

def cmd(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, cwd=root).stdout.strip()
    except OSError:
        return "?"

cpu = "?"
try:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
except OSError:
    pass
swift_version = cmd(["swift", "--version"]).splitlines()
print("GPX benchmark, %s, commit %s" % (cmd(["date", "-u", "+%Y-%m-%d %H:%M UTC"]), cmd(["git", "rev-parse", "--short", "HEAD"]) or "?"))
print("Machine: %s, %d cores, %s; %s" % (cpu, os.cpu_count() or 0, platform.platform(), swift_version[0] if swift_version else "swift ?"))
print("Command: `Benchmarks/run-gpx.sh` (release builds; wall time is the fastest of the runs; peak RSS from GNU time)")
print()
print("| file | size | tool | wall (s) | MB/s | peak RSS (MiB) | bikeride is × faster | distance (km) | Δ vs true | ascent (m) |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
problems = []
sizes = list(OrderedDict.fromkeys(s for s, _ in best))
tool_names = {"bikeride": "bikeride stats", "xmlparser": "XMLParser (Swift)", "gpxpy": "gpxpy"}
for size in sizes:
    b = best.get((size, "bikeride"))
    for tool in ("bikeride", "xmlparser", "gpxpy"):
        r = best.get((size, tool))
        if r is None:
            continue
        t = truth(r["file"])
        true_km = t.get("trueDistanceMeters", 0) / 1000
        name = os.path.basename(r["file"])
        mb = r["bytes"] / 1e6
        if not r["ok"]:
            print("| %s | %.1f MB | %s | failed (exit %s) | | | | | | |" % (name, mb, tool_names[tool], r["status"]))
            problems.append("%s failed on %s (see %s.stderr)" % (tool, name, r["output"]))
            continue
        j = r["json"]
        dist = j.get("distanceMeters", 0) / 1000
        ascent = j.get("ascentMeters", j.get("uphillMeters", 0))
        ratio = ""
        if tool != "bikeride" and b is not None and b["ok"] and b["wall"] > 0:
            ratio = "%.1f×" % (r["wall"] / b["wall"])
        elif tool == "bikeride":
            ratio = "1×"
        delta = "%+.2f %%" % ((dist - true_km) / true_km * 100) if true_km else ""
        print("| %s | %.1f MB | %s | %.3f | %.0f | %.1f | %s | %.3f | %s | %.0f |" % (
            name, mb, tool_names[tool], r["wall"], mb / r["wall"] if r["wall"] > 0 else 0,
            r["rss_kb"] / 1024, ratio, dist, delta, ascent))
        if true_km and abs(dist - true_km) / true_km * 100 > tolerance:
            problems.append("%s on %s: distance %.3f km is more than %g %% from the true %.3f km" % (
                tool, name, dist, tolerance, true_km))
    # the tools against each other
    dists = {tool: best[(size, tool)]["json"]["distanceMeters"] for tool in ("bikeride", "xmlparser", "gpxpy")
             if (size, tool) in best and best[(size, tool)]["ok"]}
    for a in dists:
        for c in dists:
            if a < c and abs(dists[a] - dists[c]) / max(dists[a], dists[c]) * 100 > tolerance:
                problems.append("ride-%s: %s and %s disagree on distance by more than %g %% (%.3f vs %.3f km)" % (
                    size, a, c, tolerance, dists[a] / 1000, dists[c] / 1000))

print()
files = OrderedDict((r["size"], r["file"]) for r in rows)
print("True values (generator): " + "; ".join(
    "ride-%s %.3f km, +%.0f m" % (s, truth(f).get("trueDistanceMeters", 0) / 1000, truth(f).get("trueAscentMeters", 0))
    for s, f in files.items()) + ". Ascent is not compared: each tool filters elevation noise its own way.")

# Targets of issue 2, on the 1M-point file.
missed = []
b, x, g = best.get(("1m", "bikeride")), best.get(("1m", "xmlparser")), best.get(("1m", "gpxpy"))
if b is not None and b["ok"]:
    print()
    print("Targets on the 1M-point file (issue 2):")
    def check(label, value, ok):
        print("- %s %s: %s" % ("PASS" if ok else "MISS", label, value))
        if not ok:
            missed.append(label)
    if x is not None and x["ok"]:
        check("≥ 8× faster than the XMLParser program", "%.1f×" % (x["wall"] / b["wall"]), x["wall"] / b["wall"] >= 8)
    if g is not None and g["ok"]:
        check("≥ 100× faster than gpxpy", "%.1f×" % (g["wall"] / b["wall"]), g["wall"] / b["wall"] >= 100)
    check("peak memory ≤ 64 MB", "%.1f MiB" % (b["rss_kb"] / 1024), b["rss_kb"] / 1024 <= 64)

if problems:
    print()
    print("Problems:")
    for p in problems:
        print("- " + p)
else:
    print()
    print("Distances agree: every tool within %g %% of the true length and of each other." % tolerance)
sys.exit(1 if problems or (enforce and missed) else 0)
PYTHON
cat "$out/results.md"
echo >&2
echo "table saved to $out/results.md; raw outputs in $out/" >&2
exit "$status"
