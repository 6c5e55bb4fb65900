"""Uploads stream (issue 4): the real `bikeride serve` takes a track file of tens of MB with its memory
growing by a small fraction of the file's size, because the body goes to a file as it arrives and is read
back as a stream. Not a browser test, but it needs the real server process, which this harness runs."""
import json
import subprocess
import urllib.request

from conftest import ROOT


def peak_resident_kb(pid):
    """The process's peak resident memory so far (VmHWM), in KiB."""
    with open(f'/proc/{pid}/status') as status:
        for line in status:
            if line.startswith('VmHWM:'):
                return int(line.split()[1])
    raise AssertionError('no VmHWM in /proc')


def generate(points, path, seed):
    output = subprocess.run(
        ['python3', str(ROOT / 'Benchmarks' / 'generate_ride.py'), str(points), str(path), f'--seed={seed}'],
        check=True, capture_output=True, text=True).stdout
    return json.loads(next(line for line in output.splitlines() if line.startswith('{')))


def upload(server, path, name, chunked=False):
    """POSTs the file with curl, which streams it from the disk and reads an early answer (a 413 before the
    body is sent); returns (status, answer). `chunked` sends no length, so the server has to count."""
    headers = ['-H', 'Content-Type: application/gpx+xml']
    if chunked:
        headers += ['-H', 'Transfer-Encoding: chunked']
    result = subprocess.run(
        ['curl', '-sS', '-X', 'POST', *headers, '--data-binary', f'@{path}', '-w', '\n%{http_code}',
         f'{server}/api/tracks?name={name}'],
        check=True, capture_output=True, text=True, timeout=600)
    body, _, status = result.stdout.rpartition('\n')
    return int(status), json.loads(body)


def test_a_large_upload_does_not_grow_the_servers_memory_with_its_size(served, tmp_path):
    server, process, data = served
    small, large = tmp_path / 'small.gpx', tmp_path / 'large.gpx'
    generate(5_000, small, seed=1)
    truth = generate(180_000, large, seed=2)
    size_mb = large.stat().st_size / (1 << 20)
    assert size_mb > 55, size_mb

    # A first upload, so that the import's own machinery (threads, caches, SQLite's pages) is in place.
    status, _ = upload(server, small, 'small.gpx')
    assert status == 201
    before = peak_resident_kb(process.pid)
    status, answer = upload(server, large, 'large.gpx')
    after = peak_resident_kb(process.pid)
    assert status == 201, answer
    track = answer['tracks'][0]
    assert track['pointCount'] == 180_000
    assert abs(track['distanceMeters'] - truth['trueDistanceMeters']) / truth['trueDistanceMeters'] < 0.01

    grown_mb = (after - before) / 1024
    print(f'peak resident memory grew by {grown_mb:.1f} MiB for a {size_mb:.1f} MiB upload')
    # Holding the body (let alone a copy of it) would take the whole file size at least. What does grow with the
    # track is derived from it: its packed points (~10 B a point) and, since the best efforts, their series of
    # cumulative distance and time (~40 B a point, 7 MiB here): under half the file, far from holding it.
    assert grown_mb < size_mb / 2, f'grew by {grown_mb:.1f} MiB for a {size_mb:.1f} MiB upload'
    assert not list((data / '.uploads').glob('*')), 'the upload\'s file was not removed'


def test_an_oversize_upload_is_refused_and_leaves_nothing(served, tmp_path):
    server, process, data = served
    big = tmp_path / 'big.gpx'
    with open(big, 'wb') as file:
        file.write(b'<?xml version="1.0"?>\n<gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1">\n')
        file.truncate(100 << 20)
    before = json.loads(urllib.request.urlopen(f'{server}/api/tracks?limit=200').read())['tracks']
    # With its length announced (refused before a byte is read), and without (refused at 64 MiB).
    for chunked in (False, True):
        status, answer = upload(server, big, 'big.gpx', chunked=chunked)
        assert status == 413, answer
        assert answer['error']['code'] == 'body_too_large'
    after = json.loads(urllib.request.urlopen(f'{server}/api/tracks?limit=200').read())['tracks']
    assert [t['id'] for t in after] == [t['id'] for t in before]
    assert not list((data / '.uploads').glob('*'))
