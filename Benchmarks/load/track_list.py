"""A page of the track list with many tracks in the library (issue 13's benchmark), and the file that seeds them.

    python3 Benchmarks/load/track_list.py gpx COUNT OUT.gpx
    python3 Benchmarks/load/track_list.py measure [--base URL [--base URL2 ...]] [--deep 1000] [--runs 51] [--json]

`gpx` writes one GPX 1.1 file of COUNT tracks (`<trk>`) of 10 points each, one ride every two hours back from 2026-01-01
(23 years for 100,000; the list's order, newest first by start, is the reverse of the file's), named "Ride N to the lake|work|the
hills|town". `bikeride import OUT.gpx --data-dir DIR` or `--database URL` then stores them in one transaction
through the store's own import, the same rows for SQLite and PostgreSQL (one track per `<trk>`).

`measure` walks `GET /api/tracks` (pages of 50, newest first) from the first page through `--deep` pages by their
cursors (`nextCursor`), checking that no track comes twice, then asks the first page and the deep page `--runs`
times each over one kept-alive connection per instance (several `--base`: in turn), and prints the median, p90 and
best of each, the bytes of a page and the mean time of a page during the walk.
"""
import argparse
import json
import statistics
import sys
import time
from urllib.parse import quote, urlparse

from fix_latency import Connection


def write_gpx(count, path):
    names = ['the lake', 'work', 'the hills', 'town']
    day0 = 1767225600  # 2026-01-01T00:00:00Z
    with open(path, 'w') as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                  '<gpx version="1.1" creator="bikeride benchmark" xmlns="http://www.topografix.com/GPX/1/1">\n')
        for index in range(count):
            start = day0 - (index + 1) * 7200
            lat = 46.0 + (index % 1000) / 1000
            lon = 7.0 + (index // 1000) / 1000
            out.write(f'  <trk>\n    <name>Ride {index} to {names[index % 4]}</name>\n    <trkseg>\n')
            for step in range(10):
                stamp = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(start + step * 10))
                out.write(f'      <trkpt lat="{lat + step * 1e-4:.7f}" lon="{lon + step * 1e-4:.7f}">'
                          f'<ele>{500 + step}</ele><time>{stamp}</time></trkpt>\n')
            out.write('    </trkseg>\n  </trk>\n')
        out.write('</gpx>\n')


def percentile(ordered, q):
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(arguments):
    connections = []
    for base in arguments.base or ['http://127.0.0.1:8080']:
        url = urlparse(base)
        connection = Connection(url.hostname, url.port or 80)
        await connection.open()
        connections.append(connection)
    turn = 0

    async def page(cursor):
        nonlocal turn
        connection = connections[turn]
        turn = (turn + 1) % len(connections)
        path = '/api/tracks' + (f'?cursor={quote(cursor, safe="")}' if cursor else '')
        began = time.perf_counter()
        status, payload = await connection.get(path)
        elapsed = time.perf_counter() - began
        if status != 200:
            sys.exit(f'GET {path}: {status} {payload[:300]!r}')
        body = json.loads(payload)
        return elapsed, len(payload), body.get('tracks', []), body.get('nextCursor')

    seen = set()
    cursor = None
    walk = []
    deep_cursor = None
    for number in range(arguments.deep):
        elapsed, _, tracks, cursor = await page(cursor)
        walk.append(elapsed)
        for track in tracks:
            if track['id'] in seen:
                sys.exit(f'track {track["id"]} came twice in the walk (page {number + 1})')
            seen.add(track['id'])
        if cursor is None:
            sys.exit(f'the list ended at page {number + 1} ({len(seen)} tracks), before page {arguments.deep + 1}')
    deep_cursor = cursor

    results = {'walkPages': arguments.deep, 'walkTracks': len(seen), 'walkMeanMs': statistics.mean(walk) * 1000}
    for name, cursor in (('first', None), ('deep', deep_cursor)):
        times = []
        size = 0
        for _ in range(arguments.runs):
            elapsed, size, tracks, _ = await page(cursor)
            times.append(elapsed * 1000)
            if len(tracks) != 50:
                sys.exit(f'the {name} page held {len(tracks)} tracks, not 50')
        times.sort()
        results[name] = {'medianMs': statistics.median(times), 'p90Ms': percentile(times, 0.9), 'bestMs': times[0], 'bytes': size}
    for connection in connections:
        connection.close()
    print(f'walk: {arguments.deep} pages of 50 ({len(seen):,} tracks), {results["walkMeanMs"]:.1f} ms a page on average')
    for name in ('first', 'deep'):
        r = results[name]
        label = 'first page' if name == 'first' else f'page {arguments.deep + 1} (cursor)'
        print(f'{label}: median {r["medianMs"]:.1f} ms, p90 {r["p90Ms"]:.1f} ms, best {r["bestMs"]:.1f} ms, {r["bytes"]:,} bytes')
    if arguments.json:
        print(json.dumps(results))


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest='command', required=True)
    gpx = commands.add_parser('gpx')
    gpx.add_argument('count', type=int)
    gpx.add_argument('out')
    run = commands.add_parser('measure')
    run.add_argument('--base', action='append')
    run.add_argument('--deep', type=int, default=1000, help='the page to time is this many pages in (default 1000)')
    run.add_argument('--runs', type=int, default=51)
    run.add_argument('--json', action='store_true')
    arguments = parser.parse_args()
    if arguments.command == 'gpx':
        write_gpx(arguments.count, arguments.out)
    else:
        import asyncio
        asyncio.run(measure(arguments))


if __name__ == '__main__':
    main()
