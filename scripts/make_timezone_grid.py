#!/usr/bin/env python3
"""Writes Sources/RideKit/TimeZone/Resources/timezones.grid: the IANA time zone of every cell of a 0.05° grid of the
Earth, run-length encoded per row, for an offline lookup of the zone at a ride's start (`TimeZoneGrid`).

The zone boundaries are timezone-boundary-builder's (OpenStreetMap data, ODbL 1.0), as packaged on PyPI by
`timezonefinder` (MIT) and `timezonefinder-data`; the sea has the nautical zones `Etc/GMT±N` of the same data.
Each cell takes the zone at its centre.

Usage: python3 -m venv /tmp/tz && /tmp/tz/bin/pip install timezonefinder timezonefinder-data
       /tmp/tz/bin/python scripts/make_timezone_grid.py [OUTPUT]

Format (little-endian): b"BRTZ", version u8 (1), columns u16, rows u16 (cells of 360/columns degrees, rows from
the north pole down), zone count u16, then each zone's name as u8 length + ASCII; then per row: run count u16
and runs of (zone index u16, cells u16) from 180° W eastwards.
"""
import struct
import sys

from timezonefinder import TimezoneFinder

COLUMNS, ROWS = 7200, 3600


def main():
    output = sys.argv[1] if len(sys.argv) > 1 else "Sources/RideKit/TimeZone/Resources/timezones.grid"
    finder = TimezoneFinder(in_memory=True)
    step = 360 / COLUMNS
    zones, index = [], {}
    rows = []
    for row in range(ROWS):
        latitude = 90 - (row + 0.5) * step
        runs = []
        for column in range(COLUMNS):
            longitude = -180 + (column + 0.5) * step
            name = finder.timezone_at(lng=longitude, lat=latitude) or finder.timezone_at_land(lng=longitude, lat=latitude)
            if name is None:
                name = "Etc/GMT%+d" % -round(longitude / 15) if round(longitude / 15) else "Etc/GMT"
            if name not in index:
                index[name] = len(zones)
                zones.append(name)
            zone = index[name]
            if runs and runs[-1][0] == zone:
                runs[-1][1] += 1
            else:
                runs.append([zone, 1])
        rows.append(runs)
    with open(output, "wb") as out:
        out.write(b"BRTZ" + struct.pack("<BHHH", 1, COLUMNS, ROWS, len(zones)))
        for name in zones:
            data = name.encode("ascii")
            out.write(struct.pack("<B", len(data)) + data)
        for runs in rows:
            out.write(struct.pack("<H", len(runs)))
            for zone, count in runs:
                out.write(struct.pack("<HH", zone, count))
    print(f"{output}: {len(zones)} zones, {sum(len(r) for r in rows)} runs")


if __name__ == "__main__":
    main()
