"""Phone-app posts per second (issue 12's benchmark): single-fix OwnTracks posts from many devices, and
Overland batches of 1,000 points, on loopback against `bikeride serve` (accounts off, so the devices are the
local user's; the token check is the same either way).

    python3 Benchmarks/load/ingest_throughput.py [--base http://127.0.0.1:8080 [--base URL2 ...]] [--devices 200]
        [--seconds 20] [--overland-clients 4] [--wrk] [--phases floor,single,overland] [--json]

Phase 1: each device posts one fix (`_type: location`, a new time each) as soon as it has its answer, over one
kept-alive connection; every post is stored durably before it is answered (the store's default `synchronous =
FULL`, one transaction per post). Prints posts/s and p50/p90/p99/max latency.
Phase 2: `--overland-clients` clients post 1,000-point batches back to back: batches/s and points/s, with latency.

Several `--base` URLs (instances of `serve` on one PostgreSQL database): the devices are made on the first, and
each device (each Overland client, each floor client) keeps a connection to every instance and posts to them in
turn, starting at a different one per device, as a load balancer without sticky sessions would. `--phases` picks
the phases (default all three); `--json` adds one line of JSON per phase (rate per second, latencies in ms).

With --wrk (one instance only), first the same single-fix posts by wrk (Debian's package) and owntracks.lua: a C client that takes
less of the shared cores than this Python one.

Plain asyncio with hand-written HTTP/1.1 (`fix_latency.Connection`), so that the client costs little next to the
server: both share this machine's cores, so the figures are a floor for the server alone.
"""
import argparse
import asyncio
import base64
import json
import statistics
import time
from urllib.parse import urlparse

from fix_latency import Connection


class AuthConnection(Connection):
    async def post_with(self, path, data, headers):
        extra = ''.join(f'{name}: {value}\r\n' for name, value in headers.items())
        head = (f'POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n{extra}'
                f'Content-Length: {len(data)}\r\n\r\n').encode()
        return await self.exchange(head + data)


async def open_all(urls):
    connections = []
    for url in urls:
        connection = AuthConnection(url.hostname, url.port or 80)
        await connection.open()
        connections.append(connection)
    return connections


def report(arguments, phase, rate, latencies):
    if arguments.json:
        p50, p90, p99, worst = percentiles(latencies)
        print(json.dumps({'phase': phase, 'rate': rate, 'requests': len(latencies), 'p50': p50, 'p90': p90, 'p99': p99, 'max': worst}))


def percentiles(samples):
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000
    return pick(0.5), pick(0.9), pick(0.99), ordered[-1] * 1000


async def make_devices(url, count):
    connection = AuthConnection(url.hostname, url.port or 80)
    await connection.open()
    tokens = []
    for index in range(count):
        status, payload = await connection.post('/api/devices', {'name': f'bench {index}'})
        assert status == 201, payload
        tokens.append(json.loads(payload)['token'])
    connection.close()
    return tokens


async def single_fixes(urls, tokens, seconds):
    """Each device posts one fix a time, back to back. Each first posts one fix untimed, which starts its live track
    (a ride starts once; its fixes then come for hours): the timing is of fixes joining a ride in progress."""
    latencies = []
    base_time = int(time.time()) - 86400  # a day back: every fix has its own second, none in the future
    ready = asyncio.Event()
    waiting = [len(tokens)]
    timing = {}

    async def device(index, token):
        connections = await open_all(urls)
        turn = index % len(connections)
        auth = 'Basic ' + base64.b64encode(f'local:{token}'.encode()).decode()
        sent = 0
        timed = False
        while not timed or time.monotonic() < timing['stop']:
            body = json.dumps({'_type': 'location', 'lat': 46.5 + sent * 1e-5, 'lon': 6.6 + index * 1e-4,
                               'tst': base_time + sent, 'batt': 80, 'acc': 5}).encode()
            connection = connections[turn]
            turn = (turn + 1) % len(connections)
            started = time.perf_counter()
            status, payload = await connection.post_with('/ingest/owntracks', body, {'Authorization': auth})
            assert status == 200 and payload == b'[]', (status, payload)
            sent += 1
            if timed:
                latencies.append(time.perf_counter() - started)
            else:
                waiting[0] -= 1
                if waiting[0] == 0:
                    timing['started'] = time.monotonic()
                    timing['stop'] = timing['started'] + seconds
                    ready.set()
                await ready.wait()
                timed = True
        for connection in connections:
            connection.close()

    await asyncio.gather(*(device(index, token) for index, token in enumerate(tokens)))
    return len(latencies) / (time.monotonic() - timing['started']), latencies


async def health_floor(urls, connections, seconds):
    """The same clients asking `GET /health` (no store, no parsing): what the HTTP stack and this client reach."""
    latencies = []
    stop = time.monotonic() + seconds

    async def client(index):
        opened = await open_all(urls)
        turn = index % len(opened)
        while time.monotonic() < stop:
            connection = opened[turn]
            turn = (turn + 1) % len(opened)
            started = time.perf_counter()
            status, _ = await connection.get('/health')
            latencies.append(time.perf_counter() - started)
            assert status == 200
        for connection in opened:
            connection.close()

    started = time.monotonic()
    await asyncio.gather(*(client(index) for index in range(connections)))
    return len(latencies) / (time.monotonic() - started), latencies


async def overland_batches(urls, tokens, seconds, clients):
    latencies = []
    stop = time.monotonic() + seconds

    async def client(index, token):
        connections = await open_all(urls)
        turn = index % len(connections)
        batch = 0
        while time.monotonic() < stop:
            first = int(time.time()) - 2 * 86400 + batch * 1000
            features = [{'type': 'Feature', 'geometry': {'type': 'Point', 'coordinates': [6.6 + i * 1e-5, 46.5 + index * 1e-3]},
                         'properties': {'timestamp': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(first + i)), 'speed': 4,
                                        'horizontal_accuracy': 5, 'altitude': 400, 'battery_level': 0.8, 'motion': ['cycling']}}
                        for i in range(1000)]
            body = json.dumps({'locations': features}).encode()
            connection = connections[turn]
            turn = (turn + 1) % len(connections)
            started = time.perf_counter()
            status, payload = await connection.post_with('/ingest/overland', body, {'Authorization': f'Bearer {token}'})
            latencies.append(time.perf_counter() - started)
            assert status == 200 and payload == b'{"result":"ok"}', (status, payload)
            batch += 1
        for connection in connections:
            connection.close()

    started = time.monotonic()
    await asyncio.gather(*(client(index, token) for index, token in enumerate(tokens[:clients])))
    return len(latencies) / (time.monotonic() - started), latencies


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--base', action='append', help='an instance (repeat for several; default http://127.0.0.1:8080)')
    parser.add_argument('--devices', type=int, default=200)
    parser.add_argument('--seconds', type=float, default=20)
    parser.add_argument('--overland-clients', type=int, default=4)
    parser.add_argument('--wrk', action='store_true',
                        help='also drive the single-fix posts with wrk (owntracks.lua): a client that costs the server less CPU')
    parser.add_argument('--phases', default='floor,single,overland', help='which phases, comma-separated')
    parser.add_argument('--json', action='store_true', help='also one line of JSON per phase')
    arguments = parser.parse_args()
    bases = arguments.base or ['http://127.0.0.1:8080']
    urls = [urlparse(base) for base in bases]
    phases = set(arguments.phases.split(','))
    if not phases <= {'floor', 'single', 'overland'}:
        parser.error('--phases: floor, single, overland')
    url = urls[0]
    arguments.base = bases[0]
    if arguments.wrk:
        if len(urls) > 1:
            parser.error('--wrk drives one instance only')
        await with_wrk(url, arguments)
    if 'floor' in phases:
        rate, latencies = await health_floor(urls, arguments.devices, arguments.seconds / 2)
        p50, _, p99, _ = percentiles(latencies)
        print(f'floor: GET /health from {arguments.devices} connections: {rate:,.0f} requests/s; p50 {p50:.1f} ms, p99 {p99:.1f} ms')
        report(arguments, 'floor', rate, latencies)
    if 'single' in phases:
        tokens = await make_devices(url, arguments.devices)
        rate, latencies = await single_fixes(urls, tokens, arguments.seconds)
        p50, p90, p99, worst = percentiles(latencies)
        print(f'single fixes, {arguments.devices} devices: {rate:,.0f} posts/s; latency p50 {p50:.1f} ms, p90 {p90:.1f} ms, '
              f'p99 {p99:.1f} ms, max {worst:.1f} ms ({len(latencies):,} posts)')
        report(arguments, 'single', rate, latencies)
    if 'overland' not in phases:
        return
    fresh = await make_devices(url, arguments.overland_clients)
    rate, latencies = await overland_batches(urls, fresh, arguments.seconds, arguments.overland_clients)
    report(arguments, 'overland', rate, latencies)
    p50, p90, p99, worst = percentiles(latencies)
    print(f'Overland 1,000-point batches, {arguments.overland_clients} clients: {rate:.1f} batches/s = {rate * 1000:,.0f} points/s; '
          f'latency p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {worst:.0f} ms ({len(latencies)} batches)')


async def with_wrk(url, arguments):
    """Single-fix posts from `--devices` devices over as many connections, by wrk (2 threads) and owntracks.lua."""
    import os
    import re
    import subprocess
    import tempfile
    tokens = await make_devices(url, arguments.devices)
    with tempfile.NamedTemporaryFile('w', suffix='.tokens', delete=False) as handle:
        for token in tokens:
            handle.write(base64.b64encode(f'local:{token}'.encode()).decode() + '\n')
        path = handle.name
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'owntracks.lua')
    environment = dict(os.environ, TOKENS_FILE=path, THREADS='2')
    output = subprocess.run(
        ['wrk', '-t2', f'-c{arguments.devices}', f'-d{int(arguments.seconds)}s', '--latency', '-s', script, arguments.base],
        env=environment, capture_output=True, text=True, check=True).stdout
    os.unlink(path)
    rate = re.search(r'Requests/sec:\s+([\d.]+)', output)
    latency = {q: re.search(rf'\s{q}%\s+([\d.]+\w+)', output) for q in ('50', '99')}
    errors = 'unexpected status' in output or 'Non-2xx' in output
    print(f'single fixes by wrk, {arguments.devices} devices: {float(rate.group(1)):,.0f} posts/s; latency p50 '
          f'{latency["50"].group(1)}, p99 {latency["99"].group(1)}{"; ERRORS: " + output if errors else ""}')


if __name__ == '__main__':
    asyncio.run(main())
