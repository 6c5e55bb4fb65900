#!/usr/bin/env bash
# The one command that starts bikeride, on a fresh Debian machine with Swift installed:
#
#   bash scripts/start.sh [serve options]        e.g. bash scripts/start.sh --host 0.0.0.0 --tiles city.mbtiles
#
# It installs the system packages that are missing, builds `bikeride` in release and runs
# `bikeride serve` with the options given (`bikeride serve --help` lists them). Any failing step stops it
# with a message saying which.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/install.sh

# --- system packages ----------------------------------------------------------------------------
#   libjs-leaflet   Leaflet, the map library the web app draws with; the server serves it from where Debian
#                   puts it (without it the page has to load a public copy, and says so when it cannot)
#   libsqlite3-dev  SQLite, which GRDB links: the store and MBTiles map tiles
#   zlib1g-dev      zlib, which reads gzip-compressed GPX (.gpx.gz, .fit.gz; SystemZlib target)
#   pkg-config      how SwiftPM finds sqlite3
# (libexpat1-dev is for the tests only: the release build of `bikeride` does not link expat.)
install_system_packages libjs-leaflet libsqlite3-dev zlib1g-dev pkg-config tzdata

# --- build --------------------------------------------------------------------------------------
command -v swift >/dev/null || fail "swift is not installed: install the Swift toolchain for Linux first, then run this again"
step "swift build -c release --product bikeride"
swift build -c release --product bikeride \
    || fail "the build failed (the compiler's messages are above)"

# --- serve --------------------------------------------------------------------------------------
step "bikeride serve $*"
exec .build/release/bikeride serve "$@"
