#!/usr/bin/env python3
"""Generate a realistic, deterministic FIT activity (a bike computer's ride) for benchmarks and tests.

Usage: generate_fit.py N OUT.fit [--seed S] [--indoor] [--pauses K]

The ride is the one generate_ride.py lays out (same seed, same path, terrain, heart rate and cadence), written
the way a Garmin Edge writes an activity file:

- a 14-byte header (protocol 2.0, profile 21.32) with its CRC, and the file's CRC-16 at the end (the FIT SDK's
  CRC, which is CRC-16/ARC);
- file_id (activity, Garmin, Edge 530), a timer start event, N `record`s at 1 Hz with timestamp, position
  (semicircles), the cumulative distance, enhanced_speed, enhanced_altitude, heart rate, cadence, power
  (from speed, grade and a rider's drag) and temperature; K timer pauses of three minutes spread over the
  ride (stop_all, then start: the clock runs on, the timer does not); a `lap` every 10 km (auto lap) with its
  totals; a `session` and an `activity` with the device's totals;
- `--indoor`: an indoor trainer's file: the same records without positions (sub_sport indoor_cycling).

Records are 30 bytes each (29 with --indoor), so 100,000 records make about 3 MB.

Ground truth (printed as JSON, and written beside the file as OUT.fit.truth.json): the records, the laid-out
distance (the device's `total_distance`, as the generator knows it exactly), timer and elapsed seconds, the
climb of the noise-free terrain, the laps.
"""

import json
import math
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate_ride import START_EPOCH, ride_points  # noqa: E402

FIT_EPOCH = 631065600  # 1989-12-31T00:00:00Z in Unix seconds
SEMICIRCLES = 2 ** 31 / 180.0
PAUSE_SECONDS = 180
LAP_METERS = 10000.0

# Base types of the FIT protocol.
ENUM, SINT8, UINT8, UINT16, SINT32, UINT32, UINT32Z = 0x00, 0x01, 0x02, 0x84, 0x85, 0x86, 0x8C
SIZES = {ENUM: 1, SINT8: 1, UINT8: 1, UINT16: 2, SINT32: 4, UINT32: 4, UINT32Z: 4}
CODES = {ENUM: "B", SINT8: "b", UINT8: "B", UINT16: "H", SINT32: "i", UINT32: "I", UINT32Z: "I"}

CRC_TABLE = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
             0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]


def crc16(data, crc=0):
    """The FIT SDK's CRC (nibble table), over bytes."""
    table = CRC_TABLE
    for byte in data:
        tmp = table[crc & 0xF]
        crc = (crc >> 4) & 0x0FFF
        crc = crc ^ tmp ^ table[byte & 0xF]
        tmp = table[crc & 0xF]
        crc = (crc >> 4) & 0x0FFF
        crc = crc ^ tmp ^ table[(byte >> 4) & 0xF]
    return crc


class Message:
    """A local message type: its definition record and a packer for its data records."""

    def __init__(self, local, global_number, fields):
        self.local = local
        self.fields = fields  # [(field number, base type)]
        definition = struct.pack("<BBBHB", 0x40 | local, 0, 0, global_number, len(fields))
        for number, base in fields:
            definition += struct.pack("<BBB", number, SIZES[base], base)
        self.definition = definition
        self.packer = struct.Struct("<B" + "".join(CODES[base] for _, base in fields))

    def data(self, *values):
        return self.packer.pack(self.local, *values)


FILE_ID = Message(0, 0, [(0, ENUM), (1, UINT16), (2, UINT16), (3, UINT32Z), (4, UINT32)])
EVENT = Message(1, 21, [(253, UINT32), (0, ENUM), (1, ENUM), (4, UINT8)])
RECORD_FIELDS = [(253, UINT32), (0, SINT32), (1, SINT32), (5, UINT32), (73, UINT32), (78, UINT32), (3, UINT8),
                 (4, UINT8), (7, UINT16), (13, SINT8)]
RECORD = Message(2, 20, RECORD_FIELDS)
RECORD_INDOOR = Message(2, 20, [f for f in RECORD_FIELDS if f[0] not in (0, 1)])
LAP = Message(3, 19, [(253, UINT32), (0, ENUM), (1, ENUM), (2, UINT32), (7, UINT32), (8, UINT32), (9, UINT32),
                      (15, UINT8), (16, UINT8), (19, UINT16), (21, UINT16), (22, UINT16), (25, ENUM)])
SESSION = Message(4, 18, [(253, UINT32), (0, ENUM), (1, ENUM), (2, UINT32), (5, ENUM), (6, ENUM), (7, UINT32),
                          (8, UINT32), (9, UINT32), (14, UINT16), (16, UINT8), (17, UINT8), (20, UINT16),
                          (22, UINT16), (23, UINT16), (25, UINT16), (26, UINT16)])
ACTIVITY = Message(5, 34, [(253, UINT32), (0, UINT32), (1, UINT16), (2, ENUM), (3, ENUM), (4, ENUM), (5, UINT32)])


class Totals:
    def __init__(self, start):
        self.start = start
        self.timer = 0
        self.distance = 0.0
        self.ascent = 0.0
        self.descent = 0.0
        self.hr_sum = self.hr_n = self.hr_max = 0
        self.power_sum = self.power_n = 0

    def add(self, hr, power, rise, seconds, meters):
        self.timer += seconds
        self.distance += meters
        if rise > 0:
            self.ascent += rise
        else:
            self.descent -= rise
        self.hr_sum += hr
        self.hr_n += 1
        self.hr_max = max(self.hr_max, hr)
        self.power_sum += power
        self.power_n += 1

    def averages(self):
        return (round(self.hr_sum / max(self.hr_n, 1)), self.hr_max, round(self.power_sum / max(self.power_n, 1)))


def power_watts(speed, grade, cadence):
    """A rider of 85 kg with bike: rolling resistance 0.005, CdA 0.32 m², air 1.2 kg/m³, drivetrain 97 %."""
    if cadence == 0:
        return 0
    watts = (85 * 9.81 * (grade + 0.005) * speed + 0.5 * 1.2 * 0.32 * speed ** 3) / 0.97
    return int(min(max(watts, 0), 1500))


def write_fit(out, n, seed=436, indoor=False, pauses=None, start_epoch=START_EPOCH, start=None, speed_scale=1.0,
              sport=2):
    """Writes the FIT activity to the binary file `out` (sport: 2 cycling, 1 running, 11 walking); returns the truth
    as a dict."""
    pauses = max(0, n // 25000) if pauses is None else pauses
    pause_after = {n * (k + 1) // (pauses + 1) for k in range(pauses)}
    body = bytearray()
    record = RECORD_INDOOR if indoor else RECORD
    for message in (FILE_ID, EVENT, record, LAP, SESSION, ACTIVITY):
        body += message.definition
    fit = lambda epoch: epoch - FIT_EPOCH  # noqa: E731
    body += FILE_ID.data(4, 1, 3121, (3_436_000 + seed) % 2 ** 32, fit(start_epoch))
    body += EVENT.data(fit(start_epoch), 0, 0, 0)

    ride = {}
    kwargs = {"start_epoch": start_epoch, "speed_scale": speed_scale}
    if start is not None:
        kwargs["start"] = start
    session = Totals(start_epoch)
    lap = Totals(start_epoch)
    laps = []
    shift = 0  # seconds of pauses so far
    distance = 0.0
    prev_true_ele = None
    prev_step = 5.0
    last_time = start_epoch
    next_lap = LAP_METERS
    lap_message = []

    def close_lap(now):
        hr_avg, hr_max, power_avg = lap.averages()
        body.extend(LAP.data(fit(now), 9, 1, fit(lap.start), (now - lap.start) * 1000, lap.timer * 1000,
                             round(lap.distance * 100), hr_avg, hr_max, power_avg, round(lap.ascent),
                             round(lap.descent), sport))
        laps.append({"distanceMeters": round(lap.distance, 2), "timerSeconds": lap.timer,
                     "elapsedSeconds": now - lap.start})

    chunk = []
    temperature = 18.0
    for i, (lat, lon, ele, t, hr, cad, true_ele, step) in enumerate(ride_points(n, seed, ride, **kwargs)):
        now = t + shift
        rise = 0.0 if prev_true_ele is None else true_ele - prev_true_ele
        grade = rise / prev_step if prev_true_ele is not None else 0.0
        seconds = now - last_time if i > 0 else 0
        meters = prev_step if i > 0 else 0.0
        if seconds > 1:  # the first record after a pause: the timer counts its one second only
            seconds = 1
        distance += meters
        speed = prev_step
        power = power_watts(speed, grade, cad) if sport == 2 else 0
        temperature = 18.0 + 6.0 * math.sin(i / 5400.0)
        values = [fit(now)]
        if not indoor:
            values += [int(round(lat * SEMICIRCLES)), int(round(lon * SEMICIRCLES))]
        values += [round(distance * 100), round(speed * 1000), round((ele + 500) * 5), hr, cad, power,
                   int(round(temperature))]
        chunk.append(record.data(*values))
        session.add(hr, power, rise, seconds, meters)
        lap.add(hr, power, rise, seconds, meters)
        prev_true_ele = true_ele
        prev_step = step
        last_time = now
        if len(chunk) >= 4096:
            body.extend(b"".join(chunk))
            chunk.clear()
        if lap.distance >= LAP_METERS and i < n - 1:
            body.extend(b"".join(chunk))
            chunk.clear()
            close_lap(now)
            lap = Totals(now)
        if i + 1 in pause_after:
            body.extend(b"".join(chunk))
            chunk.clear()
            body.extend(EVENT.data(fit(now), 0, 4, 0))  # timer stop_all
            shift += PAUSE_SECONDS
            body.extend(EVENT.data(fit(now + PAUSE_SECONDS), 0, 0, 0))  # timer start
    body.extend(b"".join(chunk))
    end = last_time
    body += EVENT.data(fit(end), 0, 4, 0)
    close_lap(end)
    hr_avg, hr_max, power_avg = session.averages()
    avg_speed = session.distance / max(session.timer, 1)
    body += SESSION.data(fit(end), 8, 1, fit(start_epoch), sport, 6 if indoor else 0, (end - start_epoch) * 1000,
                         session.timer * 1000, round(session.distance * 100), round(avg_speed * 1000), hr_avg,
                         hr_max, power_avg, round(session.ascent), round(session.descent), 0, len(laps))
    body += ACTIVITY.data(fit(end), session.timer * 1000, 1, 0, 26, 1, fit(end) - 7 * 3600)  # local time: Cupertino in May, UTC-07:00

    header = struct.pack("<BBHI4s", 14, 0x20, 2132, len(body), b".FIT")
    header += struct.pack("<H", crc16(header))
    out.write(header)
    out.write(body)
    out.write(struct.pack("<H", crc16(body, crc16(header))))
    return {
        "records": n,
        "seed": seed,
        "indoor": indoor,
        "bytes": len(header) + len(body) + 2,
        "deviceDistanceMeters": round(session.distance, 3),
        "trueDistanceMeters": round(ride["trueDistanceMeters"], 3),
        "timerSeconds": session.timer,
        "elapsedSeconds": end - start_epoch,
        "pauses": pauses,
        "trueAscentMeters": round(session.ascent, 3),
        "laps": len(laps),
        "startTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start_epoch)),
    }


def main(argv):
    args = argv[1:]
    seed, indoor, pauses = 436, False, None
    positional = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--seed" and i + 1 < len(args):
            seed = int(args[i + 1])
            i += 1
        elif a.startswith("--seed="):
            seed = int(a.split("=", 1)[1])
        elif a == "--pauses" and i + 1 < len(args):
            pauses = int(args[i + 1])
            i += 1
        elif a == "--indoor":
            indoor = True
        else:
            positional.append(a)
        i += 1
    if len(positional) != 2 or not positional[0].isdigit() or int(positional[0]) < 2:
        sys.stderr.write("usage: generate_fit.py N OUT.fit [--seed S] [--indoor] [--pauses K]\n")
        return 2
    n, out_path = int(positional[0]), positional[1]
    started = time.monotonic()
    with open(out_path + ".part", "wb") as out:
        truth = write_fit(out, n, seed, indoor, pauses)
    os.replace(out_path + ".part", out_path)
    truth["file"] = out_path
    truth["generationSeconds"] = round(time.monotonic() - started, 2)
    with open(out_path + ".truth.json", "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    print(json.dumps(truth))
    sys.stderr.write("wrote %s: %d records, %.1f MB, %.3f km, %d laps, in %.1f s\n" % (
        out_path, n, truth["bytes"] / 1e6, truth["deviceDistanceMeters"] / 1000, truth["laps"],
        truth["generationSeconds"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
