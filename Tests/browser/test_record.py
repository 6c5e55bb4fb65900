"""The Record tab, on a phone and a desktop viewport: permission, the blue dot, a ride of known length drawn
as a red line, follow mode, map types, offline and reload in the middle of a ride, Stop."""
import re

import pytest
from playwright.sync_api import expect

from conftest import START, VIEWPORTS, api_get, l_shaped_path, shot, wait_until

OUTBOX_SIZE = """() => new Promise((resolve, reject) => {
  const open = indexedDB.open('bikeride');
  open.onsuccess = () => {
    const request = open.result.transaction('outbox').objectStore('outbox').count();
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  };
  open.onerror = () => reject(open.error);
})"""

CURRENT = """() => new Promise((resolve) => {
  const open = indexedDB.open('bikeride');
  open.onsuccess = () => {
    const request = open.result.transaction('meta').objectStore('meta').get('current');
    request.onsuccess = () => resolve(request.result ? request.result.recording : null);
  };
})"""


def open_record(page):
    page.goto('/#/record')
    page.wait_for_selector('body[data-ready="true"]')
    page.wait_for_selector('path.me-dot')


def start_ride(page):
    page.get_by_role('button', name='Start').click()
    page.wait_for_selector('body[data-recording-state="recording"]')


def stop_and_save(page):
    """Stop, then Save in the finish step (Stop alone pauses and asks Save / Discard / Resume)."""
    page.get_by_role('button', name='Stop').click()
    page.get_by_role('group', name='Finish this ride?').get_by_role('button', name='Save').click()


def ride(context, page, points, pause_ms=250):
    """Moves the emulated GPS through `points`, giving the page time to take each fix."""
    for latitude, longitude in points:
        context.set_geolocation({'latitude': latitude, 'longitude': longitude, 'accuracy': 5})
        page.wait_for_timeout(pause_ms)





def _poll_outbox_empty(page, timeout_ms):
    waited = 0
    while page.evaluate(OUTBOX_SIZE) != 0:
        page.wait_for_timeout(200)
        waited += 200
        assert waited < timeout_ms, 'the outbox did not drain'


def path_points(page):
    return int(page.get_attribute('#record-map', 'data-path-points') or 0)


def distance_meters(page):
    return float(page.get_attribute('#stat-distance', 'data-meters') or 0)


def test_permission_granted_shows_the_blue_dot(context):
    page = context.new_page()
    open_record(page)
    dot = page.locator('path.me-dot')
    expect(dot).to_be_visible()
    expect(page.locator('path.me-accuracy')).to_have_count(1)
    expect(page.get_by_role('alert')).to_be_hidden()
    # The dot is blue, and the map shows the offline tiles around it.
    assert dot.get_attribute('fill') == '#1a73e8'
    expect(page.locator('.layer-offline img.leaflet-tile-loaded').first).to_be_visible()
    shot(page, 'blue-dot')


def test_denied_permission_shows_a_clear_message(browser, server, viewport):
    from conftest import VIEWPORTS
    context = browser.new_context(base_url=server, **VIEWPORTS[viewport])
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    context.viewport_name = viewport
    page = context.new_page()
    page.goto('/#/record')
    page.wait_for_selector('body[data-ready="true"]')
    prompt = page.get_by_role('region', name='Location permission')
    expect(prompt).to_be_visible()
    expect(prompt).to_contain_text('needs your location')
    shot(page, 'permission-prompt')
    page.get_by_role('button', name='Use my location').click()
    alert = page.get_by_role('alert')
    expect(alert).to_be_visible()
    expect(alert).to_contain_text('Location access is blocked')
    shot(page, 'permission-denied')
    context.close()


def test_a_ride_of_known_length_is_drawn_as_a_red_line_and_measured(context):
    page = context.new_page()
    open_record(page)
    start_ride(page)
    path = l_shaped_path(300, 300, 10)  # 600 m
    ride(context, page, path[:20])
    _poll_outbox_empty(page, 15000)
    line = page.locator('path.ride-path')
    expect(line).to_have_count(1)
    assert line.get_attribute('stroke') == '#ff0000'
    assert line.get_attribute('stroke-width') == '3'
    first_count = path_points(page)
    first_length = len(line.get_attribute('d'))
    assert first_count >= 15
    shot(page, 'ride-midway')
    ride(context, page, path[20:])
    _poll_outbox_empty(page, 15000)
    assert path_points(page) > first_count, 'the red line grows'
    assert len(line.get_attribute('d')) > first_length
    measured = distance_meters(page)
    assert abs(measured - 600) / 600 < 0.02, f'distance {measured} m for a 600 m ride'
    expect(page.locator('#stat-distance')).to_have_text(re.compile(r'^(5[89]\d|60\d|61\d) m$'))
    # Breadcrumbs every 50 m or so: 600 m gives about a dozen, each titled "(longitude, latitude)".
    crumbs = page.locator('.breadcrumb-icon')
    assert 9 <= crumbs.count() <= 13, crumbs.count()
    assert re.match(r'^\(-122\.\d{5}, 37\.\d{5}\) ', crumbs.first.get_attribute('title'))
    shot(page, 'ride-done')

    page.get_by_role('button', name='Pause').click()
    expect(page.get_by_role('button', name='Resume')).to_be_visible()
    page.get_by_role('button', name='Resume').click()
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    expect(page.get_by_role('heading', level=2)).to_contain_text('Ride ')
    expect(page.locator('#track-stats')).to_contain_text('Distance')
    expect(page.locator('#track-map path.leaflet-interactive').first).to_be_visible()
    expect(page.locator('#track-map img.leaflet-tile-loaded').first).to_be_visible()
    # The speed profile against distance (the emulated GPS gives no altitude, so no elevation profile).
    expect(page.get_by_role('img', name=re.compile(r'^Speed from .* over (5[89]\d|6\d\d) m$'))).to_be_visible()
    page.wait_for_timeout(500)  # Leaflet fades tiles in
    shot(page, 'track-after-stop')
    page.get_by_role('link', name='← All tracks').click()
    row = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').first
    expect(row).to_contain_text('Ride ')
    expect(row.locator('svg.shape path')).to_have_count(1)
    shot(page, 'tracks-after-stop')


def test_elapsed_time_starts_at_start_not_at_the_last_fix_before_it(context):
    # The phone sits on the Record tab with a fix for several seconds, then the rider presses Start.
    page = context.new_page()
    open_record(page)
    page.wait_for_timeout(6000)
    start_ride(page)
    page.wait_for_timeout(1500)
    text = page.locator('#stat-time').inner_text()
    minutes, seconds = text.split(':')[-2:]
    assert int(minutes) == 0 and int(seconds) <= 3, text


def test_panning_stops_follow_mode_and_the_button_brings_it_back(context):
    page = context.new_page()
    open_record(page)
    start_ride(page)
    path = l_shaped_path(200, 0, 10)
    ride(context, page, path[:5])
    _poll_outbox_empty(page, 15000)
    follow = page.get_by_role('button', name='Follow my position')
    expect(follow).to_have_attribute('aria-pressed', 'true')

    box = page.locator('#record-map').bounding_box()
    x, y = box['x'] + box['width'] / 2, box['y'] + box['height'] / 3
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 150, y - 120, steps=8)
    page.mouse.up()
    expect(follow).to_have_attribute('aria-pressed', 'false')
    page.wait_for_timeout(1000)  # Leaflet's inertia carries the map on a little after the finger lifts
    centre_after_pan = page.evaluate("() => document.querySelector('.leaflet-map-pane').style.transform")
    ride(context, page, path[5:10])
    _poll_outbox_empty(page, 15000)
    assert page.evaluate("() => document.querySelector('.leaflet-map-pane').style.transform") == centre_after_pan, \
        'the map stays where the user put it'
    shot(page, 'follow-off')

    follow.click()
    expect(follow).to_have_attribute('aria-pressed', 'true')
    # Following again: the rider's dot is back near the middle of the map the panel leaves visible.
    dot = page.locator('path.me-dot').bounding_box()
    dot_x, dot_y = dot['x'] + dot['width'] / 2, dot['y'] + dot['height'] / 2
    panel = page.locator('.record-panel').bounding_box()
    # A panel across the bottom (a phone) leaves the map above it; a narrower one (desktop, bottom left) the whole map.
    visible_bottom = min(box['y'] + box['height'], panel['y']) if panel['width'] > box['width'] * 0.6 else box['y'] + box['height']
    assert abs(dot_x - (box['x'] + box['width'] / 2)) < box['width'] * 0.2
    assert abs(dot_y - (box['y'] + visible_bottom) / 2) < (visible_bottom - box['y']) * 0.2
    shot(page, 'follow-on')

    # Zooming is taking over too.
    page.get_by_role('button', name='Zoom in').click()
    expect(follow).to_have_attribute('aria-pressed', 'false')
    follow.click()
    expect(follow).to_have_attribute('aria-pressed', 'true')


def test_map_types_switch(context):
    """The map type is behind a layers button (not a panel always open over the map); choosing one closes it."""
    page = context.new_page()
    open_record(page)
    group = page.get_by_role('group', name='Map type')
    layers = page.get_by_role('button', name='Map type')
    expect(group).to_be_hidden()
    for name, layer in [('Satellite', '.layer-satellite'), ('Hybrid', '.layer-labels'), ('Standard', '.layer-standard')]:
        layers.click()
        expect(layers).to_have_attribute('aria-expanded', 'true')
        group.get_by_label(name).check()
        expect(group).to_be_hidden()
        expect(page.locator('#record-map')).to_have_attribute('data-map-type', name.lower())
        expect(page.locator(layer)).to_have_count(1)
        expect(page.locator(f'input[name="map-type"][value="{name.lower()}"]')).to_be_checked()
    expect(page.locator('.layer-satellite')).to_have_count(0)
    layers.click()
    shot(page, 'map-type-open')
    group.get_by_label('Satellite').check()
    shot(page, 'map-type-satellite')


def test_offline_mid_ride_every_fix_is_stored_exactly_once(context, server):
    page = context.new_page()
    open_record(page)
    start_ride(page)
    path = l_shaped_path(250, 150, 10)  # 400 m
    ride(context, page, path[:10])
    _poll_outbox_empty(page, 15000)
    context.set_offline(True)
    ride(context, page, path[10:30])
    expect(page.get_by_role('status').filter(has_text='Offline')).to_be_visible()
    waiting = page.evaluate(OUTBOX_SIZE)
    assert waiting >= 15, waiting
    shot(page, 'offline-queue')
    context.set_offline(False)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    _poll_outbox_empty(page, 20000)
    ride(context, page, path[30:])
    _poll_outbox_empty(page, 15000)

    current = page.evaluate(CURRENT)
    taken = current['nextSequence'] - 1
    stored = api_get(server, f"/api/recordings/{current['id']}")
    assert stored['lastSequence'] == taken
    assert stored['stats']['pointCount'] == taken, 'each fix stored once: none lost, none twice'
    assert sum(len(segment['points']) for segment in stored['path']) == taken
    assert abs(stored['stats']['distanceMeters'] - 400) / 400 < 0.02
    shot(page, 'back-online')


def test_a_ride_started_offline_is_saved_with_every_fix_once(context, server):
    """No network from before Start: the ride, a pause and a resume are queued on the device under its own id,
    sent in order when the network is back, and Stop saves the track with each fix exactly once."""
    page = context.new_page()
    open_record(page)
    context.set_offline(True)
    start_ride(page)
    path = l_shaped_path(200, 100, 10)
    ride(context, page, path[:12])  # 120 m east of the start
    page.get_by_role('button', name='Pause').click()
    page.wait_for_selector('body[data-recording-state="paused"]')
    page.wait_for_timeout(500)
    page.get_by_role('button', name='Resume').click()
    page.wait_for_selector('body[data-recording-state="recording"]')
    ride(context, page, path[12:20])
    expect(page.get_by_role('status').filter(has_text='Offline')).to_be_visible()
    # The start, every fix taken (the one at Start and one a move), Pause and Resume: nothing has left the device.
    queued_fixes = page.evaluate(CURRENT)['nextSequence'] - 1
    assert queued_fixes >= 21
    assert page.evaluate(OUTBOX_SIZE) == 1 + queued_fixes + 2
    expect(page.locator('path.pending-path')).to_have_count(1)
    shot(page, 'offline-start')

    context.set_offline(False)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    _poll_outbox_empty(page, 30000)
    ride(context, page, path[20:])
    _poll_outbox_empty(page, 15000)
    current = page.evaluate(CURRENT)
    taken = current['nextSequence'] - 1
    stored = api_get(server, f"/api/recordings/{current['id']}")
    assert stored['clientId'] == current['id']
    assert stored['lastSequence'] == taken
    assert stored['stats']['pointCount'] == taken, 'each fix stored once: none lost, none twice'
    assert len(stored['path']) == 2, 'the pause split the ride in two segments'
    # 120 m before the pause, then from 130 m east: 70 m east and 100 m north (the step over the pause is no ride).
    assert abs(stored['stats']['distanceMeters'] - 290) / 290 < 0.02
    expect(page.locator('path.ride-path')).to_have_count(2)

    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[0-9A-Z]{8}$'), timeout=20000)
    track_id = page.url.rsplit('/', 1)[-1]
    # The saved ride, named by the server from the time the queued start carried.
    expect(page.get_by_role('heading', level=2)).to_have_text(re.compile(r'^Ride \d{4}-\d\d-\d\d \d\d:\d\d$'))
    track = api_get(server, f'/api/tracks/{track_id}')
    assert sum(len(segment) for segment in track['segments']) == taken
    assert track['stats']['pointCount'] == taken
    shot(page, 'offline-start-saved')


def test_a_reload_mid_ride_resumes_it(context, server):
    page = context.new_page()
    open_record(page)
    start_ride(page)
    path = l_shaped_path(150, 150, 10)  # 300 m
    ride(context, page, path[:12])
    _poll_outbox_empty(page, 15000)
    before = path_points(page)
    page.reload()
    page.wait_for_selector('body[data-ready="true"]')
    expect(page.get_by_role('button', name='Pause')).to_be_visible()
    expect(page.locator('path.ride-path')).to_have_count(1)
    ride(context, page, path[12:])
    _poll_outbox_empty(page, 15000)
    assert path_points(page) > before
    current = page.evaluate(CURRENT)
    stored = api_get(server, f"/api/recordings/{current['id']}")
    assert stored['stats']['pointCount'] == current['nextSequence'] - 1
    assert abs(stored['stats']['distanceMeters'] - 300) / 300 < 0.02
    shot(page, 'after-reload')


def test_the_simulated_ride_records_without_a_gps(context, server):
    page = context.new_page()
    page.goto('/#/record?simulate=36')
    page.wait_for_selector('body[data-ready="true"]')
    page.wait_for_selector('path.me-dot')
    start_ride(page)
    wait_until(page, "() => Number(document.getElementById('record-map').dataset.pathPoints || 0) >= 4", timeout=15000)
    assert distance_meters(page) > 20
    shot(page, 'simulated-ride')
    # Saved as a simulation, and marked so in the list.
    _poll_outbox_empty(page, 15000)
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    track = api_get(server, f"/api/tracks/{page.url.rsplit('/', 1)[1]}")
    assert track['source'] == 'simulation', track
    page.goto('/#/tracks')
    row = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(has_text=track['name'])
    expect(row.first).to_contain_text('Simulated')


def test_an_offline_reload_mid_ride_opens_from_the_cache_and_loses_nothing(context, server):
    page = context.new_page()
    open_record(page)
    # The service worker keeps the app shell once it controls the page.
    wait_until(page, "() => navigator.serviceWorker && navigator.serviceWorker.controller !== null", timeout=15000)
    start_ride(page)
    path = l_shaped_path(200, 100, 10)  # 300 m
    ride(context, page, path[:8])
    _poll_outbox_empty(page, 15000)
    context.set_offline(True)
    ride(context, page, path[8:16])
    page.reload()
    page.wait_for_selector('body[data-ready="true"]')
    expect(page.get_by_role('button', name='Pause')).to_be_visible()
    # The line drawn before the reload is back, from the device's own copy.
    expect(page.locator('path.ride-path')).to_have_count(1)
    ride(context, page, path[16:24])
    assert page.evaluate(OUTBOX_SIZE) >= 10
    shot(page, 'offline-reload')
    context.set_offline(False)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    ride(context, page, path[24:])
    _poll_outbox_empty(page, 30000)
    current = page.evaluate(CURRENT)
    stored = api_get(server, f"/api/recordings/{current['id']}")
    assert stored['stats']['pointCount'] == current['nextSequence'] - 1
    assert abs(stored['stats']['distanceMeters'] - 300) / 300 < 0.02


def test_a_phone_in_landscape_keeps_the_rider_and_the_controls_apart(browser, server):
    context = browser.new_context(base_url=server, viewport={'width': 844, 'height': 390}, is_mobile=True, has_touch=True,
                                  device_scale_factor=2)
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    context.grant_permissions(['geolocation'], origin=server)
    context.set_geolocation({'latitude': START[0], 'longitude': START[1], 'accuracy': 5})
    context.viewport_name = 'landscape'
    page = context.new_page()
    open_record(page)
    start_ride(page)
    ride(context, page, l_shaped_path(60, 0, 10))

    def box(locator):
        b = locator.bounding_box()
        return b['x'], b['y'], b['x'] + b['width'], b['y'] + b['height']

    def overlap(a, b):
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    panel = box(page.locator('.record-panel'))
    for control in [page.get_by_role('button', name='Follow my position'), page.get_by_role('button', name='Map type'),
                    page.locator('path.me-dot')]:
        assert not overlap(panel, box(control))
    expect(page.get_by_role('button', name='Stop')).to_be_in_viewport()
    shot(page, 'record')
    context.close()


CORRUPT_ONE_QUEUED_FIX = """() => new Promise((resolve, reject) => {
  const open = indexedDB.open('bikeride');
  open.onsuccess = () => {
    const store = open.result.transaction('outbox', 'readwrite').objectStore('outbox');
    const request = store.getAll();
    request.onsuccess = () => {
      const fixes = request.result.filter((entry) => entry.kind === 'fix');
      const victim = fixes[Math.floor(fixes.length / 2)];
      victim.fix.latitude = 95;  // out of range: the server refuses the batch that holds it
      store.put(victim).onsuccess = () => resolve(victim.fix.sequence);
    };
    request.onerror = () => reject(request.error);
  };
})"""


def test_a_fix_the_server_refuses_is_dropped_alone(context, server):
    page = context.new_page()
    open_record(page)
    start_ride(page)
    path = l_shaped_path(200, 0, 10)
    context.set_offline(True)
    ride(context, page, path[:12])
    bad = page.evaluate(CORRUPT_ONE_QUEUED_FIX)
    context.set_offline(False)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    _poll_outbox_empty(page, 20000)
    current = page.evaluate(CURRENT)
    taken = current['nextSequence'] - 1
    stored = api_get(server, f"/api/recordings/{current['id']}")
    assert stored['lastSequence'] == taken
    assert stored['stats']['pointCount'] == taken - 1, f'all but fix {bad} stored'


def test_a_recorded_ride_is_dated_in_the_riders_own_time_zone(browser, server):
    """Fixes carry the device's UTC offset, so the track's start is the clock where it was ridden: a rider in
    Auckland (UTC+13 in November) recording at Cupertino's emulated position gets Auckland's date and hour, not the
    longitude's guess (UTC−8), which would put the ride on the previous day."""
    context = browser.new_context(base_url=server, timezone_id='Pacific/Auckland', **VIEWPORTS['desktop'])
    context.grant_permissions(['geolocation'], origin=server)
    context.set_geolocation({'latitude': START[0], 'longitude': START[1], 'accuracy': 5})
    try:
        page = context.new_page()
        expected_offset = page.evaluate('() => -new Date().getTimezoneOffset()')
        assert expected_offset in (12 * 60, 13 * 60), expected_offset  # NZST or NZDT, whatever the day
        open_record(page)
        start_ride(page)
        ride(context, page, l_shaped_path(60, 0, 10))
        _poll_outbox_empty(page, 15000)
        stop_and_save(page)
        page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
        track_id = page.url.rsplit('/', 1)[1]
        track = api_get(server, f'/api/tracks/{track_id}')
        sign = '+'
        written = f"{sign}{expected_offset // 60:02d}:{expected_offset % 60:02d}"
        assert track['timeZoneSource'] == 'file', track
        assert track['localStartTime'].endswith(written), track['localStartTime']
        # The same instant as the start in UTC, read back on the browser's own clock.
        same = page.evaluate('([a, b]) => Date.parse(a) === Date.parse(b)', [track['localStartTime'], track['startTime']])
        assert same, (track['localStartTime'], track['startTime'])
        local_hour = page.evaluate('(t) => new Date(Date.parse(t)).getHours()', track['startTime'])
        assert int(track['localStartTime'][11:13]) == local_hour
        # The automatic name is in the rider's time too ("Ride 2026-11-27 02:03"), within a minute of the first fix.
        from datetime import datetime
        named = datetime.strptime(track['name'], 'Ride %Y-%m-%d %H:%M')
        started = datetime.strptime(track['localStartTime'][:16], '%Y-%m-%dT%H:%M')
        assert abs((started - named).total_seconds()) <= 120, (track['name'], track['localStartTime'])
    finally:
        context.close()


def test_a_run_shows_its_pace_on_the_record_tab_and_its_page(context, server):
    context.add_init_script("localStorage.setItem('bikeride.activity', 'run')")
    page = context.new_page()
    open_record(page)
    start_ride(page)
    expect(page.locator('#stat-speed-label')).to_have_text('Pace')
    ride(context, page, l_shaped_path(120, 0, 6), pause_ms=500)
    wait_until(page, "/\\d+:\\d\\d\\s*\\/km$/.test(document.getElementById('stat-speed').textContent.trim())", 8000)
    shot(page, 'record-run-pace')
    _poll_outbox_empty(page, 15000)
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    track = api_get(server, f"/api/tracks/{page.url.rsplit('/', 1)[1]}")
    assert track['kind'] == 'run'
    total = round(1000 / track['averageSpeedMetersPerSecond'])
    pace = f'{total // 60}:{total % 60:02d} /km'
    expect(page.locator('#track-stats')).to_contain_text(f'Average pace{pace}')
