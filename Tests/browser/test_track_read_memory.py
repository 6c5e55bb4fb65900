"""Reads of a huge track stay bounded (issue 20, finding 5): the track page's line, its profile, its cue sheet and
its GPX and GeoJSON downloads of a million-point track grow the real `bikeride serve` by a small part of what holding
the track would take. Not a browser test, but it needs the real server process, which this harness runs.

The track is imported by one server process, then read by a fresh one on the same data directory, so that the
import's own peak is not in the figures."""
import datetime
import gzip
import json
import tempfile
import urllib.request
from pathlib import Path

from conftest import start_server, stop_server
from test_upload_memory import peak_resident_kb

POINTS = 1_000_000
# A straight line north from (47.0, 8.0), one point a second, 2 m apart, climbing 0.01 m a point.
STEP_DEGREES = 2 / 111_195
START = datetime.datetime(2024, 5, 1, 6, 0, 0)


def point(index):
    latitude = 47.0 + index * STEP_DEGREES
    return latitude, 8.0, 400 + index * 0.01


def write_ride(path):
    with gzip.open(path, 'wt', compresslevel=6) as file:
        file.write('<?xml version="1.0"?>\n<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">'
                   '<trk><name>huge</name><trkseg>\n')
        for index in range(POINTS):
            latitude, longitude, elevation = point(index)
            time = (START + datetime.timedelta(seconds=index)).strftime('%Y-%m-%dT%H:%M:%SZ')
            file.write(f'<trkpt lat="{latitude:.7f}" lon="{longitude:.7f}"><ele>{elevation:.2f}</ele><time>{time}</time></trkpt>\n')
        file.write('</trkseg></trk></gpx>\n')


def fetch(url):
    with urllib.request.urlopen(url, timeout=600) as answer:
        return answer.status, answer.headers, answer.read()


def test_a_million_point_track_is_read_for_its_page_profile_and_download_in_bounded_memory():
    work = Path(tempfile.mkdtemp(prefix='bikeride-read-memory-'))
    ride = work / 'huge.gpx.gz'
    write_ride(ride)
    limits = ['--max-track-points', str(2 * POINTS)]
    server, process = start_server(work, limits)
    try:
        request = urllib.request.Request(
            f'{server}/api/tracks?name=huge.gpx.gz', data=ride.read_bytes(), method='POST',
            headers={'Content-Type': 'application/gpx+xml'})
        with urllib.request.urlopen(request, timeout=900) as answer:
            imported = json.loads(answer.read())
        track = imported['tracks'][0]
        assert track['pointCount'] == POINTS
    finally:
        process.terminate()
        process.wait(timeout=30)

    server, process = start_server(work, limits)
    try:
        # The machinery (threads, SQLite's cache) in place with a small read first.
        fetch(f'{server}/api/tracks?limit=5')
        before = peak_resident_kb(process.pid)
        steps = []

        status, _, body = fetch(f'{server}/api/tracks/{track["id"]}?fit=390x420')
        page = json.loads(body)
        steps.append(('page ?fit', peak_resident_kb(process.pid)))
        line = [p for segment in page['segments'] for p in segment]
        # Simplified for its zoom from a bounded part of the points: the ends are the ride's own.
        assert 2 <= len(line) <= 100_001
        assert line[0] == [point(0)[0], point(0)[1]] or abs(line[0][0] - point(0)[0]) < 1e-7
        assert abs(line[-1][0] - point(POINTS - 1)[0]) < 1e-7

        status, _, body = fetch(f'{server}/api/tracks/{track["id"]}')
        every = [p for segment in json.loads(body)['segments'] for p in segment]
        steps.append(('page, every point', peak_resident_kb(process.pid)))
        assert 2 <= len(every) <= 100_001

        status, _, body = fetch(f'{server}/api/tracks/{track["id"]}/profile')
        profile = json.loads(body)
        steps.append(('profile', peak_resident_kb(process.pid)))
        # The ride climbs 0.01 m a point: the last sample's mean elevation is near the top, not the start.
        last_elevation = profile['elevationMeters'][-1]
        assert last_elevation > 400 + 0.9 * (POINTS * 0.01), last_elevation

        # The download: every point, streamed; counted as it arrives, not held.
        count, size = 0, 0
        tail = b''
        with urllib.request.urlopen(f'{server}/api/tracks/{track["id"]}.gpx', timeout=900) as answer:
            assert answer.headers['Content-Type'] == 'application/gpx+xml'
            while True:
                chunk = answer.read(1 << 20)
                if not chunk:
                    break
                size += len(chunk)
                count += (tail[-6:] + chunk).count(b'<trkpt') - tail[-6:].count(b'<trkpt')
                tail = chunk
        assert count == POINTS
        assert tail.rstrip().endswith(b'</gpx>')
        steps.append(('.gpx', peak_resident_kb(process.pid)))

        # The .geojson: every point too, streamed a page of blocks at a time (its per-point arrays one pass each).
        size_geojson = 0
        tail = b''
        with urllib.request.urlopen(f'{server}/api/tracks/{track["id"]}.geojson', timeout=900) as answer:
            assert answer.headers['Content-Type'] == 'application/geo+json'
            while True:
                chunk = answer.read(1 << 20)
                if not chunk:
                    break
                size_geojson += len(chunk)
                tail = (tail + chunk)[-256:]
        assert tail.rstrip().endswith(b']}')
        steps.append(('.geojson', peak_resident_kb(process.pid)))

        # The cue sheet of a straight line: no turn, from a bounded part of its points.
        status, _, body = fetch(f'{server}/api/tracks/{track["id"]}/cues')
        assert json.loads(body)['cues'] == []
        steps.append(('cues', peak_resident_kb(process.pid)))

        after = peak_resident_kb(process.pid)
        grown_mb = (after - before) / 1024
        size_mb = size / (1 << 20)
        print(f'peak resident memory grew by {grown_mb:.1f} MiB serving a {POINTS}-point track ({size_mb:.0f} MiB of GPX)')
        # Where the peak was reached: the peak after each request, above the start.
        print('peak after each request: ' + ', '.join(f'{label} +{(kb - before) / 1024:.1f} MiB' for label, kb in steps))
        # Holding the GPX written (126 MiB here) or the points unpacked (over 150 MiB as records) would take more.
        # Each read holds a page of blocks and at most 100,000 points of a line, whatever the track's length: 10
        # million points take the same (Benchmarks/run-track-read.sh). The most is the page with every point (its
        # 100,000 points as JSON): about 60 MiB in a debug build. The six requests run one after another in one
        # process, and glibc's per-thread arenas keep part of each one's peak, so their sum grows more than any one
        # request needs (60 MiB on a quiet machine, 89 MiB in a clean-clone run beside other work); holding the
        # GPX whole would take its size on top of the request's own working memory.
        assert grown_mb < size_mb, f'grew by {grown_mb:.1f} MiB'
    finally:
        stop_server(process, work)
