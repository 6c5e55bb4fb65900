#!/usr/bin/env bash
# Browser tests of the web app (DESIGN 8): Playwright for Python with the system's Chromium, against the
# debug build of `bikeride serve`. scripts/test.sh installs chromium and playwright and builds first.
#   bash Tests/browser/run.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
# Two processes (BROWSER_TEST_PROCESSES), each with its own servers and Chromium: most of a test's time is the app's
# own timers (a simulated ride, an undo window), so two at once take about half the time on two cores. The slowest
# tests are listed at the end: where the suite's time goes.
exec python3 -m pytest -q -p no:cacheprovider -n "${BROWSER_TEST_PROCESSES:-2}" --durations=15 "$@" .
