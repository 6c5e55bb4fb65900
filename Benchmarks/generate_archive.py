#!/usr/bin/env python3
"""Generate a Strava-style bulk export (a zip) of N activities, deterministic, for benchmarks and tests.

Usage: generate_archive.py N OUT.zip [--seed S] [--tag TEXT] [--first-year YYYY] [--short]

The zip is laid out as Strava's "Download your data" archive:

- `activities.csv`: Activity ID, Activity Date ("May 4, 2024, 7:30:00 AM"), Activity Name, Activity Type, Activity
  Description, Elapsed Time, Distance, Filename (`activities/ID.fit.gz`), and more columns Strava writes; names
  and descriptions with commas, quotes and line breaks now and then; a few manual activities without a file;
- `activities/`: one file per activity in the formats Strava keeps as uploaded: FIT from bike computers and
  watches (`.fit.gz` mostly, some `.fit`), GPX from phone apps (`.gpx.gz`, `.gpx`), TCX (`.tcx.gz`, `.tcx`), and
  indoor trainer rides as FIT without positions;
- rides (70 %, 0.5–2.5 h), runs (20 %, 20–90 min) and walks (10 %, 30–120 min) at 1 Hz over five years, each
  starting in one of a few cities, laid out by generate_ride.py's path and terrain (seeded per activity, so no
  two files are alike and the archive imports N tracks);
- other files Strava puts there (`profile.csv`, `media/`), which an import skips.

--tag TEXT adds TEXT to every activity's name (a test finds its own), --first-year moves the five years, --short makes
every activity 3-8 minutes (a test's archive that imports in seconds).

Truth is printed as JSON and written beside the zip as OUT.zip.truth.json: activities with a file, manual rows,
indoor files, points, the count per format and per kind.
"""

import calendar
import csv
import gzip
import io
import json
import os
import random
import sys
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate_fit import write_fit  # noqa: E402
from generate_ride import ride_points  # noqa: E402

CITIES = [(37.3230, -122.0322), (47.3769, 8.5417), (48.8566, 2.3522), (51.5072, -0.1276), (45.5152, -122.6784),
          (46.5197, 6.6323), (52.5200, 13.4050)]
DAYS = 5 * 365

# (kind, Strava type, share, minutes range, speed scale, FIT sport, TCX sport)
KINDS = [("ride", "Ride", 0.70, (30, 150), 1.0, 2, "Biking"), ("run", "Run", 0.20, (20, 90), 0.6, 1, "Running"),
         ("walk", "Walk", 0.10, (30, 120), 0.28, 11, "Other")]
# (suffix, share) of the files with positions.
FORMATS = [(".fit.gz", 0.45), (".fit", 0.10), (".gpx.gz", 0.25), (".gpx", 0.08), (".tcx.gz", 0.07), (".tcx", 0.05)]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
NAMES = {"ride": ["Morning Ride", "Lunch Ride", "Evening Ride", "Commute", "Hill repeats, again", 'Gravel "adventure"'],
         "run": ["Morning Run", "Easy run", "Intervals: 6 x 800 m", "Long Run"],
         "walk": ["Afternoon Walk", "Walk with the dog", "Hike"]}


def iso(epoch):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def strava_date(epoch):
    t = time.gmtime(epoch)
    hour = t.tm_hour % 12 or 12
    return "%s %d, %d, %d:%02d:%02d %s" % (MONTHS[t.tm_mon - 1], t.tm_mday, t.tm_year, hour, t.tm_min, t.tm_sec,
                                          "AM" if t.tm_hour < 12 else "PM")


def gpx_bytes(points, name, kind):
    """GPX 1.1 as Strava's phone app writes it: trkpt with ele and time, heart rate and cadence in extensions."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<gpx creator="StravaGPX Android" version="1.1" '
           'xmlns="http://www.topografix.com/GPX/1/1" '
           'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">\n'
           ' <metadata>\n  <time>%s</time>\n </metadata>\n <trk>\n  <name>%s</name>\n  <type>%s</type>\n  <trkseg>\n'
           % (iso(points[0][3]), name.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;"),
              {"ride": "cycling", "run": "running", "walk": "walking"}[kind])]
    fmt = ('   <trkpt lat="%.7f" lon="%.7f">\n    <ele>%.1f</ele>\n    <time>%s</time>\n    <extensions>\n'
           '     <gpxtpx:TrackPointExtension>\n      <gpxtpx:hr>%d</gpxtpx:hr>\n      <gpxtpx:cad>%d</gpxtpx:cad>\n'
           '     </gpxtpx:TrackPointExtension>\n    </extensions>\n   </trkpt>\n')
    for lat, lon, ele, t, hr, cad, _, _ in points:
        out.append(fmt % (lat, lon, ele, iso(t), hr, cad))
    out.append("  </trkseg>\n </trk>\n</gpx>\n")
    return "".join(out).encode()


def tcx_bytes(points, sport):
    """TCX as Garmin Connect exports it: one Activity, one Lap, a Track of Trackpoints."""
    start = points[0][3]
    distance = 0.0
    rows = []
    fmt = ("     <Trackpoint>\n      <Time>%s</Time>\n      <Position>\n       <LatitudeDegrees>%.7f</LatitudeDegrees>\n"
           "       <LongitudeDegrees>%.7f</LongitudeDegrees>\n      </Position>\n      <AltitudeMeters>%.1f</AltitudeMeters>\n"
           "      <DistanceMeters>%.2f</DistanceMeters>\n      <HeartRateBpm>\n       <Value>%d</Value>\n      </HeartRateBpm>\n"
           "      <Cadence>%d</Cadence>\n     </Trackpoint>\n")
    previous_step = 0.0
    for i, (lat, lon, ele, t, hr, cad, _, step) in enumerate(points):
        if i > 0:
            distance += previous_step
        rows.append(fmt % (iso(t), lat, lon, ele, distance, hr, cad))
        previous_step = step
    head = ('<?xml version="1.0" encoding="UTF-8"?>\n<TrainingCenterDatabase '
            'xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">\n <Activities>\n'
            '  <Activity Sport="%s">\n   <Id>%s</Id>\n   <Lap StartTime="%s">\n    <TotalTimeSeconds>%d</TotalTimeSeconds>\n'
            '    <DistanceMeters>%.2f</DistanceMeters>\n    <Calories>0</Calories>\n    <Intensity>Active</Intensity>\n'
            '    <TriggerMethod>Manual</TriggerMethod>\n    <Track>\n'
            % (sport, iso(start), iso(start), points[-1][3] - start, distance))
    tail = "    </Track>\n   </Lap>\n  </Activity>\n </Activities>\n</TrainingCenterDatabase>\n"
    return (head + "".join(rows) + tail).encode()


def pick(rng, table, share_index):
    x = rng.random()
    for row in table:
        x -= row[share_index]
        if x < 0:
            return row
    return table[-1]


def generate(n, out_path, seed=436, tag="", first_year=2019, short=False):
    rng = random.Random(seed)
    first_day = calendar.timegm((first_year, 1, 1, 0, 0, 0))
    truth = {"activities": n, "files": 0, "manual": 0, "indoor": 0, "points": 0, "formats": {}, "kinds": {}}
    rows = []
    tmp = out_path + ".part"
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        archive.writestr("profile.csv", "Athlete ID,Email Address,First Name\n436,rider@example.com,Rider\n")
        archive.writestr("media/readme.txt", "photos would be here\n")
        for index in range(n):
            activity_id = 10_000_000_000 + index * 7919
            kind, strava_type, _, minutes, speed_scale, sport, tcx_sport = pick(rng, KINDS, 2)
            day = first_day + rng.randrange(DAYS) * 86400
            start_epoch = day + rng.randrange(6 * 3600, 19 * 3600)
            name = rng.choice(NAMES[kind]) + (" " + tag if tag else "")
            description = ""
            if rng.random() < 0.1:
                description = 'Legs felt "fresh", wind from the west,\nthen rain.'
            manual = rng.random() < 0.01
            elapsed = rng.randrange(180, 480) if short else rng.randrange(minutes[0] * 60, minutes[1] * 60)
            filename = ""
            if not manual:
                indoor = kind == "ride" and rng.random() < 0.03
                suffix = ".fit.gz" if indoor else pick(rng, FORMATS, 1)[0]
                filename = "activities/%d%s" % (activity_id, suffix)
                city = rng.choice(CITIES)
                start = (city[0] + rng.uniform(-0.05, 0.05), city[1] + rng.uniform(-0.05, 0.05))
                activity_seed = seed * 1_000_003 + index
                if suffix.startswith(".fit"):
                    buffer = io.BytesIO()
                    write_fit(buffer, elapsed, activity_seed, indoor=indoor, pauses=rng.randrange(0, 3),
                              start_epoch=start_epoch, start=start, speed_scale=speed_scale, sport=sport)
                    data = buffer.getvalue()
                else:
                    points = list(ride_points(elapsed, activity_seed, None, start_epoch, start, speed_scale))
                    data = gpx_bytes(points, name, kind) if suffix.startswith(".gpx") else tcx_bytes(points, tcx_sport)
                if suffix.endswith(".gz"):
                    data = gzip.compress(data, compresslevel=6, mtime=0)
                    archive.writestr(zipfile.ZipInfo(filename, time.gmtime(start_epoch)[:6]), data,
                                     compress_type=zipfile.ZIP_STORED)
                else:
                    info = zipfile.ZipInfo(filename, time.gmtime(start_epoch)[:6])
                    archive.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=6)
                truth["files"] += 1
                truth["points"] += 0 if indoor else elapsed
                truth["indoor"] += 1 if indoor else 0
                truth["formats"][suffix] = truth["formats"].get(suffix, 0) + 1
                truth["kinds"][kind] = truth["kinds"].get(kind, 0) + 1
            else:
                truth["manual"] += 1
            rows.append([activity_id, strava_date(start_epoch), name, strava_type, description, elapsed,
                         "%.2f" % (elapsed * 5 * speed_scale / 1000), "", "", "", filename, "", ""])
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(["Activity ID", "Activity Date", "Activity Name", "Activity Type", "Activity Description",
                         "Elapsed Time", "Distance", "Max Heart Rate", "Relative Effort", "Commute", "Filename",
                         "Athlete Weight", "Bike Weight"])
        writer.writerows(rows)
        archive.writestr("activities.csv", text.getvalue())
    os.replace(tmp, out_path)
    truth["bytes"] = os.path.getsize(out_path)
    return truth


def main(argv):
    args = argv[1:]
    options = {"--seed": "436", "--tag": "", "--first-year": "2019"}
    for name in options:
        if name in args:
            i = args.index(name)
            options[name] = args[i + 1]
            del args[i:i + 2]
    short = "--short" in args
    if short:
        args.remove("--short")
    if len(args) != 2 or not args[0].isdigit() or int(args[0]) < 1:
        sys.stderr.write("usage: generate_archive.py N OUT.zip [--seed S] [--tag TEXT] [--first-year YYYY] [--short]\n")
        return 2
    n, out_path = int(args[0]), args[1]
    started = time.monotonic()
    truth = generate(n, out_path, int(options["--seed"]), options["--tag"], int(options["--first-year"]), short)
    truth["file"] = out_path
    truth["generationSeconds"] = round(time.monotonic() - started, 1)
    with open(out_path + ".truth.json", "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    print(json.dumps(truth))
    sys.stderr.write("wrote %s: %d activities (%d files, %d manual, %d indoor), %s points, %.0f MB, in %.0f s\n" % (
        out_path, n, truth["files"], truth["manual"], truth["indoor"], format(truth["points"], ","),
        truth["bytes"] / 1e6, truth["generationSeconds"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
