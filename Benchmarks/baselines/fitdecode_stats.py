#!/usr/bin/env python3
"""fitdecode_stats.py FILE.fit -- the fitdecode baseline of Benchmarks/run-fit.sh.

Reads every frame of the file with fitdecode (CRCs checked, fields decoded with the FIT profile's scales and
offsets, as `bikeride stats` reads them) and prints one JSON object: the record count, the length of the
positions (haversine, per stretch between timer stop and start events), the climb of the altitudes (raw
rises), and the session's own totals. This is the work `bikeride stats` is compared against; fitdecode does
not summarise a ride itself. `pip install fitdecode`.
"""

import json
import math
import sys

import fitdecode

SEMICIRCLE_DEGREES = 180.0 / 2 ** 31
EARTH_RADIUS = 6371008.8


def haversine(a, b):
    lat1, lon1 = math.radians(a[0]), math.radians(a[1])
    lat2, lon2 = math.radians(b[0]), math.radians(b[1])
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS * math.asin(math.sqrt(h))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: fitdecode_stats.py FILE.fit\n")
        return 2
    path = argv[1]
    records = 0
    distance = 0.0
    climb = 0.0
    last = None
    last_altitude = None
    session = {}
    with fitdecode.FitReader(path, check_crc=fitdecode.CrcCheck.RAISE) as reader:
        for frame in reader:
            if not isinstance(frame, fitdecode.FitDataMessage):
                continue
            if frame.name == "record":
                records += 1
                lat = frame.get_value("position_lat", fallback=None)
                lon = frame.get_value("position_long", fallback=None)
                altitude = frame.get_value("enhanced_altitude", fallback=None)
                if altitude is None:
                    altitude = frame.get_value("altitude", fallback=None)
                if lat is not None and lon is not None:
                    here = (lat * SEMICIRCLE_DEGREES, lon * SEMICIRCLE_DEGREES)
                    if last is not None:
                        distance += haversine(last, here)
                    last = here
                if altitude is not None:
                    if last_altitude is not None and altitude > last_altitude:
                        climb += altitude - last_altitude
                    last_altitude = altitude
            elif frame.name == "event":
                if frame.get_value("event", fallback=None) == "timer" and \
                        frame.get_value("event_type", fallback=None) in ("stop", "stop_all"):
                    last = None  # a pause: the next record starts a new stretch
            elif frame.name == "session":
                session = {
                    "distanceMeters": frame.get_value("total_distance", fallback=None),
                    "timerSeconds": frame.get_value("total_timer_time", fallback=None),
                    "elapsedSeconds": frame.get_value("total_elapsed_time", fallback=None),
                }
    print(json.dumps({"file": path, "records": records, "distanceMeters": distance, "rawClimbMeters": climb,
                      "session": session}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
