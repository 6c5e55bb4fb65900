#!/usr/bin/env python3
"""Generate a realistic, deterministic GPX 1.1 ride for benchmarks and tests.

Usage: generate_ride.py N OUT.gpx [--seed S]

The ride is N track points recorded at 1 Hz, about 5 m apart (the speed varies a little with the
grade), on a wandering path with gentle curves and right-angle turns at "intersections", kept within
about 12 km of the start. Elevation comes from a smooth hilly terrain (a function of position, so a
place that is visited twice has the same height) plus ~1 m of Gaussian noise, as a barometric or GPS
altimeter would report it. Each point carries Garmin TrackPointExtension v1 heart rate and cadence.
The file is laid out the way a Garmin device writes it: one element per line, two-space indentation.

The file is written streaming, in chunks, so a 1M-point file (about 330 MB) needs a few MB of memory.

Ground truth is printed on standard output as one JSON object, and written beside the file as
OUT.gpx.truth.json:
  trueDistanceMeters   length of the polyline as laid out, on the WGS-84 ellipsoid (each step is laid
                       out with the ellipsoid's local radii of curvature, so this is exact to well
                       under a millimetre per kilometre; a spherical formula will differ by up to
                       ~0.3 % depending on the direction of travel and the radius it uses)
  trueAscentMeters     sum of the rises of the noise-free terrain profile at the points
  trueDescentMeters    sum of the falls of the noise-free terrain profile at the points
Coordinates are written with 7 decimals (about 1 cm), so the written file reproduces the length to
within a few millimetres per kilometre.
"""

import json
import math
import os
import random
import sys
import time

# WGS-84
A = 6378137.0
F = 1 / 298.257223563
E2 = F * (2 - F)

START_LAT = 37.3230  # Cupertino, California
START_LON = -122.0322
START_EPOCH = 1714807800  # 2024-05-04T07:30:00Z
HOME_RADIUS = 12000.0  # metres: the rider turns for home beyond this
CHUNK_POINTS = 4096

HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<gpx creator="Garmin Edge 530" version="1.1" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd http://www.garmin.com/xmlschemas/GpxExtensions/v3 http://www.garmin.com/xmlschemas/GpxExtensionsv3.xsd http://www.garmin.com/xmlschemas/TrackPointExtension/v1 http://www.garmin.com/xmlschemas/TrackPointExtensionv1.xsd" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" xmlns:gpxx="http://www.garmin.com/xmlschemas/GpxExtensions/v3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <metadata>
    <link href="http://www.garmin.com">
      <text>Garmin International</text>
    </link>
    <time>{start}</time>
  </metadata>
  <trk>
    <name>{name}</name>
    <type>cycling</type>
    <trkseg>
"""

FOOTER = """    </trkseg>
  </trk>
</gpx>
"""

POINT = (
    '      <trkpt lat="{:.7f}" lon="{:.7f}">\n'
    "        <ele>{:.1f}</ele>\n"
    "        <time>{}</time>\n"
    "        <extensions>\n"
    "          <gpxtpx:TrackPointExtension>\n"
    "            <gpxtpx:hr>{}</gpxtpx:hr>\n"
    "            <gpxtpx:cad>{}</gpxtpx:cad>\n"
    "          </gpxtpx:TrackPointExtension>\n"
    "        </extensions>\n"
    "      </trkpt>\n"
)


def iso_day(epoch_day):
    return time.strftime("%Y-%m-%dT", time.gmtime(epoch_day * 86400))


# hh:mm:ssZ for every second of a day, built once (the 1M-point file spans 12 days).
CLOCK = ["%02d:%02d:%02dZ" % (s // 3600, s // 60 % 60, s % 60) for s in range(86400)]


def make_terrain(rng):
    """A smooth hilly landscape: a sum of plane waves in local metres, 15-70 m amplitudes,
    1.5-12 km wavelengths, so grades stay within a few percent up to ~10 %."""
    waves = []
    for amplitude, wavelength in ((70, 12000), (45, 6000), (30, 3500), (18, 2200), (10, 1500)):
        direction = rng.uniform(0, 2 * math.pi)
        k = 2 * math.pi / wavelength
        waves.append((amplitude, k * math.cos(direction), k * math.sin(direction), rng.uniform(0, 2 * math.pi)))
    return waves


def ride_points(n, seed=436, truth=None, start_epoch=START_EPOCH, start=(START_LAT, START_LON), speed_scale=1.0):
    """Yields the ride's N points as (lat, lon, ele, epoch seconds, hr, cadence, true_ele, step to the next
    point in metres); speed_scale scales the steps (0.6 for a run, 0.3 for a walk); at the end `truth` (a dict) holds trueDistanceMeters, trueAscentMeters and
    trueDescentMeters. generate_fit.py and generate_archive.py lay out their rides with it too."""
    truth = {} if truth is None else truth
    start_lat, start_lon = start
    rng = random.Random(seed)
    gauss = rng.gauss
    rand = rng.random
    waves = make_terrain(rng)
    (a0, kx0, ky0, p0), (a1, kx1, ky1, p1), (a2, kx2, ky2, p2), (a3, kx3, ky3, p3), (a4, kx4, ky4, p4) = waves
    base = 200.0
    sin, cos, atan2, hypot, radians, sqrt = math.sin, math.cos, math.atan2, math.hypot, math.radians, math.sqrt
    deg = 180.0 / math.pi
    lat0r = radians(start_lat)
    # Local east/north metres from the start, for terrain and for steering home (a flat approximation
    # is fine for both; the geometry of the track itself is laid out on the ellipsoid below).
    m_per_deg_lat = math.pi / 180 * A * (1 - E2) / (1 - E2 * sin(lat0r) ** 2) ** 1.5
    m_per_deg_lon = math.pi / 180 * A * cos(lat0r) / sqrt(1 - E2 * sin(lat0r) ** 2)

    lat, lon = start_lat, start_lon
    heading = radians(rng.uniform(0, 360))  # radians clockwise from north
    turn_rate = 0.0  # radians per step, a slowly wandering curvature
    pending_turn = 0.0  # what is left of an intersection turn, radians
    turn_steps = 0
    hr = 95.0
    cad = 85.0
    true_distance = 0.0
    ascent = descent = 0.0
    prev_true_ele = None
    epoch = start_epoch
    step = 5.0
    for i in range(n):
        x = (lon - start_lon) * m_per_deg_lon
        y = (lat - start_lat) * m_per_deg_lat
        true_ele = (base
                    + a0 * sin(kx0 * x + ky0 * y + p0) + a1 * sin(kx1 * x + ky1 * y + p1)
                    + a2 * sin(kx2 * x + ky2 * y + p2) + a3 * sin(kx3 * x + ky3 * y + p3)
                    + a4 * sin(kx4 * x + ky4 * y + p4))
        if prev_true_ele is not None:
            rise = true_ele - prev_true_ele
            if rise > 0:
                ascent += rise
                grade = rise / step
            else:
                descent -= rise
                grade = rise / step
        else:
            grade = 0.0
        prev_true_ele = true_ele
        ele = true_ele + gauss(0.0, 1.0)

        # Physiology: heart rate follows effort (grade) with lag; cadence drops on descents.
        target_hr = 128.0 + 400.0 * grade
        hr += (target_hr - hr) * 0.02 + gauss(0.0, 0.6)
        if hr < 88.0:
            hr = 88.0
        elif hr > 182.0:
            hr = 182.0
        if grade < -0.04 and rand() < 0.5:
            cad_value = 0
        else:
            cad += (88.0 - 150.0 * grade - cad) * 0.05 + gauss(0.0, 1.5)
            cad_value = int(cad) if cad > 55 else 55

        if i == n - 1:
            yield (lat, lon, ele, epoch + i, int(hr + 0.5), cad_value, true_ele, 0.0)
            break
        # Next step: speed ~5 m/s, slower uphill, faster downhill.
        step = 5.0 - 8.0 * grade + gauss(0.0, 0.15)
        if step < 3.5:
            step = 3.5
        elif step > 6.5:
            step = 6.5
        if speed_scale != 1.0:
            step *= speed_scale
        yield (lat, lon, ele, epoch + i, int(hr + 0.5), cad_value, true_ele, step)
        # Heading: a slowly wandering curvature, an intersection turn now and then, home steering.
        turn_rate = turn_rate * 0.97 + gauss(0.0, 0.0025)
        if turn_steps == 0 and rand() < 1 / 350:
            angle = radians(rng.uniform(70, 110)) * (1 if rand() < 0.5 else -1)
            if rand() < 0.15:
                angle = radians(rng.uniform(25, 45)) * (1 if rand() < 0.5 else -1)  # a fork
            turn_steps = rng.randint(3, 5)
            pending_turn = angle
        dh = turn_rate
        if turn_steps:
            dh += pending_turn / turn_steps
            pending_turn -= pending_turn / turn_steps
            turn_steps -= 1
        if i % 16 == 0:
            r = hypot(x, y)
            if r > HOME_RADIUS:
                home = atan2(-x, -y)  # bearing to the start, clockwise from north
                off = (home - heading + math.pi) % (2 * math.pi) - math.pi
                turn_rate += max(-0.02, min(0.02, off * 0.02))
        heading = (heading + dh) % (2 * math.pi)

        # Lay the step out on the ellipsoid: local meridian (M) and prime-vertical (N) radii.
        latr = radians(lat)
        s = sin(latr)
        w2 = 1.0 - E2 * s * s
        w = sqrt(w2)
        n_rad = A / w
        m_rad = n_rad * (1.0 - E2) / w2
        dn = step * cos(heading)
        de = step * sin(heading)
        # Mid-latitude correction for the meridian radius (second order, negligible but cheap).
        lat_mid = latr + 0.5 * dn / m_rad
        s = sin(lat_mid)
        w2 = 1.0 - E2 * s * s
        w = sqrt(w2)
        n_rad = A / w
        m_rad = n_rad * (1.0 - E2) / w2
        lat += dn / m_rad * deg
        lon += de / (n_rad * cos(lat_mid)) * deg
        true_distance += step

    truth["trueDistanceMeters"] = true_distance
    truth["trueAscentMeters"] = ascent
    truth["trueDescentMeters"] = descent


def generate(n, out_path, seed=436):
    epoch = START_EPOCH
    day = epoch // 86400
    day_prefix = iso_day(day)
    start_text = day_prefix + CLOCK[epoch % 86400]

    tmp_path = out_path + ".part"
    out = open(tmp_path, "w", encoding="utf-8", newline="\n", buffering=1 << 20)
    out.write(HEADER.format(start=start_text, name="Morning Ride"))
    chunk = []
    append = chunk.append
    fmt = POINT.format
    truth = {}
    for lat, lon, ele, t, hr, cad_value, _, _ in ride_points(n, seed, truth):
        d = t // 86400
        if d != day:
            day = d
            day_prefix = iso_day(day)
        append(fmt(lat, lon, ele, day_prefix + CLOCK[t % 86400], hr, cad_value))
        if len(chunk) == CHUNK_POINTS:
            out.write("".join(chunk))
            chunk.clear()
    out.write("".join(chunk))
    out.write(FOOTER)
    out.close()
    os.replace(tmp_path, out_path)
    return {
        "file": out_path,
        "points": n,
        "seed": seed,
        "bytes": os.path.getsize(out_path),
        "trueDistanceMeters": round(truth["trueDistanceMeters"], 3),
        "trueAscentMeters": round(truth["trueAscentMeters"], 3),
        "trueDescentMeters": round(truth["trueDescentMeters"], 3),
        "elapsedSeconds": max(n - 1, 0),
        "startTime": start_text,
    }


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--seed")]
    seed = 436
    for j, a in enumerate(argv):
        if a.startswith("--seed="):
            seed = int(a.split("=", 1)[1])
        elif a == "--seed" and j + 1 < len(argv):
            seed = int(argv[j + 1])
            args.remove(argv[j + 1])
    if len(args) != 2 or not args[0].isdigit() or int(args[0]) < 1:
        sys.stderr.write("usage: generate_ride.py N OUT.gpx [--seed S]\n")
        return 2
    n, out_path = int(args[0]), args[1]
    started = time.monotonic()
    truth = generate(n, out_path, seed)
    truth["generationSeconds"] = round(time.monotonic() - started, 2)
    with open(out_path + ".truth.json", "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    print(json.dumps(truth))
    sys.stderr.write(
        "wrote %s: %d points, %.1f MB, true length %.3f km, climb +%.0f m / -%.0f m, in %.1f s\n"
        % (out_path, n, truth["bytes"] / 1e6, truth["trueDistanceMeters"] / 1000,
           truth["trueAscentMeters"], truth["trueDescentMeters"], truth["generationSeconds"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
