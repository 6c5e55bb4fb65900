#!/usr/bin/env bash
# The one command that runs every test of bikeride, on a fresh Debian machine with Swift installed:
#
#   bash scripts/test.sh
#
# It installs what is missing first (system packages with apt-get, Python packages with pip), then
# builds and runs the Swift tests. Any failing step or test makes it exit non-zero. CI runs exactly
# this (.ci/run). Benchmarks and the fuzzer are not part of it (see Benchmarks/README.md).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/lib/install.sh
source scripts/lib/postgres.sh

# --- system packages ----------------------------------------------------------------------------
#   libexpat1-dev  libexpat, the reference the GPX tokenizer is checked against (CExpat target)
#   libxml2-utils  xmllint, to validate written GPX against the official schema
#   pkg-config     how SwiftPM finds expat
#   libsqlite3-dev the system SQLite, which GRDB links (the store, MBTiles map tiles)
#   zlib1g-dev     zlib, which reads gzip-compressed GPX (.gpx.gz, .fit.gz; SystemZlib target)
#   chromium       the browser the web app's tests drive (Playwright cannot download its own here)
#   libjs-leaflet  Leaflet, which the server serves to the web app from where Debian puts it
#   curl           streams big uploads to the server in Tests/browser/test_upload_memory.py
#   python3, python3-pip  for gpxpy, the stats comparison in the tests (when missing)
#   zbar-tools     zbarimg, the second reader the QR codes of the phone-app setup screen are read back with
#   libimage-exiftool-perl, python3-pil  ExifTool and Pillow: the independent check that a shared photo's copy
#                  (PNG, WebP) lost its metadata and still decodes to the same pixels (ImageMetadataTests)
#   tzdata         the IANA time zone database: Foundation's TimeZone (local start times) and Python's zoneinfo
#                  (TimeZoneTests' independent offsets) both read it
#   proj-bin, proj-data  PROJ's cs2cs and NGA's EGM96 grid (egm96_15.gtx): the independent check of the geoid heights
#                  bikeride ships (EGM96GeoidTests, AltitudeReferenceAPITests); bikeride itself needs neither
system_packages=(libexpat1-dev libxml2-utils pkg-config libsqlite3-dev zlib1g-dev chromium libjs-leaflet curl tzdata libimage-exiftool-perl python3-pil zbar-tools proj-bin proj-data)
command -v python3 >/dev/null || system_packages+=(python3)
if ! python3 -m pip --version >/dev/null 2>&1; then system_packages+=(python3-pip); fi

install_system_packages "${system_packages[@]}"

# --- Python packages ----------------------------------------------------------------------------
#   gpxpy          the reference the stats are compared against
#   fitdecode      an independent FIT reader, the reference the FIT reader is compared against
#   pytest, playwright  the browser tests (Tests/browser), driving the system's chromium
#   pytest-xdist   runs the browser tests in two processes (most of their time is waiting on the app's timers)
# Each as the module it is imported as, and the package pip installs it from.
python_packages=(gpxpy:gpxpy fitdecode:fitdecode pytest:pytest playwright:playwright xdist:pytest-xdist)
missing=()
for package in "${python_packages[@]}"; do
    python3 -c "import ${package%%:*}" 2>/dev/null || missing+=("${package#*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
    step "installing Python packages: ${missing[*]}"
    # Debian's own python3 refuses pip installs outside a venv (PEP 668) unless told otherwise.
    python3 -m pip install --quiet --disable-pip-version-check "${missing[@]}" \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${missing[@]}"
fi

# --- Swift --------------------------------------------------------------------------------------
step "swift build --build-tests"
swift build --build-tests

# The store tests run on SQLite and on PostgreSQL: a throwaway cluster for this run (scripts/lib/postgres.sh),
# stopped and removed when this script exits.
start_test_postgres

step "swift test"
# Should the test process crash, its backtrace shows the crashed thread only (CI prints the end of the output),
# and a summary of the failures follows it last.
export SWIFT_BACKTRACE="enable=yes,threads=crashed,registers=none,images=none"
swift_log="$(mktemp)"
if ! swift test 2>&1 | tee "$swift_log"; then
    python3 scripts/lib/swift_test_summary.py "$swift_log"
    exit 1
fi
rm -f "$swift_log"

# Faults on PostgreSQL with real `bikeride serve` processes: an instance killed mid-batch, PostgreSQL restarted
# mid-ride, the network to it cut (Tests/faults). They restart the throwaway cluster, so they run after the rest.
step "fault tests on PostgreSQL"
python3 -m pytest -q -p no:cacheprovider Tests/faults

# --- browser tests ------------------------------------------------------------------------------
# The web app in the system's Chromium with an emulated GPS, against the debug build of `bikeride serve`
# (DESIGN 8): Playwright for Python, on a phone and a desktop viewport. Screenshots land in
# Tests/browser/screenshots/ (not committed).
if [ -e Tests/browser/run.sh ]; then
    step "browser tests"
    bash Tests/browser/run.sh
fi

step "all tests passed"
