"""Sea-level altitudes from phone browsers (issue 24): Android's browsers report heights above the WGS-84 ellipsoid
(the W3C Geolocation definition), iOS's above sea level. The web app says which with each batch of fixes, and the
server stores heights above sea level (EGM96). The emulated GPS reports 100 m at Cupertino as an Android phone and
as an iPhone; the saved GPX holds 100 m − N for the first and 100 m for the second, N from PROJ's cs2cs."""
import re
import shutil
import subprocess
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import START, VIEWPORTS, l_shaped_path, shot
from test_record import _poll_outbox_empty, open_record, start_ride, stop_and_save

ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36'
IPHONE = ('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) '
          'Version/17.5 Mobile/15E148 Safari/604.1')
ALTITUDE = 100.0


def proj_undulation(latitude, longitude):
    """EGM96's N at a position from PROJ (WGS 84 3D heights to EGM96 heights), the independent truth."""
    cs2cs = shutil.which('cs2cs')
    if not cs2cs:
        pytest.fail('cs2cs is missing: apt-get install proj-bin proj-data (scripts/test.sh installs them)')
    answer = subprocess.run([cs2cs, '-f', '%.4f', 'EPSG:4979', 'EPSG:4326+5773'], input=f'{latitude} {longitude} 0\n',
                            capture_output=True, text=True, check=True).stdout
    undulation = -float(answer.split()[-1])
    assert undulation != 0, 'cs2cs did not apply the EGM96 grid: is proj-data installed?'
    return undulation


def gps(cdp, latitude, longitude):
    """The emulated GPS, with an altitude (Playwright's own geolocation has none): Chromium's DevTools protocol."""
    cdp.send('Emulation.setGeolocationOverride', {
        'latitude': latitude, 'longitude': longitude, 'accuracy': 5, 'altitude': ALTITUDE, 'altitudeAccuracy': 3})


@pytest.mark.parametrize('phone', ['android', 'iphone'])
def test_browser_altitudes_are_stored_above_sea_level(browser, server, phone):
    context = browser.new_context(base_url=server, user_agent=ANDROID if phone == 'android' else IPHONE, **VIEWPORTS['phone'])
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    context.grant_permissions(['geolocation'], origin=server)
    context.viewport_name = f'phone-{phone}'
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        gps(cdp, *START)
        references = []
        page.on('request', lambda request: references.append(re.search(r'"altitudeReference":"(\w+)"', request.post_data or ''))
                if request.url.endswith('/fixes') else None)
        open_record(page)
        start_ride(page)
        for latitude, longitude in l_shaped_path(60, 0, 10):
            gps(cdp, latitude, longitude)
            page.wait_for_timeout(250)
        _poll_outbox_empty(page, 15000)
        sent = {match.group(1) if match else None for match in references}
        assert sent == {'ellipsoid' if phone == 'android' else 'seaLevel'}, sent
        shot(page, 'altitude-recorded')
        stop_and_save(page)
        page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
        track_id = page.url.rsplit('/', 1)[1]
        gpx = urllib.request.urlopen(f'{server}/api/tracks/{track_id}.gpx', timeout=5).read().decode()
        elevations = [float(value) for value in re.findall(r'<ele>([-\d.]+)</ele>', gpx)]
        assert len(elevations) >= 5, gpx[:500]
        expected = ALTITUDE - proj_undulation(*START) if phone == 'android' else ALTITUDE
        # 0.06 m: the geoid grid's rounding (EGM96GeoidTests) and the GPX's written decimals; 60 m of ride moves N by
        # far less (its slope is about 1 m in 10 km).
        assert all(abs(elevation - expected) < 0.06 for elevation in elevations), (expected, elevations)
        expect(page.locator('#track-simulated')).to_be_hidden()
    finally:
        context.close()
