#!/usr/bin/env bash
# Builds Benchmarks/fit/bin/fit_stats: Benchmarks/fit/fit_stats.swift with every file of Sources/RideKit as one module,
# `swiftc -O` (whole module), the way `swift build -c release` compiles RideKit. Then
#   BIKERIDE_STATS_BIN=Benchmarks/fit/bin/fit_stats Benchmarks/run-fit.sh
# measures the reader where a release build of the whole package takes too long.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mkdir -p "$here/bin"
mapfile -t sources < <(find "$root/Sources/RideKit" -name '*.swift' | LC_ALL=C sort)
swiftc -O -wmo -parse-as-library -swift-version 6 -package-name bikeride -module-name RideKit \
    -I "$root/Sources/CExpat" -lexpat -I "$root/Sources/SystemZlib" -lz \
    "$here/fit_stats.swift" "${sources[@]}" -module-cache-path "$here/bin/module-cache" -o "$here/bin/fit_stats"
echo "built $here/bin/fit_stats"
