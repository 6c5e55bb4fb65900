#!/usr/bin/env python3
"""The server's peak memory for each read of a huge track (issue 20, finding 5); run by run-track-read.sh.

    track_read_memory.py BIKERIDE RIDESTORE_BENCH POINTS WORKDIR

Saves one POINTS-point track with `ridestore-bench bigtrack` (blocks straight through the store), then for each
request starts a fresh `bikeride serve` on that data, warms it with a small read, and reads its peak resident memory
(VmHWM of /proc/PID/status) before and after the request. Prints a Markdown table."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

bikeride, bench, points, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
root = Path(__file__).resolve().parent.parent
data = work / 'data'
shutil.rmtree(work, ignore_errors=True)
data.mkdir(parents=True)

started = time.time()
saved = json.loads(subprocess.check_output([bench, 'bigtrack', str(points), str(data / 'bikeride.sqlite')]))
track = saved['id']
print(f'saved a {saved["points"]:,}-point track in {time.time() - started:.0f} s '
      f'({os.path.getsize(data / "bikeride.sqlite") / (1 << 20):.0f} MiB of database)', file=sys.stderr)


def peak_kib(pid):
    with open(f'/proc/{pid}/status') as status:
        for line in status:
            if line.startswith('VmHWM:'):
                return int(line.split()[1])
    raise RuntimeError('no VmHWM')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def serve():
    port = free_port()
    log = open(work / 'server.log', 'a')
    process = subprocess.Popen(
        [bikeride, 'serve', '--port', str(port), '--data-dir', str(data), '--web-root', str(root / 'Web'),
         '--max-track-points', str(points + 1)], stdout=log, stderr=subprocess.STDOUT)
    base = f'http://127.0.0.1:{port}'
    for _ in range(600):
        try:
            urllib.request.urlopen(base + '/health', timeout=1).read()
            return base, process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError('the server did not start: ' + (work / 'server.log').read_text()[-2000:])


requests = [
    ('track page ?fit=390x420', f'/api/tracks/{track}?fit=390x420'),
    ('track page, no fit', f'/api/tracks/{track}'),
    ('profile', f'/api/tracks/{track}/profile'),
    ('cue sheet', f'/api/tracks/{track}/cues'),
    ('.gpx download', f'/api/tracks/{track}.gpx'),
    ('.geojson download', f'/api/tracks/{track}.geojson'),
    ('.gpx436 download', f'/api/tracks/{track}.gpx436'),
]
print(f'| request ({points:,} points) | status | bytes | seconds | server before (MiB) | peak (MiB) | grown (MiB) |')
print('|---|---|---|---|---|---|---|')
for label, path in requests:
    base, process = serve()
    try:
        urllib.request.urlopen(base + '/api/tracks?limit=5', timeout=60).read()
        time.sleep(0.5)
        before = peak_kib(process.pid)
        start = time.time()
        size = 0
        trkpts = 0
        tail = b''
        try:
            with urllib.request.urlopen(base + path, timeout=3600) as answer:
                status = answer.status
                while True:
                    chunk = answer.read(1 << 20)
                    if not chunk:
                        break
                    size += len(chunk)
                    trkpts += (tail + chunk).count(b'<trkpt') - tail.count(b'<trkpt')
                    tail = chunk[-8:]
        except urllib.error.HTTPError as error:
            status = error.code
            size = len(error.read())
        seconds = time.time() - start
        after = peak_kib(process.pid)
        if path.endswith('.gpx') and trkpts != points:
            label += f' (only {trkpts:,} points!)'
        print(f'| {label} | {status} | {size:,} | {seconds:.1f} | {before / 1024:.0f} | {after / 1024:.0f} | {(after - before) / 1024:.1f} |',
              flush=True)
    finally:
        process.terminate()
        process.wait(timeout=60)
shutil.rmtree(work, ignore_errors=True)
