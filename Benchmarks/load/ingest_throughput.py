"""Phone-app posts per second (issue 12's benchmark): single-fix OwnTracks posts from many devices, and
Overland batches of 1,000 points, on loopback against `bikeride serve` (accounts off, so the devices are the
local user's; the token check is the same either way).

    python3 Benchmarks/load/ingest_throughput.py [--base http://127.0.0.1:8080] [--devices 200] [--seconds 20]
        [--overland-clients 4]

Phase 1: each device posts one fix (`_type: location`, a new time each) as soon as it has its answer, over one
kept-alive connection; every post is stored durably before it is answered (the store's default `synchronous =
FULL`, one transaction per post). Prints posts/s and p50/p90/p99/max latency.
Phase 2: `--overland-clients` clients post 1,000-point batches back to back: batches/s and points/s, with latency.

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


def percentiles(samples):
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000
    return pick(0.5), pick(0.9), pick(0.99), ordered[-1] * 1000


async def make_devices(host, port, count):
    connection = AuthConnection(host, port)
    await connection.open()
    tokens = []
    for index in range(count):
        status, payload = await connection.post('/api/devices', {'name': f'bench {index}'})
        assert status == 201, payload
        tokens.append(json.loads(payload)['token'])
    connection.close()
    return tokens


async def single_fixes(host, port, tokens, seconds):
    latencies = []
    stop = time.monotonic() + seconds
    base_time = int(time.time()) - 86400  # a day back: every fix has its own second, none in the future

    async def device(index, token):
        connection = AuthConnection(host, port)
        await connection.open()
        auth = 'Basic ' + base64.b64encode(f'local:{token}'.encode()).decode()
        sent = 0
        while time.monotonic() < stop:
            body = json.dumps({'_type': 'location', 'lat': 46.5 + sent * 1e-5, 'lon': 6.6 + index * 1e-4,
                               'tst': base_time + sent, 'batt': 80, 'acc': 5}).encode()
            started = time.perf_counter()
            status, payload = await connection.post_with('/ingest/owntracks', body, {'Authorization': auth})
            latencies.append(time.perf_counter() - started)
            assert status == 200 and payload == b'[]', (status, payload)
            sent += 1
        connection.close()

    started = time.monotonic()
    await asyncio.gather(*(device(index, token) for index, token in enumerate(tokens)))
    return len(latencies) / (time.monotonic() - started), latencies


async def health_floor(host, port, connections, seconds):
    """The same clients asking `GET /health` (no store, no parsing): what the HTTP stack and this client reach."""
    latencies = []
    stop = time.monotonic() + seconds

    async def client():
        connection = AuthConnection(host, port)
        await connection.open()
        while time.monotonic() < stop:
            started = time.perf_counter()
            status, _ = await connection.get('/health')
            latencies.append(time.perf_counter() - started)
            assert status == 200
        connection.close()

    started = time.monotonic()
    await asyncio.gather(*(client() for _ in range(connections)))
    return len(latencies) / (time.monotonic() - started), latencies


async def overland_batches(host, port, tokens, seconds, clients):
    latencies = []
    stop = time.monotonic() + seconds

    async def client(index, token):
        connection = AuthConnection(host, port)
        await connection.open()
        batch = 0
        while time.monotonic() < stop:
            first = int(time.time()) - 2 * 86400 + batch * 1000
            features = [{'type': 'Feature', 'geometry': {'type': 'Point', 'coordinates': [6.6 + i * 1e-5, 46.5 + index * 1e-3]},
                         'properties': {'timestamp': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(first + i)), 'speed': 4,
                                        'horizontal_accuracy': 5, 'altitude': 400, 'battery_level': 0.8, 'motion': ['cycling']}}
                        for i in range(1000)]
            body = json.dumps({'locations': features}).encode()
            started = time.perf_counter()
            status, payload = await connection.post_with('/ingest/overland', body, {'Authorization': f'Bearer {token}'})
            latencies.append(time.perf_counter() - started)
            assert status == 200 and payload == b'{"result":"ok"}', (status, payload)
            batch += 1
        connection.close()

    started = time.monotonic()
    await asyncio.gather(*(client(index, token) for index, token in enumerate(tokens[:clients])))
    return len(latencies) / (time.monotonic() - started), latencies


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--base', default='http://127.0.0.1:8080')
    parser.add_argument('--devices', type=int, default=200)
    parser.add_argument('--seconds', type=float, default=20)
    parser.add_argument('--overland-clients', type=int, default=4)
    arguments = parser.parse_args()
    url = urlparse(arguments.base)
    rate, latencies = await health_floor(url.hostname, url.port, arguments.devices, arguments.seconds / 2)
    p50, _, p99, _ = percentiles(latencies)
    print(f'floor: GET /health from {arguments.devices} connections: {rate:,.0f} requests/s; p50 {p50:.1f} ms, p99 {p99:.1f} ms')
    tokens = await make_devices(url.hostname, url.port, arguments.devices)
    rate, latencies = await single_fixes(url.hostname, url.port, tokens, arguments.seconds)
    p50, p90, p99, worst = percentiles(latencies)
    print(f'single fixes, {arguments.devices} devices: {rate:,.0f} posts/s; latency p50 {p50:.1f} ms, p90 {p90:.1f} ms, '
          f'p99 {p99:.1f} ms, max {worst:.1f} ms ({len(latencies):,} posts)')
    fresh = await make_devices(url.hostname, url.port, arguments.overland_clients)
    rate, latencies = await overland_batches(url.hostname, url.port, fresh, arguments.seconds, arguments.overland_clients)
    p50, p90, p99, worst = percentiles(latencies)
    print(f'Overland 1,000-point batches, {arguments.overland_clients} clients: {rate:.1f} batches/s = {rate * 1000:,.0f} points/s; '
          f'latency p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {worst:.0f} ms ({len(latencies)} batches)')


if __name__ == '__main__':
    asyncio.run(main())
