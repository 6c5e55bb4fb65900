"""Fix-batch round trip under many concurrent recording clients, on loopback (issue 4's benchmark).

    python3 Benchmarks/load/fix_latency.py [--base http://127.0.0.1:8080 [--base URL2 ...]] [--clients 200] [--seconds 30]
        [--fixes 1] [--peer] [--json]

Each client starts a recording, then posts a batch of `--fixes` fixes once a second, as a phone does (the
clients spread evenly over the second, as phones are not in step), over
one kept-alive connection, and times each request from the first byte sent to the last byte of the answer.
A second phase drops the pacing (each client posts again as soon as it has its answer) to find the
throughput. Prints p50/p90/p99/max latency and requests per second for each phase.

Several `--base` URLs (instances of `serve` on one PostgreSQL database): each client keeps one connection to each
and sends its requests to them in turn, starting at a different one per client, as a load balancer without
sticky sessions would: a recording is started on one instance and its batches alternate between all of them.

`--json` adds one line of JSON per phase (`{"phase": ..., "requests": ..., "rate": ..., "p50": ..., ...}`, ms).

`--peer` first runs the paced phase with `GET /health` instead of the batch (same clients, same pacing, same
connections): the round trip of a request that touches no store, the floor under the batch's figure.

Plain asyncio streams with hand-written HTTP/1.1, so that the client costs little next to the server: both
share this machine's two cores.
"""
import argparse
import asyncio
import json
import statistics
import time
from urllib.parse import urlparse

START_LAT, START_LON = 37.3230, -122.0322


class Connection:
    def __init__(self, host, port):
        self.host, self.port = host, port

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def post(self, path, body):
        data = json.dumps(body).encode()
        head = (f'POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n'
                f'Content-Length: {len(data)}\r\n\r\n').encode()
        return await self.exchange(head + data)

    async def get(self, path):
        return await self.exchange(f'GET {path} HTTP/1.1\r\nHost: {self.host}\r\n\r\n'.encode())

    async def exchange(self, request):
        self.writer.write(request)
        await self.writer.drain()
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b'\r\n', b''):
                break
            name, _, value = line.decode().partition(':')
            if name.lower() == 'content-length':
                length = int(value)
        payload = await self.reader.readexactly(length)
        return status, payload

    def close(self):
        self.writer.close()


async def client(index, clients, bases, fixes_per_batch, stop_at, paced, latencies, errors, health=False):
    connections = []
    for base in bases:
        url = urlparse(base)
        connection = Connection(url.hostname, url.port or 80)
        await connection.open()
        connections.append(connection)
    # Round robin over the instances, each client starting at its own.
    turn = index % len(connections)
    status, payload = await connections[turn].post('/api/recordings', {'name': f'load {index}'})
    assert status == 201 or status == 200, (status, payload)
    recording = json.loads(payload)['id']
    if paced:
        # Phones are not in step: each client starts at its own point of the second.
        await asyncio.sleep(index / clients)
    sequence = 0
    t0 = time.time()
    while time.time() < stop_at:
        fixes = []
        for _ in range(fixes_per_batch):
            sequence += 1
            fixes.append({
                'sequence': sequence, 'latitude': START_LAT + sequence * 4e-5, 'longitude': START_LON + index * 1e-4,
                'accuracy': 5, 'time': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(t0 + sequence)),
            })
        turn = (turn + 1) % len(connections)
        connection = connections[turn]
        began = time.perf_counter()
        if health:
            status, _ = await connection.get('/health')
        else:
            status, _ = await connection.post(f'/api/recordings/{recording}/fixes', {'fixes': fixes})
        latencies.append(time.perf_counter() - began)
        if status != 200:
            errors.append(status)
        if paced:
            await asyncio.sleep(max(0, 1 - (time.perf_counter() - began)))
    for connection in connections:
        connection.close()


def summary(name, latencies, seconds, errors, as_json=False):
    ordered = sorted(latencies)
    def percentile(p):
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000
    if as_json:
        return json.dumps({'phase': name, 'requests': len(ordered), 'seconds': seconds, 'rate': len(ordered) / seconds,
                           'errors': len(errors), 'p50': percentile(50), 'p90': percentile(90), 'p99': percentile(99),
                           'max': ordered[-1] * 1000})
    return (f'{name}: {len(ordered)} requests in {seconds:.1f} s = {len(ordered) / seconds:.0f}/s, errors {len(errors)}; '
            f'latency ms p50 {percentile(50):.1f}  p90 {percentile(90):.1f}  p99 {percentile(99):.1f}  max {ordered[-1] * 1000:.1f}  '
            f'mean {statistics.mean(ordered) * 1000:.1f}')


async def phase(args, paced, seconds, health=False):
    latencies, errors = [], []
    began = time.time()
    stop_at = began + seconds
    await asyncio.gather(*(client(i, args.clients, args.base, args.fixes, stop_at, paced, latencies, errors, health) for i in range(args.clients)))
    name = 'paced, 1 batch/s per client' if paced else 'unpaced, back to back'
    if health:
        name = 'peer: GET /health, paced, 1/s per client'
    seconds = time.time() - began
    text = summary(name, latencies, seconds, errors)
    if args.json:
        text += '\n' + summary('paced' if paced and not health else 'unpaced' if not health else 'peer', latencies, seconds, errors, True)
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--base', action='append', help='an instance (repeat for several; default http://127.0.0.1:8080)')
    parser.add_argument('--clients', type=int, default=200)
    parser.add_argument('--seconds', type=float, default=30)
    parser.add_argument('--fixes', type=int, default=1)
    parser.add_argument('--peer', action='store_true', help='first the same paced load on GET /health')
    parser.add_argument('--json', action='store_true', help='also one line of JSON per phase')
    args = parser.parse_args()
    args.base = args.base or ['http://127.0.0.1:8080']
    print(f'{args.clients} clients, {args.fixes} fix(es) per batch, against {", ".join(args.base)}')
    if args.peer:
        print(asyncio.run(phase(args, True, args.seconds, health=True)))
    print(asyncio.run(phase(args, True, args.seconds)))
    print(asyncio.run(phase(args, False, min(args.seconds, 10))))


if __name__ == '__main__':
    main()
