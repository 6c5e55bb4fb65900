"""Faults on PostgreSQL (issue 13): real `bikeride serve` processes on the throwaway cluster of scripts/test.sh,
and what a phone does — send, and send again until the answer is a success.

- an instance killed with SIGKILL in the middle of a batch: the phone sends it again to the other instance, and
  every fix is stored exactly once;
- PostgreSQL stopped for 13 s in the middle of a ride: a request waits up to 10 s for it, then is answered 503
  (never 500, never a hang); the server recovers by itself, and the phone's retries lose nothing;
- the network to the database cut (a proxy that stops passing bytes without closing anything, as a cable pulled
  or a firewall dropping packets does): a request waiting on the database is answered 503 within the
  configured deadline, and everything works again once the network is back.

Needs BIKERIDE_TEST_DATABASE_URL and BIKERIDE_TEST_POSTGRES_CTL/_DATA/_OWNER/_OPTIONS (scripts/lib/postgres.sh); skipped
without them. Run alone: source scripts/lib/install.sh; source scripts/lib/postgres.sh; start_test_postgres;
python3 -m pytest -q Tests/faults
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / '.build' / 'debug' / 'bikeride'
DATABASE_URL = os.environ.get('BIKERIDE_TEST_DATABASE_URL', '')
PG_CTL = os.environ.get('BIKERIDE_TEST_POSTGRES_CTL', '')
PG_DATA = os.environ.get('BIKERIDE_TEST_POSTGRES_DATA', '')
PG_OWNER = os.environ.get('BIKERIDE_TEST_POSTGRES_OWNER', '')
PG_OPTIONS = os.environ.get('BIKERIDE_TEST_POSTGRES_OPTIONS', '')

pytestmark = pytest.mark.skipif(
    not (DATABASE_URL and PG_CTL and PG_DATA), reason='no throwaway PostgreSQL (scripts/lib/postgres.sh sets it up)')

# Seconds a request's transaction may take before the server gives its connection up (`--database-timeout`).
DATABASE_TIMEOUT = 3
# A request is never held longer than this: the connection wait (10 s, the default connect timeout) or the
# transaction deadline, and some slack for a loaded machine.
LONGEST_ANSWER = 25
# How long the network to the database stays cut: longer than the deadline, shorter than the connection wait.
CUT_SECONDS = 9
# How long PostgreSQL stays stopped mid-ride.
OUTAGE_SECONDS = 13


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def pg_ctl(*arguments):
    command = [PG_CTL, '-D', PG_DATA, *arguments]
    if PG_OWNER:
        command = ['runuser', '-u', PG_OWNER, '--', *command]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


def with_database(url, name):
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path='/' + name))


def with_port(url, port):
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(netloc=f'{parts.username}@127.0.0.1:{port}'))


def psql(url, sql):
    psql_binary = str(Path(PG_CTL).parent / 'psql')
    if not Path(psql_binary).exists():
        psql_binary = 'psql'
    result = subprocess.run([psql_binary, '-X', '-q', '-t', '-A', '-d', url, '-c', sql],
                            check=True, capture_output=True, text=True, timeout=60)
    return result.stdout.strip()


@pytest.fixture
def database():
    """A fresh database on the test server, dropped afterwards."""
    name = 'bikeride_faults_' + uuid.uuid4().hex
    psql(DATABASE_URL, f'CREATE DATABASE {name}')
    yield with_database(DATABASE_URL, name)
    for _ in range(20):
        try:
            psql(DATABASE_URL, f'DROP DATABASE {name} WITH (FORCE)')
            break
        except subprocess.CalledProcessError:
            time.sleep(0.5)


class Instance:
    """One `bikeride serve` on a database, on a free loopback port."""

    def __init__(self, database_url, name):
        if not BINARY.exists():
            pytest.exit(f'{BINARY} is missing: run swift build first', returncode=1)
        self.work = Path(tempfile.mkdtemp(prefix=f'bikeride-fault-{name}-'))
        self.port = free_port()
        self.base = f'http://127.0.0.1:{self.port}'
        self.log_path = self.work / 'server.log'
        self.log = open(self.log_path, 'w')
        self.process = subprocess.Popen(
            [str(BINARY), 'serve', '--port', str(self.port), '--data-dir', str(self.work / 'data'),
             '--database', database_url, '--database-timeout', str(DATABASE_TIMEOUT)],
            stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(300):
            if self.process.poll() is not None:
                break
            try:
                urllib.request.urlopen(self.base + '/health', timeout=1)
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        pytest.fail('the server did not start: ' + self.log_path.read_text())

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()

    def remove(self):
        self.stop()
        shutil.rmtree(self.work, ignore_errors=True)

    def request(self, method, path, body=None, headers=None, timeout=LONGEST_ANSWER + 5):
        """(status, parsed JSON or text, seconds taken)."""
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={'Content-Type': 'application/json', **(headers or {})})
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                status, raw = answer.status, answer.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        took = time.monotonic() - started
        try:
            return status, json.loads(raw), took
        except ValueError:
            return status, raw.decode(errors='replace'), took


@pytest.fixture
def instances(database):
    made = []

    def make(name, url=None):
        instance = Instance(url or database, name)
        made.append(instance)
        return instance

    yield make
    for instance in made:
        instance.remove()


def fixes(first, last, step_degrees=0.00005):
    """Fixes with sequence numbers first…last, a second apart, heading east."""
    return {'fixes': [
        {'sequence': n, 'latitude': 46.5, 'longitude': 6.6 + n * step_degrees, 'accuracy': 5,
         'time': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(1_700_000_000 + n))}
        for n in range(first, last + 1)]}


def start_recording(instance, name):
    status, answer, _ = instance.request('POST', '/api/recordings', {'name': name})
    assert status == 201, answer
    return answer['id']


def stop_and_count(instance, recording):
    status, answer, _ = instance.request('POST', f'/api/recordings/{recording}/stop')
    assert status == 200, answer
    status, track, _ = instance.request('GET', f"/api/tracks/{answer['trackId']}")
    assert status == 200, track
    return track['pointCount']


def send_until_stored(instances, path, body, answers, give_up_after=120):
    """What a phone does: send, and on anything but a success wait a little and send again (round the instances)."""
    deadline = time.monotonic() + give_up_after
    attempt = 0
    while True:
        instance = instances[attempt % len(instances)]
        attempt += 1
        try:
            status, answer, took = instance.request('POST', path, body)
        except (OSError, urllib.error.URLError) as error:
            status, answer, took = None, str(error), None
        answers.append((status, took, time.monotonic()))
        if status == 200:
            return answer
        assert status in (None, 503), f'answered {status}: {answer}'
        assert time.monotonic() < deadline, f'not stored after {give_up_after} s: {answers[-5:]}'
        time.sleep(0.3)


def post_without_reading(instance, path, body):
    """Sends a whole request and returns without waiting for the answer (the socket stays open)."""
    payload = json.dumps(body).encode()
    connection = socket.create_connection(('127.0.0.1', instance.port))
    connection.sendall((f'POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n'
                        f'Content-Length: {len(payload)}\r\n\r\n').encode() + payload)
    return connection


def test_an_instance_killed_mid_batch_loses_nothing_and_stores_nothing_twice(instances):
    a, b = instances('a'), instances('b')
    recording = start_recording(a, 'Killed mid-batch')
    batch = 3000
    # The phone sends each batch to A; A is killed at a different moment of each; the phone sends it again to B.
    for round_index, delay in enumerate([0, 0.005, 0.02, 0.05, 0.15]):
        first = round_index * batch + 1
        body = fixes(first, first + batch - 1)
        connection = post_without_reading(a, f'/api/recordings/{recording}/fixes', body)
        time.sleep(delay)
        a.kill()
        connection.close()
        answer = send_until_stored([b], f'/api/recordings/{recording}/fixes', body, [])
        assert answer['stored'] + answer['duplicates'] == batch, answer
        a.remove()
        a = instances(f'a{round_index}')
    assert stop_and_count(b, recording) == 5 * batch


def test_an_overland_batch_whose_instance_is_killed_is_stored_once_when_sent_again(instances, database):
    a, b = instances('a'), instances('b')
    added = subprocess.run([str(BINARY), 'devices', 'add', 'Phone', '--user', 'local', '--json', '--database', database],
                           check=True, capture_output=True, text=True, timeout=60)
    token = json.loads(added.stdout)['token']
    base = int(time.time()) - 7200
    locations = [{'type': 'Feature', 'geometry': {'type': 'Point', 'coordinates': [6.6, 46.5 + i * 0.00001]},
                  'properties': {'timestamp': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(base + i)),
                                 'horizontal_accuracy': 5}} for i in range(1000)]
    path = f'/ingest/overland?token={token}'
    connection = post_without_reading(a, path, {'locations': locations})
    time.sleep(0.01)
    a.kill()
    connection.close()
    status, answer, _ = b.request('POST', path, {'locations': locations})
    assert (status, answer) == (200, {'result': 'ok'})
    # And once more, as Overland does when an answer is lost.
    status, answer, _ = b.request('POST', path, {'locations': locations})
    assert (status, answer) == (200, {'result': 'ok'})
    assert psql(database, 'SELECT count(*) FROM device_fixes') == '1000'


class Phone:
    """A ride in progress: batches of 10 fixes, one every 0.2 s, each sent until it is stored, until `finish`."""

    def __init__(self, instance, recording):
        self.instance = instance
        self.recording = recording
        self.answers = []
        self.failures = []
        self.sent = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.ride)
        self.thread.start()

    def ride(self):
        try:
            while not self.stopping.is_set():
                n = self.sent
                send_until_stored([self.instance], f'/api/recordings/{self.recording}/fixes', fixes(n * 10 + 1, n * 10 + 10),
                                  self.answers)
                self.sent += 1
                time.sleep(0.2)
        except BaseException as error:  # noqa: B902 — reported by finish
            self.failures.append(error)

    def finish(self, after_seconds):
        """Rides on for `after_seconds` more, stops, and returns how many batches were stored."""
        time.sleep(after_seconds)
        self.stopping.set()
        self.thread.join(timeout=180)
        assert not self.thread.is_alive(), 'the phone never finished its ride'
        assert not self.failures, self.failures[0]
        return self.sent


def test_postgres_restarted_mid_ride_answers_503_and_recovers_by_itself(instances):
    a = instances('a')
    recording = start_recording(a, 'Through a restart')
    phone = Phone(a, recording)
    time.sleep(1.5)
    pg_ctl('stop', '-m', 'immediate', '-w')
    # Longer than a request waits for a connection (10 s): a shorter outage is only a slower answer.
    time.sleep(OUTAGE_SECONDS)
    pg_ctl('start', '-w', '-t', '60', '-l', str(Path(PG_DATA).parent / 'server.log'), '-o', PG_OPTIONS)
    sent = phone.finish(after_seconds=2)
    statuses = [status for status, _, _ in phone.answers]
    assert 503 in statuses, f'PostgreSQL was down for {OUTAGE_SECONDS} s and nothing was answered 503: {statuses}'
    assert max(took for _, took, _ in phone.answers if took is not None) < LONGEST_ANSWER
    assert stop_and_count(a, recording) == sent * 10


class CuttableProxy:
    """A TCP proxy to PostgreSQL whose `cut()` stops every byte both ways and holds every connection open, new
    ones too, as a network that silently drops packets does; `heal()` lets bytes through again."""

    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.listener = socket.socket()
        self.listener.bind(('127.0.0.1', 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.flowing = threading.Event()
        self.flowing.set()
        self.closed = False
        threading.Thread(target=self.accept, daemon=True).start()

    def cut(self):
        self.flowing.clear()

    def heal(self):
        self.flowing.set()

    def close(self):
        self.closed = True
        self.flowing.set()
        self.listener.close()

    def accept(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.connect, args=(client,), daemon=True).start()

    def connect(self, client):
        self.flowing.wait()
        try:
            server = socket.create_connection(('127.0.0.1', self.upstream_port))
        except OSError:
            client.close()
            return
        threading.Thread(target=self.pump, args=(client, server), daemon=True).start()
        threading.Thread(target=self.pump, args=(server, client), daemon=True).start()

    def pump(self, source, target):
        try:
            while True:
                self.flowing.wait()
                data = source.recv(65536)
                if not data:
                    break
                self.flowing.wait()
                target.sendall(data)
        except OSError:
            pass
        for end in (source, target):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()


def test_a_network_cut_to_the_database_is_answered_503_within_the_deadline_and_heals(instances, database):
    proxy = CuttableProxy(urllib.parse.urlsplit(database).port)
    try:
        a = instances('a', with_port(database, proxy.port))
        recording = start_recording(a, 'Through a network cut')
        phone = Phone(a, recording)
        time.sleep(1.5)
        proxy.cut()
        cut_at = time.monotonic()
        time.sleep(CUT_SECONDS)
        healed_at = time.monotonic()
        proxy.heal()
        sent = phone.finish(after_seconds=2)
        answers = phone.answers
        # The request waiting on the database when the network went is answered 503 at its deadline, while the
        # network is still cut (not when it comes back).
        during = [(status, finished - cut_at) for status, _, finished in answers if cut_at < finished < healed_at]
        assert any(status == 503 and after < DATABASE_TIMEOUT + 4 for status, after in during), \
            f'no 503 within {DATABASE_TIMEOUT} s of the cut: {during}'
        assert max(took for _, took, _ in answers if took is not None) < LONGEST_ANSWER
        assert stop_and_count(a, recording) == sent * 10
    finally:
        proxy.close()
