"""Strings from data are text, never HTML (issue 20, finding 6): an MBTiles file's `attribution` and a device's
name holding markup are shown as the characters they are, in the map's attribution and in the Live tab's tooltip;
no element is made from them. The pages' Content-Security-Policy would also stop an inline handler from running;
these checks look at the DOM, so they hold without it. And the app, visited tab by tab, does nothing its policy
refuses."""
import base64
import json
import shutil
import sqlite3
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import VIEWPORTS, start_server, stop_server, wait_until

ATTRIBUTION = '<img id="from-attribution" src="x" onerror="window.pwned=1">tiles'
DEVICE = '<img id="from-device" src="x" onerror="window.pwned=2">phone'


@pytest.fixture
def hostile_server():
    work = Path(tempfile.mkdtemp(prefix='bikeride-browser-hostile-'))
    tiles = work / 'hostile.mbtiles'
    subprocess.run(['python3', str(Path(__file__).parent / 'make_mbtiles.py'), str(tiles)], check=True, capture_output=True)
    with sqlite3.connect(tiles) as database:
        database.execute("UPDATE metadata SET value = ? WHERE name = 'attribution'", (ATTRIBUTION,))
    base, process = start_server(work, ['--tiles', str(tiles)])
    yield base
    stop_server(process, work)


def post_json(base, path, body, headers=None):
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method='POST',
                                     headers={'Content-Type': 'application/json', **(headers or {})})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b'null')


def test_attribution_and_device_name_are_text(browser, hostile_server):
    base = hostile_server
    device = post_json(base, '/api/devices', {'name': DEVICE})
    basic = base64.b64encode(f"local:{device['token']}".encode()).decode()
    post_json(base, '/ingest/owntracks', {'_type': 'location', 'lat': 37.3230, 'lon': -122.0322, 'tst': int(time.time()) - 5},
              {'Authorization': 'Basic ' + basic})
    context = browser.new_context(base_url=base, **VIEWPORTS['desktop'])
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
    page = context.new_page()
    # The app runs under its own Content-Security-Policy: nothing it does is refused by it.
    refused = []
    page.on('console', lambda message: refused.append(message.text) if 'Content Security Policy' in message.text else None)
    try:
        page.goto('/')
        page.wait_for_selector('body[data-ready="true"]')
        attribution = page.locator('.leaflet-control-attribution').first
        attribution.wait_for()
        wait_until(page, "document.querySelector('.leaflet-control-attribution').textContent.includes('tiles')")
        assert ATTRIBUTION in attribution.inner_text()
        assert page.locator('#from-attribution').count() == 0

        page.goto('/#/live')
        marker = page.locator('#live-map path.leaflet-interactive[fill-opacity="1"]').first  # the device's dot, not its line
        marker.wait_for(timeout=5000)
        marker.hover()
        tooltip = page.locator('.leaflet-tooltip').first
        tooltip.wait_for(timeout=5000)
        assert DEVICE in tooltip.inner_text()
        assert page.locator('#from-device').count() == 0
        assert page.evaluate('window.pwned') is None
        for tab in ('#/tracks', '#/places', '#/settings'):
            page.goto('/' + tab)
            page.wait_for_selector('body[data-ready="true"]')
        page.wait_for_timeout(500)
        assert refused == [], refused
    finally:
        context.close()
