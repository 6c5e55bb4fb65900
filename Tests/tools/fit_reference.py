#!/usr/bin/env python3
"""What fitdecode (an independent FIT reader, from PyPI) makes of FIT files, as JSON, for FITReaderTests.

Usage: fit_reference.py FILE...

Prints one JSON object: file name -> {"error": text} when fitdecode refuses the file (CRC checks on), else
{"sessions": [{distance, timer, elapsed, ascent, descent, avgSpeed}], "laps": [{distance, timer}],
 "positions": number of record messages with a position, "records": number of record messages}.
Values are fitdecode's, in its units (m, s, m/s); null where the file has none.
"""
import json
import os
import sys
import warnings

import fitdecode


def value(frame, name):
    if not frame.has_field(name):
        return None
    v = frame.get_value(name, fallback=None)
    return v if isinstance(v, (int, float)) else None


def summarize(path):
    sessions, laps = [], []
    positions = records = 0
    try:
        with fitdecode.FitReader(path, check_crc=fitdecode.CrcCheck.RAISE) as reader:
            for frame in reader:
                if frame.frame_type != fitdecode.FIT_FRAME_DATA:
                    continue
                if frame.name == 'record':
                    records += 1
                    if value(frame, 'position_lat') is not None and value(frame, 'position_long') is not None:
                        positions += 1
                elif frame.name == 'session':
                    speed = value(frame, 'enhanced_avg_speed')
                    sessions.append({
                        'distance': value(frame, 'total_distance'),
                        'timer': value(frame, 'total_timer_time'),
                        'elapsed': value(frame, 'total_elapsed_time'),
                        'ascent': value(frame, 'total_ascent'),
                        'descent': value(frame, 'total_descent'),
                        'avgSpeed': speed if speed is not None else value(frame, 'avg_speed'),
                    })
                elif frame.name == 'lap':
                    laps.append({'distance': value(frame, 'total_distance'), 'timer': value(frame, 'total_timer_time')})
    except Exception as error:  # fitdecode refuses the file: the Swift test expects bikeride's strict mode to refuse it too
        return {'error': f'{type(error).__name__}: {error}'}
    return {'sessions': sessions, 'laps': laps, 'positions': positions, 'records': records}


warnings.simplefilter('ignore')  # misaligned fields: fitdecode warns, and reads them as bytes
print(json.dumps({os.path.basename(path): summarize(path) for path in sys.argv[1:]}))
