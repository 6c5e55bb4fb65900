#!/usr/bin/env python3
"""Print gpxpy's statistics of GPX files, one JSON object per line, for comparison with `bikeride stats`.

Usage: Tests/tools/gpxpy_stats.py [--stopped-speed-kmh N] FILE...

Keys: file, points, tracks, segments, length_2d, length_3d (metres), uphill, downhill (metres, from
gpxpy's get_uphill_downhill, which smooths elevations but has no hysteresis), moving_time, stopped_time
(seconds), moving_distance, stopped_distance (metres), max_speed (metres per second; gpxpy drops the fastest
5 % of intervals as outliers), all from get_moving_data with gpxpy's default stopped-speed threshold of
1 km/h unless told otherwise; duration (seconds, gpxpy's sum of per-segment durations); bounds
(min_latitude, min_longitude, max_latitude, max_longitude); route_points, route_length_2d and route_uphill
(gpxpy's length_2d and get_uphill_downhill count tracks only, so for a file of routes alone these are what
compares: gpxpy's route length and its uphill formula applied to each route's elevations). A file gpxpy
cannot read gives {"file", "error"}.
Exit status: 0, or 1 if gpxpy rejected a file, or 3 if gpxpy is not installed (scripts/test.sh installs it).
Used by Tests/RideKitTests/GPXPYComparisonTests.swift.
"""
import argparse
import json
import sys

try:
    import gpxpy
    import gpxpy.geo
except ImportError:
    # A distinct status, so that the Swift test can tell a machine without gpxpy from a file gpxpy rejects.
    print("gpxpy is missing: run scripts/test.sh, which installs it (or pip install gpxpy)", file=sys.stderr)
    sys.exit(3)


def stats(path, stopped_speed_kmh):
    with open(path, encoding="utf-8", errors="strict") as handle:
        gpx = gpxpy.parse(handle)
    moving = gpx.get_moving_data(stopped_speed_threshold=stopped_speed_kmh)
    uphill, downhill = gpx.get_uphill_downhill()
    bounds = gpx.get_bounds()
    route_uphill = sum(
        gpxpy.geo.calculate_uphill_downhill([point.elevation for point in route.points])[0] for route in gpx.routes
    )
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
        "route_points": sum(len(route.points) for route in gpx.routes),
        "route_length_2d": sum(route.length() for route in gpx.routes),
        "route_uphill": route_uphill,
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
