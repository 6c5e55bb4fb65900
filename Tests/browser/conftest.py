"""Browser tests of the web app: Playwright for Python driving the system's Chromium (DESIGN 4.6, 8).

The server is the real `bikeride serve` from the debug build, on a free loopback port, with a generated
MBTiles file as its offline map. Every request that leaves the machine (online map tiles) is aborted, as
CI has no network anyway. Screenshots go to Tests/browser/screenshots/.
"""
import json
import math
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(__file__).resolve().parent / 'screenshots'
START = (37.3230, -122.0322)  # De Anza Blvd and Stevens Creek Blvd, Cupertino

VIEWPORTS = {
    'phone': dict(viewport={'width': 390, 'height': 844}, device_scale_factor=2, is_mobile=True, has_touch=True),
    'desktop': dict(viewport={'width': 1280, 'height': 800}),
}


def chromium_path():
    for name in ('chromium', 'chromium-browser', 'google-chrome'):
        path = shutil.which(name)
        if path:
            return path
    pytest.exit('no system Chromium found: apt-get install chromium', returncode=1)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def start_server(work, arguments, env=None):
    """`bikeride serve` from the debug build on a free loopback port, logging to WORK/server.log: (base URL, process)."""
    binary = ROOT / '.build' / 'debug' / 'bikeride'
    if not binary.exists():
        pytest.exit(f'{binary} is missing: run swift build first', returncode=1)
    port = free_port()
    log = open(work / 'server.log', 'w')
    process = subprocess.Popen(
        [str(binary), 'serve', '--port', str(port), '--data-dir', str(work / 'data'), '--web-root', str(ROOT / 'Web'), *arguments],
        stdout=log, stderr=subprocess.STDOUT, env=None if env is None else {**os.environ, **env})
    base = f'http://127.0.0.1:{port}'
    for _ in range(100):
        try:
            urllib.request.urlopen(base + '/health', timeout=1)
            return base, process
        except OSError:
            time.sleep(0.1)
    process.kill()
    pytest.exit('the server did not start: ' + (work / 'server.log').read_text(), returncode=1)


def stop_server(process, work):
    process.terminate()
    process.wait(timeout=10)
    shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope='session')
def served():
    """The running server: its base URL, its process and its data directory."""
    work = Path(tempfile.mkdtemp(prefix='bikeride-browser-'))
    tiles = work / 'test.mbtiles'
    subprocess.run(['python3', str(Path(__file__).parent / 'make_mbtiles.py'), str(tiles)], check=True, capture_output=True)
    base, process = start_server(work, ['--tiles', str(tiles)])
    yield base, process, work / 'data'
    stop_server(process, work)


@pytest.fixture(scope='session')
def server_without_leaflet():
    """A second server, as on a machine without Debian's libjs-leaflet: its Leaflet folder is empty, so
    /vendor/leaflet/ redirects to the public copy (which the browser cannot reach: see `context_without_leaflet`)."""
    work = Path(tempfile.mkdtemp(prefix='bikeride-browser-no-leaflet-'))
    (work / 'no-leaflet').mkdir()
    base, process = start_server(work, [], env={'BIKERIDE_LEAFLET_DIR': str(work / 'no-leaflet')})
    yield base
    stop_server(process, work)


@pytest.fixture(scope='session')
def server(served):
    """The base URL of the running `bikeride serve`."""
    return served[0]


@pytest.fixture(scope='session')
def browser():
    SCREENSHOTS.mkdir(exist_ok=True)
    args = ['--no-sandbox'] if os.geteuid() == 0 else []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=args, headless=True)
        yield browser
        browser.close()


@pytest.fixture(params=list(VIEWPORTS))
def viewport(request):
    return request.param


@pytest.fixture
def context(browser, server, viewport):
    """A fresh browser profile on one viewport, with location allowed and the rider at the start."""
    context = browser.new_context(base_url=server, **VIEWPORTS[viewport])
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    context.grant_permissions(['geolocation'], origin=server)
    context.set_geolocation({'latitude': START[0], 'longitude': START[1], 'accuracy': 5})
    context.viewport_name = viewport
    yield context
    context.close()


@pytest.fixture
def context_without_leaflet(browser, server_without_leaflet, viewport):
    """As `context`, on the server without Leaflet, and with no way out of the machine: every request that is not
    for the server is aborted, and what a redirect sends elsewhere (Playwright's routes do not see redirects)
    goes to a proxy that does not exist."""
    server = server_without_leaflet
    context = browser.new_context(base_url=server, proxy={'server': 'http://127.0.0.1:9', 'bypass': '127.0.0.1'}, **VIEWPORTS[viewport])
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    context.grant_permissions(['geolocation'], origin=server)
    context.set_geolocation({'latitude': START[0], 'longitude': START[1], 'accuracy': 5})
    context.viewport_name = viewport
    yield context
    context.close()


def wait_until(page, expression, timeout=30000):
    """Waits until `expression` (JavaScript, an expression or a function) is truthy in the page.

    Playwright's `wait_for_function` evaluates its predicate with `eval` inside the page, which the app's
    Content-Security-Policy (`script-src 'self'`, no 'unsafe-eval') refuses; `page.evaluate` goes through the
    browser's debugging protocol, which the policy does not govern. So the tests run the app under its real policy."""
    deadline = time.monotonic() + timeout / 1000
    while True:
        try:
            if page.evaluate(expression):
                return
            failure = None
        except PlaywrightError as error:  # e.g. an element not there yet; the last one is reported
            failure = error
        if time.monotonic() > deadline:
            raise TimeoutError(f'not true within {timeout} ms: {expression}') from failure
        page.wait_for_timeout(50)


def shot(page, name):
    """Saves a screenshot named after the viewport and the step."""
    path = SCREENSHOTS / f'{page.context.viewport_name}-{name}.png'
    page.screenshot(path=str(path))
    return path


def api_get(server, path):
    with urllib.request.urlopen(server + path, timeout=5) as response:
        return json.loads(response.read())


# Positions along a path: metres east and north from START, on the WGS-84 radii of curvature at START.
A = 6378137.0
E2 = 6.69437999014e-3


def offset(east, north, origin=START):
    phi = math.radians(origin[0])
    meridional = A * (1 - E2) / (1 - E2 * math.sin(phi) ** 2) ** 1.5
    normal = A / math.sqrt(1 - E2 * math.sin(phi) ** 2)
    return origin[0] + math.degrees(north / meridional), origin[1] + math.degrees(east / (normal * math.cos(phi)))


def l_shaped_path(east_meters, north_meters, step):
    """East, then north, every `step` metres: a path of known length east + north."""
    points = [(d, 0.0) for d in range(step, int(east_meters) + 1, step)]
    points += [(east_meters, d) for d in range(step, int(north_meters) + 1, step)]
    return [offset(e, n) for e, n in points]
