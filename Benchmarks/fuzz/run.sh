#!/usr/bin/env bash
# Fuzz the GPX reader with libFuzzer, differentially against libexpat (see fuzz_gpx.swift).
#
#   Benchmarks/fuzz/run.sh [SECONDS]        # default 1800 (30 minutes)
#
# Environment:
#   FIXTURES=DIR          GPX fixtures that seed the corpus (default: ../shared/fixtures/gpx beside the repo)
#   FUZZ_FORK=N           run N fuzzing processes in parallel (libFuzzer -fork=N); default 1
#   FUZZ_NO_BUILD=1       reuse Benchmarks/fuzz/bin/fuzz_gpx as built last time
#   FUZZ_GPX_NO_POINT_COUNT=1, FUZZ_GPX_FALSE_REJECTS=1   change the differential checks (fuzz_gpx.swift)
#   FUZZ_TIMEOUT=S        an input read for longer is a finding (timeout-*); default 2: a linear reader takes
#                         milliseconds for 64 KiB even with ASan, so a slow path shows long before that
#   FUZZ_SLOW_PATHS=1     hunt for slow paths: inputs up to 1 MiB (-max_len) grown at once (-len_control=0), where
#                         a quadratic construct costs seconds (20,000 attributes took 1.1 s before the fix)
#   extra libFuzzer flags can follow the seconds: run.sh 600 -seed=1
#
# Builds Benchmarks/fuzz/bin/fuzz_gpx, seeds Benchmarks/fuzz/corpus/ from the fixtures (gunzipping .gz),
# a generated ride and a few hostile inputs, then fuzzes with -max_len=65536 -timeout=2 -rss_limit_mb=2048, and
# -report_slow_units=1 (an input that takes a second is saved as slow-unit-*).
# Findings land in Benchmarks/fuzz/artifacts/ (crash-*, timeout-*, slow-unit-*, oom-*, leak-*); reproduce one with
#   Benchmarks/fuzz/bin/fuzz_gpx Benchmarks/fuzz/artifacts/crash-…
# corpus/, artifacts/ and bin/ are git-ignored. Not part of CI.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-1800}"
shift || true
fixtures="${FIXTURES:-$root/../shared/fixtures/gpx}"
bin="$here/bin"
corpus="$here/corpus"
artifacts="$here/artifacts"

if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 [SECONDS] [libFuzzer flags...]" >&2
    exit 2
fi
command -v swiftc >/dev/null || { echo "run.sh: swiftc not found (install Swift)" >&2; exit 1; }
if [ ! -e /usr/include/expat.h ]; then
    echo "run.sh: <expat.h> missing: apt-get install libexpat1-dev (scripts/test.sh does it)" >&2
    exit 1
fi

mkdir -p "$bin" "$corpus" "$artifacts"

# --- build -----------------------------------------------------------------------------------------
if [ "${FUZZ_NO_BUILD:-0}" != 1 ] || [ ! -x "$bin/fuzz_gpx" ]; then
    mapfile -t sources < <(find "$root/Sources/RideKit" -name '*.swift' | LC_ALL=C sort)
    if [ "${#sources[@]}" -eq 0 ]; then
        echo "run.sh: no Swift files under Sources/RideKit" >&2
        exit 1
    fi
    echo "building fuzz_gpx from fuzz_gpx.swift and ${#sources[@]} RideKit files (-O, fuzzer+address)..."
    # One module named RideKit: fuzz_gpx.swift sees the reader as if it were inside the library.
    # The Swift runtime's own backtracer is turned off when running (SWIFT_BACKTRACE below): it clashes
    # with ASan and hides libFuzzer's report of a crash.
    swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -package-name bikeride \
        -module-name RideKit -I "$root/Sources/CExpat" -lexpat -I "$root/Sources/SystemZlib" -lz \
        "$here/fuzz_gpx.swift" "${sources[@]}" \
        -module-cache-path "$bin/module-cache" \
        -o "$bin/fuzz_gpx" 2> >(grep -v "Cannot export local symbol '__asan" >&2)
fi

# --- seed corpus -------------------------------------------------------------------------------------
seeded=0
if [ -d "$fixtures" ]; then
    while IFS= read -r -d '' file; do
        rel="${file#"$fixtures"/}"
        name="fixture__${rel//\//__}"
        case "$file" in
        *.gz)
            name="${name%.gz}"
            [ -e "$corpus/$name" ] || gunzip -c "$file" > "$corpus/$name"
            ;;
        *)
            [ -e "$corpus/$name" ] || cp "$file" "$corpus/$name"
            ;;
        esac
        seeded=$((seeded + 1))
    done < <(find "$fixtures" -type f \( -name '*.gpx' -o -name '*.xml' -o -name '*.gz' \) -print0)
else
    echo "run.sh: warning: no fixtures at $fixtures (set FIXTURES=DIR); seeding with generated inputs only" >&2
fi
if [ ! -e "$corpus/generated__ride-40.gpx" ]; then
    python3 "$root/Benchmarks/generate_ride.py" 40 "$corpus/generated__ride-40.gpx" >/dev/null 2>&1 || true
    rm -f "$corpus/generated__ride-40.gpx.truth.json"
fi
# A few hostile shapes (DESIGN 4.1), so the fuzzer starts next to them.
seed() { [ -e "$corpus/$1" ] || printf '%b' "$2" > "$corpus/$1"; }
gpx_open='<gpx version="1.1" creator="f" xmlns="http://www.topografix.com/GPX/1/1">'
seed hostile__doctype.gpx '<?xml version="1.0"?>\n<!DOCTYPE gpx [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>\n'"$gpx_open"'<trk><name>&b;</name></trk></gpx>\n'
seed hostile__pi-without-data.gpx '<?x?>'"$gpx_open"'<?y?></gpx>\n'
seed hostile__bad-utf8-in-name.gpx "$gpx_open"'<wpt lat="1" lon="2"><n\xc3\x28me>x</n\xc3\x28me></wpt></gpx>\n'
seed hostile__bad-utf8-in-comment.gpx "$gpx_open"'<!-- \xff\xfe --></gpx>\n'
seed hostile__truncated.gpx "$gpx_open"'<trk><trkseg><trkpt lat="1" lon="2"><ele>3</e'
seed hostile__nan.gpx "$gpx_open"'<wpt lat="nan" lon="inf"/><wpt lat="1e400" lon="0x1p3"/></gpx>\n'
seed hostile__unbound-prefix.gpx "$gpx_open"'<extensions><a:b/></extensions></gpx>\n'
seed hostile__cdata-and-refs.gpx "$gpx_open"'<wpt lat="1" lon="2"><name><![CDATA[a<b]]>&amp;&#x41;&#66;</name></wpt></gpx>\n'
[ -e "$corpus/hostile__utf16le.gpx" ] || { printf '\xff\xfe'; printf '%s</gpx>\n' "$gpx_open" | iconv -f UTF-8 -t UTF-16LE; } > "$corpus/hostile__utf16le.gpx"
seed hostile__latin1.gpx '<?xml version="1.0" encoding="ISO-8859-1"?>'"$gpx_open"'<wpt lat="1" lon="2"><name>Z\xfcrich</name></wpt></gpx>\n'
seed hostile__junk-after-root.gpx "$gpx_open"'</gpx><gpx/>'
# Gzip, as it is (the reader inflates it): the fixture and a small ride, whole and cut off.
[ -e "$corpus/gzip__graphhopper.gpx.gz" ] || cp "$fixtures/gpxgo/graphhopper.gpx.gz" "$corpus/gzip__graphhopper.gpx.gz" 2>/dev/null || true
if [ ! -e "$corpus/gzip__small.gpx.gz" ]; then
    printf '%s<trk><trkseg><trkpt lat="1" lon="2"><ele>3</ele></trkpt></trkseg></trk></gpx>\n' "$gpx_open" | gzip -c > "$corpus/gzip__small.gpx.gz"
    head -c 40 "$corpus/gzip__small.gpx.gz" > "$corpus/gzip__cut.gpx.gz"
fi
seed hostile__empty.gpx ''
# Many of what was quadratic (issue 8): attributes and declarations up to the caps and past them, a deep tree of
# declarations with prefixes looked up below it, one long comment.
many() { local out="" i; for ((i = 0; i < $2; i++)); do out+=" ${1//@/$i}"; done; printf '%s' "$out"; }
seed hostile__attributes-256.gpx "$gpx_open<extensions><x$(many 'a@=""' 256)/></extensions></gpx>\n"
seed hostile__attributes-300.gpx "$gpx_open<extensions><x$(many 'a@=""' 300)/></extensions></gpx>\n"
seed hostile__declarations-64.gpx "$gpx_open<extensions><x$(many 'xmlns:p@="urn:@"' 64)><p0:y p63:a=\"\"/></x></extensions></gpx>\n"
seed hostile__bindings-in-scope.gpx "$gpx_open<extensions>$(for ((i = 0; i < 200; i++)); do printf '<e xmlns:q%d="urn:q%d">' $i $i; done)$(for ((i = 0; i < 200; i++)); do printf '<q0:x/><q199:x/>'; done)$(for ((i = 0; i < 200; i++)); do printf '</e>'; done)</extensions></gpx>\n"
seed hostile__long-comment.gpx "$gpx_open<!--$(head -c 60000 /dev/zero | tr '\0' c)--></gpx>\n"
echo "corpus: $(find "$corpus" -type f | wc -l) inputs ($seeded fixtures) in $corpus"

# --- fuzz --------------------------------------------------------------------------------------------
flags=(-max_len=65536 -timeout="${FUZZ_TIMEOUT:-2}" -report_slow_units=1 -rss_limit_mb=2048 -max_total_time="$seconds"
       -artifact_prefix="$artifacts/" -dict="$here/gpx.dict" -print_final_stats=1)
if [ "${FUZZ_SLOW_PATHS:-0}" = 1 ]; then
    flags+=(-max_len=1048576 -len_control=0)
fi
if [ "${FUZZ_FORK:-1}" -gt 1 ]; then
    flags+=(-fork="$FUZZ_FORK" -ignore_crashes=0)
fi
echo "fuzzing for ${seconds}s: $bin/fuzz_gpx $corpus ${flags[*]} $*"
marker="$bin/.started"
touch "$marker"
status=0
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
    "$bin/fuzz_gpx" "$corpus" "${flags[@]}" "$@" || status=$?

findings=$(find "$artifacts" -type f -newer "$marker" | wc -l)
if [ "$status" -ne 0 ] || [ "$findings" -gt 0 ]; then
    echo "fuzz_gpx: exit status $status, $findings new file(s) in $artifacts:" >&2
    find "$artifacts" -type f -newer "$marker" -exec ls -la {} + >&2
    echo "reproduce one with: $bin/fuzz_gpx $artifacts/FILE (with SWIFT_BACKTRACE=enable=no)" >&2
    exit 1
fi
echo "fuzz_gpx: no findings in ${seconds}s"
