"""Privacy zones and ride links (issue 23): a zone set on the Settings map (tap, radius slider), a ride shared from
its track page, and the link opened in a fresh browser context without a session: the page shows the ride, its
figures and profiles, and no point of the ride inside the zone."""
import json
import math
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT, VIEWPORTS, shot, start_server, stop_server, wait_until

PASSWORD = 'correct horse battery'


@pytest.fixture
def accounts_server():
    work = Path(tempfile.mkdtemp(prefix='bikeride-browser-privacy-'))
    binary = ROOT / '.build' / 'debug' / 'bikeride'
    subprocess.run([str(binary), 'users', 'add', 'anna', '--password-stdin', '--data-dir', str(work / 'data')],
                   input=PASSWORD + '\n', text=True, check=True, capture_output=True)
    base, process = start_server(work, ['--accounts'])
    yield base
    stop_server(process, work)


def meters(a, b):
    """Haversine on the mean radius: within 0.5 % of the ellipsoid, far inside the margins checked below."""
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dp, dl = p2 - p1, math.radians(b[1] - a[1])
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(h))


def ride_gpx(start):
    """3 km east from `start`, a point every 10 m at 5 m/s."""
    points = []
    for i in range(301):
        lon = start[1] + (i * 10) / (111320 * math.cos(math.radians(start[0])))
        points.append(f'<trkpt lat="{start[0]:.7f}" lon="{lon:.7f}"><ele>{100 + i % 30}</ele>'
                      f'<time>2026-05-01T08:{i * 2 // 60:02d}:{i * 2 % 60:02d}Z</time></trkpt>')
    return ('<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">'
            '<trk><name>Morning &lt;ride&gt;</name><trkseg>' + ''.join(points) + '</trkseg></trk></gpx>')


def test_zone_on_the_map_share_a_ride_and_open_it_without_a_session(browser, accounts_server, viewport):
    base = accounts_server
    context = browser.new_context(base_url=base, **VIEWPORTS[viewport])
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
    context.viewport_name = viewport
    page = context.new_page()
    try:
        page.goto('/login.html')
        page.get_by_label('Name').fill('anna')
        page.get_by_label('Password').fill(PASSWORD)
        page.get_by_role('button', name='Log in').click()
        page.wait_for_url(base + '/')
        page.wait_for_selector('body[data-ready="true"]')

        # Settings: tap the map, widen the circle with the slider, add it.
        page.goto('/#/settings')
        zone_map = page.locator('#privacy-map')
        zone_map.scroll_into_view_if_needed()
        wait_until(page, "document.querySelector('#privacy-map .leaflet-tile-pane') !== null")
        box = zone_map.bounding_box()
        page.mouse.click(box['x'] + box['width'] / 2, box['y'] + box['height'] / 2)
        wait_until(page, "!document.getElementById('privacy-add').disabled")
        page.locator('#privacy-radius').fill('500')
        page.get_by_label('Zone name').fill('Home <b>')
        page.get_by_role('button', name='Add zone').click()
        page.locator('#privacy-zones li').filter(has_text='Home <b>').wait_for()
        wait_until(page, "document.querySelectorAll('#privacy-map path.leaflet-interactive').length >= 1")
        shot(page, 'privacy-zone')
        zones = page.evaluate("fetch('/api/privacy-zones').then((r) => r.json())")
        assert len(zones['zones']) == 1 and zones['zones'][0]['radiusMeters'] == 500
        centre = (zones['zones'][0]['latitude'], zones['zones'][0]['longitude'])

        # A ride that starts at the zone's centre, shared from its track page.
        answer = page.request.post(base + '/api/tracks?name=ride.gpx', data=ride_gpx(centre),
                                   headers={'Origin': base, 'Content-Type': 'application/octet-stream'})
        assert answer.status == 201, answer.text()
        track_id = answer.json()['tracks'][0]['id']
        page.goto(f'/#/tracks/{track_id}')
        page.locator('#track-share summary').click()
        page.get_by_label('Hide the date and time').check()
        page.get_by_role('button', name='Create link').click()
        link = page.locator('#track-share-link')
        link.wait_for()
        url = link.get_attribute('href')
        assert '/ride/' in url
        shot(page, 'track-share')

        # Settings lists it with Revoke.
        page.goto('/#/settings')
        page.locator('#shared-links li').filter(has_text='Ride: Morning <ride>').wait_for()

        # A fresh browser context: no session, no cookie.
        stranger = browser.new_context(**VIEWPORTS[viewport])
        stranger.route('**/*', lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
        stranger.viewport_name = viewport
        try:
            assert stranger.cookies() == []
            visitor = stranger.new_page()
            response = visitor.goto(url)
            assert response.status == 200
            assert response.headers.get('referrer-policy') == 'no-referrer'
            assert visitor.locator('h1').inner_text() == 'Morning <ride>'
            assert visitor.locator('svg.line polyline').count() >= 1
            assert visitor.get_by_text('Distance').count() == 1
            assert '2026' not in visitor.content()  # the date is hidden
            shot(visitor, 'ride-link-stranger')
            shown = json.loads(visitor.request.get(url + '.json').text())
            points = [(p['latitude'], p['longitude']) for segment in shown['segments'] for p in segment]
            assert points and all(meters(centre, p) > 500 * 1.005 for p in points)
            assert all(p.get('time') is None for segment in shown['segments'] for p in segment)
        finally:
            stranger.close()

        # Revoked from Settings: the stranger's link is gone.
        page.locator('#shared-links li').filter(has_text='Morning').get_by_role('button', name='Revoke').click()
        page.get_by_text('Nothing shared.').wait_for()
        assert page.request.get(url).status == 404
    finally:
        context.close()
