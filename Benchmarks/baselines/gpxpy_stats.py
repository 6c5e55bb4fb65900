#!/usr/bin/env python3
"""gpxpy_stats.py FILE.gpx -- the gpxpy baseline of Benchmarks/run-gpx.sh.

Loads the whole file with gpxpy (gpxpy.parse builds the full object tree in memory) and prints one
JSON object with gpx.length_2d() and gpx.get_uphill_downhill(), the work `bikeride stats` is
compared against. Install gpxpy with `pip install gpxpy`.
"""

import json
import sys

import gpxpy


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gpxpy_stats.py FILE.gpx\n")
        return 2
    path = argv[1]
    with open(path, encoding="utf-8") as f:
        gpx = gpxpy.parse(f)
    uphill, downhill = gpx.get_uphill_downhill()
    print(json.dumps({
        "file": path,
        "segments": sum(len(track.segments) for track in gpx.tracks),
        "points": gpx.get_track_points_no(),
        "distanceMeters": gpx.length_2d(),
        "uphillMeters": uphill,
        "downhillMeters": downhill,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
