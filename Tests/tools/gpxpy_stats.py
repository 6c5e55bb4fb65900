#!/usr/bin/env python3
"""Print gpxpy's statistics of GPX files, one JSON object per line, for comparison with `bikeride stats`.

Usage: Tests/tools/gpxpy_stats.py [--stopped-speed-kmh N] FILE...

Keys: file, points, tracks, segments, length_2d, length_3d (metres), uphill, downhill (metres, from
gpxpy's get_uphill_downhill, which smooths elevations but has no hysteresis), moving_time, stopped_time
(seconds), moving_distance, stopped_distance (metres), max_speed (metres per second; gpxpy drops the fastest
5 % of intervals as outliers), all from get_moving_data with gpxpy's default stopped-speed threshold of
1 km/h unless told otherwise; duration (seconds, gpxpy's sum of per-segment durations); bounds
(min_latitude, min_longitude, max_latitude, max_longitude). A file gpxpy cannot read gives {"file", "error"}.
Needs gpxpy (`pip install gpxpy`).
"""
import argparse
import json
import sys

try:
    import gpxpy
except ImportError:
    sys.exit("gpxpy is missing: pip install gpxpy")


def stats(path, stopped_speed_kmh):
    with open(path, encoding="utf-8", errors="strict") as handle:
        gpx = gpxpy.parse(handle)
    moving = gpx.get_moving_data(stopped_speed_threshold=stopped_speed_kmh)
    uphill, downhill = gpx.get_uphill_downhill()
    bounds = gpx.get_bounds()
    return {
        "file": path,
        "points": gpx.get_points_no(),
        "tracks": len(gpx.tracks),
        "segments": sum(len(track.segments) for track in gpx.tracks),
        "length_2d": gpx.length_2d(),
        "length_3d": gpx.length_3d(),
        "uphill": uphill,
        "downhill": downhill,
        "moving_time": moving.moving_time if moving else 0.0,
        "stopped_time": moving.stopped_time if moving else 0.0,
        "moving_distance": moving.moving_distance if moving else 0.0,
        "stopped_distance": moving.stopped_distance if moving else 0.0,
        "max_speed": moving.max_speed if moving else 0.0,
        "duration": gpx.get_duration() or 0.0,
        "bounds": None
        if bounds is None or bounds.min_latitude is None
        else {
            "min_latitude": bounds.min_latitude,
            "min_longitude": bounds.min_longitude,
            "max_latitude": bounds.max_latitude,
            "max_longitude": bounds.max_longitude,
        },
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("--stopped-speed-kmh", type=float, default=1.0, help="gpxpy's stopped speed threshold (default 1 km/h)")
    arguments = parser.parse_args()
    failed = False
    for path in arguments.files:
        try:
            result = stats(path, arguments.stopped_speed_kmh)
        except Exception as error:  # gpxpy raises several unrelated types on bad input
            result = {"file": path, "error": f"{type(error).__name__}: {error}"}
            failed = True
        print(json.dumps(result, sort_keys=True))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
