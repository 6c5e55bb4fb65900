#!/usr/bin/env bash
# Fuzz the FIT reader with libFuzzer (see fuzz_fit.swift): strict and lenient reads, as the input is and with its
# CRCs made right, and the GPX written from what was read read back.
#
#   Benchmarks/fuzz/run-fit.sh [SECONDS]     # default 1800 (30 minutes)
#
# Environment:
#   FIXTURES=DIR          FIT fixtures that seed the corpus (default: ../shared/fixtures/fit beside the repo)
#   FUZZ_FORK=N           run N fuzzing processes in parallel (libFuzzer -fork=N); default 1
#   FUZZ_NO_BUILD=1       reuse Benchmarks/fuzz/bin/fuzz_fit as built last time
#   FUZZ_TIMEOUT=S        an input read for longer (wall time) is a finding (timeout-*), one for half as long is
#                         saved as slow-unit-*; default 2 (reading 64 KiB takes about 0.1 s of CPU under ASan).
#                         On a machine busy with builds, give 60: wall time is then mostly waiting for a core
#   FUZZ_MAX_LEN=BYTES    the largest input (default 262144: most fixtures whole)
#   FUZZ_FIT_NO_ROUND_TRIP=1   do not check the GPX round trip
#   extra libFuzzer flags can follow the seconds: run-fit.sh 600 -seed=1
#
# Builds Benchmarks/fuzz/bin/fuzz_fit, seeds Benchmarks/fuzz/corpus-fit/ with every FIT fixture, two generated
# rides (Benchmarks/generate_fit.py: 300 records, and an indoor ride without positions) and a few hostile shapes
# (a header claiming 4 GB, a definition of 255 fields of 255 bytes, a data message before any definition, a
# definition that claims more fields than the file has, a 12-byte header), then fuzzes. Findings land in
# Benchmarks/fuzz/artifacts/fit-*; reproduce one with Benchmarks/fuzz/bin/fuzz_fit Benchmarks/fuzz/artifacts/fit-…
# (with SWIFT_BACKTRACE=enable=no). corpus-fit/, artifacts/ and bin/ are git-ignored. Not part of CI.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-1800}"
shift || true
fixtures="${FIXTURES:-$root/../shared/fixtures/fit}"
bin="$here/bin"
corpus="$here/corpus-fit"
artifacts="$here/artifacts"

if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 [SECONDS] [libFuzzer flags...]" >&2
    exit 2
fi
command -v swiftc >/dev/null || { echo "run-fit.sh: swiftc not found (install Swift)" >&2; exit 1; }
[ -e /usr/include/expat.h ] || { echo "run-fit.sh: <expat.h> missing: apt-get install libexpat1-dev" >&2; exit 1; }
mkdir -p "$bin" "$corpus" "$artifacts"

# --- build -----------------------------------------------------------------------------------------------
if [ "${FUZZ_NO_BUILD:-0}" != 1 ] || [ ! -x "$bin/fuzz_fit" ]; then
    mapfile -t sources < <(find "$root/Sources/RideKit" -name '*.swift' | LC_ALL=C sort)
    echo "building fuzz_fit from fuzz_fit.swift and ${#sources[@]} RideKit files (-O, fuzzer+address)..."
    swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -package-name bikeride \
        -module-name RideKit -I "$root/Sources/CExpat" -lexpat -I "$root/Sources/SystemZlib" -lz \
        "$here/fuzz_fit.swift" "${sources[@]}" \
        -module-cache-path "$bin/module-cache" \
        -o "$bin/fuzz_fit" 2> >(grep -v "Cannot export local symbol '__asan" >&2)
fi

# --- seed corpus -----------------------------------------------------------------------------------------
seeded=0
if [ -d "$fixtures" ]; then
    while IFS= read -r -d '' file; do
        rel="${file#"$fixtures"/}"
        name="fixture__${rel//\//__}"
        [ -e "$corpus/$name" ] || cp "$file" "$corpus/$name"
        seeded=$((seeded + 1))
    done < <(find "$fixtures" -type f \( -iname '*.fit' \) -print0)
else
    echo "run-fit.sh: warning: no fixtures at $fixtures (set FIXTURES=DIR)" >&2
fi
if [ ! -e "$corpus/generated__ride-300.fit" ]; then
    python3 "$root/Benchmarks/generate_fit.py" 300 "$corpus/generated__ride-300.fit" --pauses 1 >/dev/null 2>&1
    python3 "$root/Benchmarks/generate_fit.py" 300 "$corpus/generated__indoor-300.fit" --indoor >/dev/null 2>&1
    rm -f "$corpus"/*.truth.json
fi
# Hostile shapes, each a FIT file with right CRCs around the records given in hex.
python3 - "$corpus" <<'PYTHON'
import os, struct, sys
corpus = sys.argv[1]
TABLE = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
         0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
def crc(data, c=0):
    for b in data:
        t = TABLE[c & 0xF]; c = (c >> 4) & 0x0FFF; c ^= t ^ TABLE[b & 0xF]
        t = TABLE[c & 0xF]; c = (c >> 4) & 0x0FFF; c ^= t ^ TABLE[(b >> 4) & 0xF]
    return c
def fit(records, size=None, header=14):
    h = struct.pack("<BBHI4s", header, 0x20, 2132, len(records) if size is None else size, b".FIT")
    if header == 14:
        h += struct.pack("<H", crc(h))
    body = h + records
    return body + struct.pack("<H", crc(body))
record_def = bytes([0x40, 0, 0, 20, 0, 3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85])
record = bytes([0x00]) + struct.pack("<Iii", 1_000_000_000, 554_766_609, 78_741_067)
largest = bytes([0x60, 0, 0, 20, 0, 255]) + b"".join(bytes([f, 255, 0x0D]) for f in range(255)) + bytes([255]) + \
    b"".join(bytes([f, 255, 0]) for f in range(255))
shapes = {
    "four-gigabytes": fit(record_def + record, size=0xFFFFFFFF),
    "largest-definition": fit(largest),
    "undefined-local-type": fit(bytes([0x03, 1, 2, 3])),
    "definition-past-the-end": fit(bytes([0x40, 0, 0, 20, 0, 200, 253, 4, 0x86])),
    "field-size-zero": fit(bytes([0x40, 0, 0, 20, 0, 2, 253, 0, 0x86, 0, 4, 0x85]) + bytes([0x00, 1, 2, 3, 4])),
    "compressed-timestamps": fit(record_def + record + bytes([0x85, 1, 2, 3, 4, 5, 6, 7, 8, 0x9F, 1, 2, 3, 4, 5, 6, 7, 8])),
    "twelve-byte-header": fit(record_def + record, header=12),
    "chained": fit(record_def + record) + fit(record_def + record),
}
for name, data in shapes.items():
    path = os.path.join(corpus, "hostile__%s.fit" % name)
    if not os.path.exists(path):
        open(path, "wb").write(data)
PYTHON
echo "corpus: $(find "$corpus" -type f | wc -l) inputs ($seeded fixtures) in $corpus"

# --- fuzz ------------------------------------------------------------------------------------------------
flags=(-max_len="${FUZZ_MAX_LEN:-262144}" -timeout="${FUZZ_TIMEOUT:-2}" -report_slow_units="$(( (${FUZZ_TIMEOUT:-2} + 1) / 2 ))" -rss_limit_mb=2048
       -max_total_time="$seconds" -artifact_prefix="$artifacts/fit-" -print_final_stats=1)
if [ "${FUZZ_FORK:-1}" -gt 1 ]; then
    flags+=(-fork="$FUZZ_FORK" -ignore_crashes=0)
fi
echo "fuzzing for ${seconds}s: $bin/fuzz_fit $corpus ${flags[*]} $*"
marker="$bin/.started-fit"
touch "$marker"
status=0
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
    "$bin/fuzz_fit" "$corpus" "${flags[@]}" "$@" || status=$?

findings=$(find "$artifacts" -type f -name 'fit-*' -newer "$marker" | wc -l)
if [ "$status" -ne 0 ] || [ "$findings" -gt 0 ]; then
    echo "fuzz_fit: exit status $status, $findings new file(s) in $artifacts:" >&2
    find "$artifacts" -type f -name 'fit-*' -newer "$marker" -exec ls -la {} + >&2
    echo "reproduce one with: SWIFT_BACKTRACE=enable=no $bin/fuzz_fit $artifacts/FILE" >&2
    exit 1
fi
echo "fuzz_fit: no findings in ${seconds}s"
