"""Accounts and the Live tab (issue 12): a server with accounts on, a user made with `bikeride users add`,
the login page, a device added in Settings, positions posted with curl as OwnTracks does, seen on the Live tab
within a second, and logout."""
import json
import shutil
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import ROOT, VIEWPORTS, shot, start_server, stop_server, wait_until

PASSWORD = 'correct horse battery'


@pytest.fixture
def accounts_server():
    """A server of its own per test (per viewport): its devices are this test's only."""
    work = Path(tempfile.mkdtemp(prefix='bikeride-browser-accounts-'))
    binary = ROOT / '.build' / 'debug' / 'bikeride'
    subprocess.run([str(binary), 'users', 'add', 'anna', '--password-stdin', '--data-dir', str(work / 'data')],
                   input=PASSWORD + '\n', text=True, check=True, capture_output=True)
    base, process = start_server(work, ['--accounts'])
    yield base
    stop_server(process, work)


def curl_owntracks(base, token, lat, lon, tst, battery):
    body = json.dumps({'_type': 'location', 'lat': lat, 'lon': lon, 'tst': tst, 'batt': battery, 'tid': 'ap'})
    result = subprocess.run(
        ['curl', '-s', '-u', f'anna:{token}', '-H', 'Content-Type: application/json', '-H', 'X-Limit-U: anna',
         '-H', 'X-Limit-D: phone', '-d', body, base + '/ingest/owntracks'],
        capture_output=True, text=True, check=True)
    return result.stdout


def test_login_device_live_positions_and_logout(browser, accounts_server, viewport):
    base = accounts_server
    context = browser.new_context(base_url=base, **VIEWPORTS[viewport])
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
    context.viewport_name = viewport
    page = context.new_page()
    try:
        # Without a session the app sends the browser to the login page.
        page.goto('/')
        page.wait_for_url('**/login.html*')
        page.get_by_label('Name').fill('anna')
        page.get_by_label('Password').fill('wrong password')
        page.get_by_role('button', name='Log in').click()
        page.get_by_role('alert').filter(has_text='Wrong name or password').wait_for()
        shot(page, 'login-refused')
        page.get_by_label('Password').fill(PASSWORD)
        page.get_by_role('button', name='Log in').click()
        page.wait_for_url(base + '/')
        page.wait_for_selector('body[data-ready="true"]')

        # Settings → Devices: add a device; its token and each app's settings are shown once.
        page.goto('/#/settings')
        page.get_by_label('New device').fill("Anna's phone")
        page.get_by_role('button', name='Add device').click()
        token = page.locator('#device-token').inner_text()
        assert len(token) == 43
        setup = page.get_by_role('region', name='Device setup')
        assert f'{base}/ingest/overland?token={token}' in setup.inner_text()
        assert 'OwnTracks' in setup.inner_text() and 'GPSLogger' in setup.inner_text()
        # Every control of the Devices section is a tap target of at least 44 × 44 px (issue 11's rule).
        controls = page.locator('#device-list button, #device-form button, #device-form input, #logout-button')
        assert controls.count() >= 4
        for index in range(controls.count()):
            box = controls.nth(index).bounding_box()
            assert box['width'] >= 43.5 and box['height'] >= 43.5, (controls.nth(index).inner_text(), box)
        shot(page, 'devices')

        # Each app's URL, and the token, as a QR code; a second reader (zbar) reads the URL shown beside it.
        assert page.locator('#device-setup figure.qr img').count() == 5
        qr = page.locator('section[data-app="overland"] figure.qr img')
        qr.scroll_into_view_if_needed()
        wait_until(page, "document.querySelector('section[data-app=\"overland\"] figure.qr img').naturalWidth > 0")
        assert qr.bounding_box()['width'] >= 150
        shot(page, 'devices-qr')
        if shutil.which('zbarimg'):
            picture = Path(tempfile.mkdtemp(prefix='bikeride-qr-')) / 'overland.png'
            qr.screenshot(path=str(picture))
            read = subprocess.run(['zbarimg', '--quiet', '--raw', str(picture)], capture_output=True, text=True)
            shutil.rmtree(picture.parent, ignore_errors=True)
            assert read.stdout.strip() == f'{base}/ingest/overland?token={token}', read
        else:
            warnings.warn('zbarimg is missing (apt-get install zbar-tools; scripts/test.sh installs it): the QR code was not read back')

        # Live: positions posted with curl (as OwnTracks sends them) appear within a second.
        page.goto('/#/live')
        page.wait_for_selector('#live-devices')
        now = int(time.time())
        assert curl_owntracks(base, token, 46.5197, 6.6323, now - 30, 81) == '[]'
        device = page.locator('.live-device')
        device.filter(has_text='Battery: 81 %').wait_for(timeout=3000)
        wait_until(page, "document.getElementById('live-status').textContent.startsWith('Connected')", timeout=3000)
        started = time.monotonic()
        assert curl_owntracks(base, token, 46.5210, 6.6340, now, 80) == '[]'
        device.filter(has_text='46.52100, 6.63400').wait_for(timeout=3000)
        elapsed = time.monotonic() - started
        assert elapsed < 1.0, f'the Live tab showed the position after {elapsed:.2f} s'
        assert 'Battery: 80 %' in device.inner_text()
        shot(page, 'live')
        # Five tabs fit a phone's header: Settings is not scrolled out of sight.
        assert page.evaluate("(() => { const t = document.querySelector('.tabs'); return t.scrollWidth <= t.clientWidth + 1; })()")

        # A live link for family: opens without a session, shows the position; revoked, it shows nothing.
        page.goto('/#/settings')
        page.get_by_role('button', name='Share live (4 h)').click()
        link = page.locator('#live-share-link').get_attribute('href')
        viewer = browser.new_context(base_url=base, **VIEWPORTS[viewport])
        try:
            other = viewer.new_page()
            other.goto(link)
            assert '46.52100, 6.63400' in other.content() and 'Last update' in other.content()
            # Lausanne's clock (the zone at the position), and the plain drawing where the tiles cannot come (this
            # browser reaches nothing but the server).
            assert 'Europe/Zurich)' in other.content()
            assert other.locator('.map svg circle').count() == 1
            other.context.viewport_name = viewport
            shot(other, 'live-share')
            page.get_by_role('button', name='Stop sharing').click()
            page.locator('#device-setup').wait_for(state='hidden')
            assert other.goto(link).status == 404
        finally:
            viewer.close()

        # Log out: the session ends, the app asks to log in again. With the service worker in charge (it answers
        # the app's addresses from its cache): it once answered the login page with the app, whose 401 sent it
        # back to the login page, forever.
        page.goto('/#/settings')
        wait_until(page, 'navigator.serviceWorker && navigator.serviceWorker.controller !== null', timeout=10000)
        page.get_by_role('button', name='Log out').click()
        page.wait_for_url('**/login.html*')
        expect(page.get_by_role('heading', name='Log in')).to_be_visible()
        page.wait_for_timeout(1500)
        assert page.url.endswith('/login.html'), page.url
        expect(page.locator('#login-form')).to_be_visible()
        assert page.request.get(base + '/api/tracks').status == 401
        shot(page, 'logged-out')
    finally:
        context.close()
