"""The Record tab of issue 11, on a phone and a desktop viewport: provisional figures offline (and the module that
computes them, against known geometry), the Paused state and its clocks, auto-pause, the finish step (Save /
Discard / Resume, offline, no fix, location blocked), the screen wake lock, a gap that breaks the line, large
figures and 44 px tap targets, the night theme, the recording badge."""
import math
import re

import pytest
from playwright.sync_api import expect

from conftest import START, VIEWPORTS, api_get, l_shaped_path, offset, shot, wait_until
from test_record import CURRENT, OUTBOX_SIZE, _poll_outbox_empty, distance_meters, open_record, ride, start_ride, stop_and_save

# navigator.wakeLock stubbed before the page's scripts: it records each request and release, and the page's
# visibility can be switched (a real hidden tab cannot be made in headless Chromium).
WAKE_LOCK_STUB = """
window.__wakeLock = { requests: [], releases: 0, sentinels: [] };
Object.defineProperty(navigator, 'wakeLock', { configurable: true, value: {
  request: async (type) => {
    window.__wakeLock.requests.push(type);
    const sentinel = new EventTarget();
    sentinel.type = type;
    sentinel.released = false;
    sentinel.release = async () => {
      if (sentinel.released) return;
      sentinel.released = true;
      window.__wakeLock.releases += 1;
      sentinel.dispatchEvent(new Event('release'));
    };
    window.__wakeLock.sentinels.push(sentinel);
    return sentinel;
  },
} });
window.__visibility = 'visible';
Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => window.__visibility });
Object.defineProperty(document, 'hidden', { configurable: true, get: () => window.__visibility === 'hidden' });
"""

NO_WAKE_LOCK = "delete Navigator.prototype.wakeLock;"


def delete_track(server, track_id):
    """Removes a track this file made, so that other tests' tracks stay on the first page of the list."""
    import urllib.request
    urllib.request.urlopen(urllib.request.Request(f'{server}/api/tracks/{track_id}', method='DELETE'), timeout=10).read()


def figure(page, name):
    return page.locator(f'#stat-{name}')


def seconds(text):
    parts = [int(part) for part in text.strip().split(':')]
    return sum(part * 60 ** index for index, part in enumerate(reversed(parts)))


def visible_map_centre(page):
    """The middle of the part of the map the record panel leaves visible."""
    box = page.locator('#record-map').bounding_box()
    panel = page.locator('.record-panel').bounding_box()
    if panel['width'] > box['width'] * 0.6:
        return box['x'] + box['width'] / 2, (box['y'] + min(panel['y'], box['y'] + box['height'])) / 2
    if panel['height'] > box['height'] * 0.6 and panel['x'] > box['x'] + box['width'] / 2:
        return (box['x'] + panel['x']) / 2, box['y'] + box['height'] / 2
    return box['x'] + box['width'] / 2, box['y'] + box['height'] / 2


# MARK: the module, against known geometry

MODULE_CHECKS = """async () => {
  const m = await import('/js/provisional.js');
  const out = {};
  // Ten fixes 0.001° of latitude apart, at 45° N, one every 10 s.
  const t0 = Date.parse('2024-05-01T10:00:00Z');
  const line = (count, from = 0, start = 45) => Array.from({ length: count }, (_, i) => ({
    sequence: from + i + 1, latitude: start + i * 0.001, longitude: 7, accuracy: 5, altitude: i * 10, time: t0 + (from + i) * 10000 }));
  out.hop = m.metersBetween([45, 7], [45.001, 7]);
  let live = new m.Provisional({ activity: 'ride' });
  line(10).forEach((fix) => live.add(fix));
  out.tenFixes = live.figures(t0 + 90000, 'recording');
  // The server answers the first five: its figures, plus what the other five add.
  live.answered({ distanceMeters: 444.5, ascentMeters: 40, movingSeconds: 40, elapsedSeconds: 40, pointCount: 5,
    startTime: '2024-05-01T10:00:00Z', lastFixTime: '2024-05-01T10:00:40Z' }, 5);
  out.afterAnswer = live.figures(t0 + 90000, 'recording');
  out.pendingAfterAnswer = live.pendingCount;
  // A break (Pause/Resume, a gap): nothing counts across it.
  live = new m.Provisional();
  line(3).forEach((fix) => live.add(fix));
  live.breakLine();
  line(3, 3, 46).forEach((fix) => live.add(fix));
  out.withBreak = live.figures(t0 + 60000, 'recording');
  // A fix worse than 100 m counts for nothing; a still rider adds no distance.
  live = new m.Provisional();
  live.add({ sequence: 1, latitude: 45, longitude: 7, accuracy: 5, time: t0 });
  live.add({ sequence: 2, latitude: 45.01, longitude: 7, accuracy: 500, time: t0 + 1000 });
  live.add({ sequence: 3, latitude: 45.00001, longitude: 7.00001, accuracy: 5, time: t0 + 2000 });
  out.inaccurate = live.figures(t0 + 2000, 'recording');
  out.inaccuratePoints = live.pointCount;
  // The clocks: elapsed runs on while paused, moving does not; the speed is none while paused.
  live = new m.Provisional();
  line(4).forEach((fix) => live.add(fix));
  out.paused = live.figures(t0 + 120000, 'paused');
  out.recordingLater = live.figures(t0 + 32000, 'recording');
  // Auto-pause: still for 10 s pauses, 20 m away resumes; a runner's stopped speed is lower.
  const auto = new m.AutoPause('ride');
  const decisions = [];
  for (let i = 0; i <= 11; i += 1) decisions.push(auto.observe({ latitude: 45, longitude: 7, accuracy: 5, time: t0 + i * 1000 }, false));
  out.autoPause = decisions.filter(Boolean);
  out.autoStill = auto.observe({ latitude: 45.00003, longitude: 7, accuracy: 5, time: t0 + 13000 }, true);
  out.autoResume = auto.observe({ latitude: 45.0002, longitude: 7, accuracy: 5, time: t0 + 15000 }, true);
  out.gap = [m.isGap(t0, t0 + 61000), m.isGap(t0, t0 + 59000), m.isGap(null, t0)];
  out.stopped = m.STOPPED_SPEED;
  return out;
}"""


@pytest.mark.parametrize('viewport', ['desktop'])
def test_the_provisional_module_against_known_geometry(context):
    page = context.new_page()
    page.goto('/#/settings')
    page.wait_for_selector('body[data-ready="true"]')
    out = page.evaluate(MODULE_CHECKS)
    # 0.001° of latitude at 45° N on WGS-84: the meridional radius of curvature gives 111.132 m (111.2 m on a sphere).
    phi = math.radians(45.0005)
    a, e2 = 6378137.0, 6.69437999014e-3
    meridional = a * (1 - e2) / (1 - e2 * math.sin(phi) ** 2) ** 1.5
    hop = math.radians(0.001) * meridional
    assert abs(out['hop'] - hop) < 0.01 and abs(out['hop'] - 111.2) / 111.2 < 0.001, out['hop']
    ten = out['tenFixes']
    assert abs(ten['distanceMeters'] - 9 * hop) < 0.1, ten
    assert ten['provisional'] is True
    assert ten['ascentMeters'] == 90, 'altitudes 0…90 m in 10 m steps climb 90 m'
    assert ten['movingSeconds'] == 90 and ten['elapsedSeconds'] == 90
    assert abs(ten['speedMetersPerSecond'] - hop / 10) < 0.01, 'no device speed: over the last 10 s of fixes'
    after = out['afterAnswer']
    assert out['pendingAfterAnswer'] == 5
    assert abs(after['distanceMeters'] - (444.5 + 5 * hop)) < 0.1, 'the server\'s figure, plus the five it has not answered'
    assert after['ascentMeters'] == 40 + 50
    assert abs(out['withBreak']['distanceMeters'] - 4 * hop) < 0.1, 'two stretches of two hops, nothing across the break'
    assert out['inaccurate']['distanceMeters'] == 0, 'jitter at a standstill and a fix 1 km off add nothing'
    assert out['inaccuratePoints'] == 2
    paused = out['paused']
    assert paused['speedMetersPerSecond'] is None
    assert paused['elapsedSeconds'] == 120, 'elapsed runs on while paused (the track page counts pauses in it)'
    assert paused['movingSeconds'] == 30, 'moving time stops while paused'
    assert out['recordingLater']['movingSeconds'] == 32, 'between fixes the moving clock runs on while the rider moves'
    assert out['autoPause'] == ['pause'] and out['autoStill'] is None and out['autoResume'] == 'resume'
    assert out['gap'] == [True, False, False]
    assert out['stopped'] == {'ride': 1, 'run': 0.5, 'walk': 0.3}


@pytest.mark.parametrize('viewport', ['desktop'])
def test_the_shown_figures_never_step_backwards(context):
    page = context.new_page()
    page.goto('/#/settings')
    page.wait_for_selector('body[data-ready="true"]')
    out = page.evaluate("""async () => {
      const m = await import('/js/provisional.js');
      const t0 = Date.parse('2024-05-01T10:00:00Z');
      const live = new m.Provisional({ activity: 'ride' });
      const steady = new m.SteadyFigures();
      // Offline: ten fixes 111 m apart, every 10 s, shown provisionally.
      for (let i = 0; i < 10; i += 1) live.add({ sequence: i + 1, latitude: 45 + i * 0.001, longitude: 7, accuracy: 5, time: t0 + i * 10000 });
      const offline = steady.show(live.figures(t0 + 92000, 'recording'));
      // The connection comes back: the server's figures for all ten count less (its smoothing), and its clock
      // ends at the last fix.
      live.answered({ distanceMeters: 950, ascentMeters: 0, movingSeconds: 85, elapsedSeconds: 90, pointCount: 10,
        startTime: '2024-05-01T10:00:00Z', lastFixTime: '2024-05-01T10:01:30Z' }, 10);
      const raw = live.figures(t0 + 93000, 'recording');
      const back = steady.show(raw);
      // Auto-pause starts: the moving clock's run-on ends.
      const paused = steady.show(live.figures(t0 + 94000, 'paused'));
      return { offline, raw, back, paused };
    }""")
    offline, raw, back, paused = out['offline'], out['raw'], out['back'], out['paused']
    assert raw['distanceMeters'] < offline['distanceMeters'], 'the case this guards: the server counts less'
    assert back['distanceMeters'] == offline['distanceMeters']
    assert back['movingSeconds'] >= offline['movingSeconds'] and back['elapsedSeconds'] >= offline['elapsedSeconds']
    assert paused['movingSeconds'] >= back['movingSeconds'] and paused['distanceMeters'] == back['distanceMeters']


# MARK: figures that keep moving offline

def test_offline_the_figures_move_provisionally_and_the_server_replaces_them(context, server):
    page = context.new_page()
    open_record(page)
    start_ride(page)
    path = l_shaped_path(300, 0, 10)
    ride(context, page, path[:6])
    _poll_outbox_empty(page, 15000)
    expect(figure(page, 'distance')).to_have_attribute('data-provisional', 'false')
    confirmed = distance_meters(page)
    context.set_offline(True)
    readings = []
    for point in path[6:20]:
        ride(context, page, [point])
        readings.append(distance_meters(page))
    assert readings == sorted(readings) and readings[-1] > confirmed + 120, (confirmed, readings)
    # 200 m from the start, by the same rule as the server, while nothing has been answered.
    assert abs(readings[-1] - 200) < 12, readings[-1]
    expect(figure(page, 'distance')).to_have_attribute('data-provisional', 'true')
    expect(page.get_by_text('not yet confirmed by the server')).to_be_visible()
    assert page.evaluate("getComputedStyle(document.querySelector('#stat-distance .figure-value')).fontStyle") == 'italic'
    # The map stays on the latest fix: the blue dot is near the middle of the visible map.
    page.wait_for_timeout(300)
    dot = page.locator('path.me-dot').bounding_box()
    x, y = visible_map_centre(page)
    assert abs(dot['x'] + dot['width'] / 2 - x) < 40 and abs(dot['y'] + dot['height'] / 2 - y) < 40, (dot, x, y)
    shot(page, 'live-offline-provisional')
    context.set_offline(False)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    _poll_outbox_empty(page, 20000)
    expect(figure(page, 'distance')).to_have_attribute('data-provisional', 'false')
    expect(page.get_by_text('not yet confirmed by the server')).to_be_hidden()
    current = page.evaluate(CURRENT)
    stored = api_get(server, f"/api/recordings/{current['id']}")
    assert distance_meters(page) == pytest.approx(stored['stats']['distanceMeters'])
    assert abs(stored['stats']['distanceMeters'] - readings[-1]) < 12, 'the provisional figure was close to the server\'s'
    shot(page, 'live-back-online')


# MARK: pause

def test_pause_says_so_and_the_clocks_behave_as_the_track_page_will(context):
    page = context.new_page()
    open_record(page)
    start_ride(page)
    ride(context, page, l_shaped_path(60, 0, 10))
    _poll_outbox_empty(page, 15000)
    expect(page.locator('#record-state')).to_have_text('Recording')
    page.get_by_role('button', name='Pause').click()
    panel = page.locator('.record-panel')
    expect(panel).to_have_attribute('data-state', 'paused')
    expect(page.locator('#record-state')).to_have_text('Paused')
    expect(figure(page, 'speed')).to_have_text('—')
    colour = page.evaluate("getComputedStyle(document.getElementById('record-state')).backgroundColor")
    moving = figure(page, 'moving').inner_text()
    elapsed = seconds(figure(page, 'time').inner_text())
    # The clock is drawn once a second, rounded: a reading can lag by up to a second and round by half of one at
    # each end, so 2 s more are shown for certain only after 4 s.
    page.wait_for_timeout(4200)
    shot(page, 'live-paused')
    assert figure(page, 'moving').inner_text() == moving, 'moving time stops while paused'
    paused_elapsed = seconds(figure(page, 'time').inner_text())
    assert paused_elapsed >= elapsed + 2, 'elapsed time runs on while paused, as the track page counts it'
    page.get_by_role('button', name='Resume').click()
    expect(page.locator('#record-state')).to_have_text('Recording')
    assert page.evaluate("getComputedStyle(document.getElementById('record-state')).backgroundColor") != colour
    after = seconds(figure(page, 'time').inner_text())
    assert paused_elapsed <= after <= paused_elapsed + 2, 'no jump on Resume'
    ride(context, page, [offset(70, 0), offset(80, 0)])
    expect(figure(page, 'speed')).not_to_have_text('—')


def test_auto_pause_when_still_and_resume_when_moving(context):
    page = context.new_page()
    open_record(page)
    page.goto('/#/settings')
    expect(page.get_by_label('on rides')).to_be_checked()
    expect(page.get_by_label('on runs')).not_to_be_checked()
    page.goto('/#/record')
    start_ride(page)
    ride(context, page, l_shaped_path(40, 0, 10))
    still = offset(40, 0)
    for _ in range(26):  # 13 s at the same place
        context.set_geolocation({'latitude': still[0], 'longitude': still[1], 'accuracy': 5})
        page.wait_for_timeout(500)
        if page.locator('#record-state').inner_text() != 'Recording':
            break
    expect(page.locator('#record-state')).to_have_text('Paused: not moving')
    expect(page.get_by_role('button', name='Resume')).to_be_visible()
    shot(page, 'live-auto-paused')
    ride(context, page, [offset(50, 0), offset(65, 0), offset(80, 0)])
    expect(page.locator('#record-state')).to_have_text('Recording')


# MARK: the finish step

def test_stop_asks_save_discard_or_resume(context, server):
    page = context.new_page()
    open_record(page)
    start_ride(page)
    ride(context, page, l_shaped_path(50, 0, 10))
    _poll_outbox_empty(page, 15000)
    page.get_by_role('button', name='Stop').click()
    sheet = page.get_by_role('group', name='Finish this ride?')
    expect(sheet).to_be_visible()
    for name in ['Save', 'Discard', 'Resume']:
        expect(sheet.get_by_role('button', name=name)).to_be_visible()
    expect(page.locator('#record-state')).to_have_text('Paused')
    shot(page, 'live-finish')
    sheet.get_by_role('button', name='Resume').click()
    expect(sheet).to_be_hidden()
    expect(page.locator('#record-state')).to_have_text('Recording')
    ride(context, page, [offset(60, 0), offset(70, 0)])
    _poll_outbox_empty(page, 15000)
    recording_id = page.evaluate(CURRENT)['id']
    page.get_by_role('button', name='Stop').click()
    sheet.get_by_role('button', name='Discard').click()
    expect(page.locator('#record-notice')).to_contain_text('Ride discarded.')
    expect(page.get_by_role('button', name='Start')).to_be_visible()
    assert page.evaluate(CURRENT) is None
    _poll_outbox_empty(page, 15000)
    stored = api_get(server, f'/api/recordings/{recording_id}')
    assert stored['state'] == 'stopped'
    ids = [track['id'] for track in api_get(server, '/api/tracks?limit=100')['tracks']]
    assert stored['trackId'] not in ids, 'a discarded ride is not among the tracks'


def test_discard_can_be_undone(context, server):
    """Discard is one tap, and so is Undo: right after (the Stop still queued, offline) and after the track went."""
    page = context.new_page()
    open_record(page)
    notice = page.locator('#record-notice')
    # Offline: the Discard is still queued when Undo comes, and the ride is saved when the network is back.
    start_ride(page)
    ride(context, page, l_shaped_path(40, 0, 10))
    _poll_outbox_empty(page, 15000)
    first = page.evaluate(CURRENT)['id']
    context.set_offline(True)
    page.get_by_role('button', name='Stop').click()
    page.get_by_role('button', name='Discard').click()
    notice.get_by_role('button', name='Undo').click()
    expect(notice).to_contain_text('Kept')
    context.set_offline(False)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    _poll_outbox_empty(page, 20000)
    kept = api_get(server, f'/api/recordings/{first}')['trackId']
    expect(notice.get_by_role('link')).to_have_attribute('href', f'#/tracks/{kept}')
    assert api_get(server, f'/api/tracks/{kept}')['stats']['pointCount'] >= 4
    # Online: the track is already deleted when Undo comes; it is restored.
    start_ride(page)
    ride(context, page, [offset(40, 10), offset(40, 20), offset(40, 30), offset(40, 40)])
    _poll_outbox_empty(page, 15000)
    second = page.evaluate(CURRENT)['id']
    page.get_by_role('button', name='Stop').click()
    page.get_by_role('button', name='Discard').click()
    _poll_outbox_empty(page, 15000)
    gone = api_get(server, f'/api/recordings/{second}')['trackId']
    assert gone not in [track['id'] for track in api_get(server, '/api/tracks?limit=200')['tracks']]
    shot(page, 'live-discarded-undo')
    notice.get_by_role('button', name='Undo').click()
    expect(notice.get_by_role('link')).to_have_attribute('href', f'#/tracks/{gone}')
    assert gone in [track['id'] for track in api_get(server, '/api/tracks?limit=200')['tracks']]
    delete_track(server, kept)
    delete_track(server, gone)


def test_stopping_offline_saves_later_and_a_new_ride_can_start(context, server):
    page = context.new_page()
    open_record(page)
    start_ride(page)
    ride(context, page, l_shaped_path(50, 0, 10))
    _poll_outbox_empty(page, 15000)
    first = page.evaluate(CURRENT)['id']
    context.set_offline(True)
    ride(context, page, [offset(60, 0), offset(70, 0)])
    stop_and_save(page)
    notice = page.locator('#record-notice')
    expect(notice).to_contain_text('will be saved when you are back online')
    start = page.get_by_role('button', name='Start')
    expect(start).to_be_visible()
    shot(page, 'live-stopped-offline')
    start_ride(page)
    ride(context, page, [offset(70, 10), offset(70, 20), offset(70, 30)])
    second = page.evaluate(CURRENT)['id']
    assert second != first
    context.set_offline(False)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    _poll_outbox_empty(page, 20000)
    stored = api_get(server, f'/api/recordings/{first}')
    assert stored['state'] == 'stopped' and stored['trackId']
    expect(notice.get_by_role('link')).to_have_attribute('href', f"#/tracks/{stored['trackId']}")
    assert api_get(server, f"/api/tracks/{stored['trackId']}")['stats']['pointCount'] == stored['stats']['pointCount'] >= 6
    # The second ride goes on.
    expect(page.locator('#record-state')).to_have_text('Recording')
    assert api_get(server, f'/api/recordings/{second}')['state'] == 'recording'
    delete_track(server, stored['trackId'])


def test_a_ride_without_a_position_offers_no_save(context, server):
    """Fixes far too inaccurate to count: the finish step says there is nothing to save, and Discard is the way out."""
    context.set_geolocation({'latitude': START[0], 'longitude': START[1], 'accuracy': 900})
    page = context.new_page()
    open_record(page)
    start_ride(page)
    page.wait_for_timeout(500)
    page.get_by_role('button', name='Stop').click()
    sheet = page.get_by_role('group', name='Finish this ride?')
    expect(sheet).to_contain_text('No position was recorded')
    expect(sheet.get_by_role('button', name='Save')).to_be_hidden()
    shot(page, 'live-no-fix')
    recording_id = page.evaluate(CURRENT)['id']
    sheet.get_by_role('button', name='Discard').click()
    expect(page.get_by_role('button', name='Start')).to_be_visible()
    _poll_outbox_empty(page, 15000)
    stored = api_get(server, f'/api/recordings/{recording_id}')
    assert stored['stats']['pointCount'] == 0
    ids = [track['id'] for track in api_get(server, '/api/tracks?limit=200')['tracks']]
    assert stored['trackId'] not in ids, 'no empty 0 m track'


def test_start_with_location_blocked_explains_and_records_nothing(browser, server, viewport):
    context = browser.new_context(base_url=server, **VIEWPORTS[viewport])
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    context.viewport_name = viewport
    before = len(api_get(server, '/api/tracks?limit=200')['tracks'])
    page = context.new_page()
    page.goto('/#/record')
    page.wait_for_selector('body[data-ready="true"]')
    # Start before being asked: the browser refuses, and the ride, which has no position, is discarded.
    page.get_by_role('button', name='Start').click()
    expect(page.locator('#record-notice')).to_contain_text('discarded rather than saved as an empty track')
    expect(page.get_by_role('button', name='Start')).to_be_visible()
    # Start again, location known to be blocked: it says what to do, and nothing starts.
    page.get_by_role('button', name='Start').click()
    alert = page.locator('#location-message')
    expect(alert).to_be_visible()
    expect(alert).to_contain_text('a ride cannot be recorded')
    expect(alert).to_contain_text('Allow location for this site')
    assert page.evaluate("document.body.dataset.recordingState") == 'idle'
    shot(page, 'live-location-blocked')
    page.wait_for_timeout(1000)
    assert page.evaluate(OUTBOX_SIZE) == 0
    assert len(api_get(server, '/api/tracks?limit=200')['tracks']) == before, 'no empty 0 m track'
    context.close()


# MARK: the screen stays awake

def test_the_screen_is_kept_on_while_recording(context, server):
    context.add_init_script(WAKE_LOCK_STUB)
    page = context.new_page()
    open_record(page)
    assert page.evaluate('window.__wakeLock.requests') == []
    start_ride(page)
    wait_until(page, "window.__wakeLock.requests.length === 1")
    assert page.evaluate('window.__wakeLock.requests') == ['screen']
    expect(page.locator('#record-warning')).to_be_hidden()
    # Hidden, the browser releases the lock; visible again, it is asked for again.
    page.evaluate("""() => {
      window.__visibility = 'hidden';
      document.dispatchEvent(new Event('visibilitychange'));
      window.__wakeLock.sentinels.at(-1).release();
    }""")
    page.wait_for_timeout(200)
    page.evaluate("() => { window.__visibility = 'visible'; document.dispatchEvent(new Event('visibilitychange')); }")
    wait_until(page, "window.__wakeLock.requests.length === 2")
    ride(context, page, l_shaped_path(30, 0, 10))
    _poll_outbox_empty(page, 15000)
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    assert page.evaluate('window.__wakeLock.releases') == 2, 'released at Save'
    delete_track(server, page.url.rsplit('/', 1)[1])


def test_without_a_wake_lock_the_rider_is_warned(context):
    context.add_init_script(NO_WAKE_LOCK)
    page = context.new_page()
    open_record(page)
    start_ride(page)
    warning = page.locator('#record-warning')
    expect(warning).to_be_visible()
    expect(warning).to_contain_text('cannot keep the screen on')
    expect(warning).to_contain_text('may stop positions')
    shot(page, 'live-no-wake-lock')
    page.goto('/#/settings')
    expect(page.locator('#wake-lock-unavailable')).to_be_visible()
    expect(page.locator('#wake-lock-unavailable')).to_contain_text('cannot keep the screen on')


def test_the_wake_lock_setting_turns_it_off(context):
    context.add_init_script(WAKE_LOCK_STUB)
    page = context.new_page()
    page.goto('/#/settings')
    page.wait_for_selector('body[data-ready="true"]')
    box = page.get_by_label('Keep the screen on while recording')
    expect(box).to_be_checked()
    box.uncheck()
    page.get_by_role('link', name='Record', exact=True).click()
    page.wait_for_selector('path.me-dot')
    start_ride(page)
    expect(page.locator('#record-warning')).to_contain_text('may stop positions')
    assert page.evaluate('window.__wakeLock.requests') == []


def test_a_gap_in_the_fixes_starts_a_new_segment(context, server):
    page = context.new_page()
    open_record(page)
    page.evaluate("() => localStorage.setItem('bikeride.gapSeconds', '2')")  # 60 s by default
    start_ride(page)
    ride(context, page, l_shaped_path(50, 0, 10))
    page.wait_for_timeout(3000)
    ride(context, page, [offset(150, 0), offset(160, 0), offset(170, 0)])
    _poll_outbox_empty(page, 15000)
    expect(page.locator('path.ride-path')).to_have_count(2)
    current = page.evaluate(CURRENT)
    stored = api_get(server, f"/api/recordings/{current['id']}")
    assert len(stored['path']) == 2, 'the gap is a new segment, not a straight line'
    assert abs(stored['stats']['distanceMeters'] - 70) < 8, stored['stats']['distanceMeters']
    shot(page, 'live-gap')


# MARK: readable on a handlebar

def test_speed_and_distance_are_large_and_every_tap_target_is_44_px(context, server):
    from test_accessibility import upload
    page = context.new_page()
    open_record(page)
    start_ride(page)
    ride(context, page, l_shaped_path(40, 0, 10))
    _poll_outbox_empty(page, 15000)
    for name in ['speed', 'distance']:
        size = page.evaluate(f"parseFloat(getComputedStyle(document.querySelector('#stat-{name} .figure-value')).fontSize)")
        assert size >= 32, (name, size)

    def check(locator, label):
        small = []
        for index in range(locator.count()):
            element = locator.nth(index)
            if not element.is_visible():
                continue
            box = element.bounding_box()
            if box is None:  # gone between the count and now: the list drew its rows again
                continue
            if box['width'] < 44 - 0.5 or box['height'] < 44 - 0.5:
                small.append((label, element.evaluate('e => e.outerHTML.slice(0, 80)'), box['width'], box['height']))
        return small

    small = []
    small += check(page.locator('.tabs a'), 'tabs')
    small += check(page.locator('#record-view button'), 'record buttons')
    small += check(page.locator('.leaflet-control-zoom a'), 'zoom')
    page.get_by_role('button', name='Map type').click()
    small += check(page.locator('#map-type label'), 'map type')
    page.keyboard.press('Escape')
    page.get_by_role('button', name='Stop').click()
    small += check(page.locator('#finish-sheet button'), 'finish')
    shot(page, 'live-tap-targets')
    page.get_by_role('button', name='Resume').click()

    track_id = upload(server, f'Tap targets {context.viewport_name}')
    page.goto('/#/tracks')
    # Found by its name: other tests' tracks may fill the list's first page.
    page.get_by_label('Search tracks').fill(f'Tap targets {context.viewport_name}')
    page.wait_for_selector(f'a[href="#/tracks/{track_id}"]')
    # The search's answer drawn: only its rows are left.
    expect(page.locator('#track-list li', has_not_text='Tap targets')).to_have_count(0)
    small += check(page.locator('#track-list button.delete'), 'Delete')
    small += check(page.locator('.track-search input'), 'search')
    page.goto(f'/#/tracks/{track_id}')
    expect(page.get_by_role('heading', level=2)).to_have_text(f'Tap targets {context.viewport_name}')
    small += check(page.locator('#track-edit button, #track-edit input, #track-edit select'), 'track page')
    small += check(page.locator('.downloads a'), 'downloads')
    small += check(page.locator('#track-map .leaflet-control-zoom a'), 'track zoom')
    page.goto('/#/settings')
    small += check(page.locator('#settings-form label'), 'settings')
    delete_track(server, track_id)
    assert small == [], small


def test_night_theme_from_the_system_and_from_settings(context):
    def contrast(page, selector, background_selector):
        return page.evaluate("""([selector, backgroundSelector]) => {
          const rgb = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
          const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
            .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
          const fg = lum(rgb(getComputedStyle(document.querySelector(selector)).color));
          const bg = lum(rgb(getComputedStyle(document.querySelector(backgroundSelector)).backgroundColor));
          return { ratio: (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05), background: bg };
        }""", [selector, background_selector])

    page = context.new_page()
    open_record(page)
    day = contrast(page, '#stat-distance', '.record-panel')
    assert day['background'] > 0.8 and day['ratio'] >= 7, day
    page.emulate_media(color_scheme='dark')
    night = contrast(page, '#stat-distance', '.record-panel')
    assert night['background'] < 0.05 and night['ratio'] >= 7, night
    page.emulate_media(color_scheme='light')
    page.get_by_role('link', name='Settings').click()
    page.get_by_role('radio', name='Night', exact=True).check()
    assert page.evaluate("document.documentElement.dataset.theme") == 'night'
    shot(page, 'live-settings-night')
    page.get_by_role('link', name='Record', exact=True).click()
    start_ride(page)
    ride(context, page, l_shaped_path(40, 0, 10))
    night = contrast(page, '#stat-distance', '.record-panel')
    assert night['background'] < 0.05 and night['ratio'] >= 7, night
    page.wait_for_timeout(500)
    shot(page, 'live-night')
    page.reload()
    page.wait_for_selector('body[data-ready="true"]')
    assert page.evaluate("document.documentElement.dataset.theme") == 'night', 'kept on the device'
    page.get_by_role('link', name='Settings').click()
    page.get_by_role('radio', name='Day', exact=True).check()
    assert contrast(page, '#settings-heading', 'body')['background'] > 0.8


def test_a_recording_badge_on_the_other_tabs(context, server):
    page = context.new_page()
    open_record(page)
    badge = "(tab) => getComputedStyle(document.querySelector(`.tabs a[data-tab='${tab}']`), '::after').content"
    assert page.evaluate(badge, 'tracks') == 'none'
    start_ride(page)
    for tab in ['tracks', 'settings', 'places']:
        assert page.evaluate(badge, tab) != 'none', tab
    assert page.evaluate(badge, 'record') == 'none'
    expect(page.get_by_role('link', name='Tracks', exact=True)).to_have_accessible_description('A ride is being recorded')
    page.get_by_role('link', name='Tracks', exact=True).click()
    shot(page, 'live-badge')
    page.get_by_role('link', name='Record', exact=True).click()
    ride(context, page, l_shaped_path(30, 0, 10))
    _poll_outbox_empty(page, 15000)
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    assert page.evaluate(badge, 'tracks') == 'none'
    delete_track(server, page.url.rsplit('/', 1)[1])


# MARK: one layout for the banner, the figures and the controls

@pytest.mark.parametrize('size', ['360x740', '1280x800'])
def test_the_route_banner_figures_and_controls_fit_together(browser, server, size):
    """On the smallest phone the issue names and on a desktop: following a route, nothing covers anything else."""
    from test_route import at, upload_route
    width, height = (int(part) for part in size.split('x'))
    options = dict(viewport={'width': width, 'height': height})
    if width < 600:
        options.update(device_scale_factor=2, is_mobile=True, has_touch=True)
    context = browser.new_context(base_url=server, **options)
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    context.grant_permissions(['geolocation'], origin=server)
    context.set_geolocation({'latitude': START[0], 'longitude': START[1], 'accuracy': 5})
    context.viewport_name = size
    name = f'Layout route {size}'
    route_id = upload_route(server, name)
    page = context.new_page()
    open_record(page)
    page.get_by_role('button', name='Route: none').click()
    page.get_by_role('group', name='Choose a route').get_by_role('button', name=name).click()
    start_ride(page)
    ride(context, page, [p for d in range(10, 161, 10) for p in at(d, 0)])
    _poll_outbox_empty(page, 15000)
    expect(page.locator('#cue-banner')).to_be_visible()

    def box(selector):
        b = page.locator(selector).bounding_box()
        return b['x'], b['y'], b['x'] + b['width'], b['y'] + b['height']

    def overlap(a, b):
        return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5

    parts = {name: box(selector) for name, selector in {
        'banner': '#cue-banner', 'panel': '.record-panel', 'tools': '.map-tools', 'zoom': '#record-map .leaflet-control-zoom',
        'header': '.app-header'}.items()}
    for name, rect in parts.items():
        assert rect[0] >= 0 and rect[1] >= 0 and rect[2] <= width and rect[3] <= height, (name, rect)
    names = list(parts)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            assert not overlap(parts[first], parts[second]), (first, parts[first], second, parts[second])
    for button in ['Pause', 'Stop']:
        expect(page.get_by_role('button', name=button)).to_be_in_viewport(ratio=1)
    for figure_name in ['speed', 'distance', 'time', 'moving', 'climb']:
        expect(figure(page, figure_name)).to_be_in_viewport(ratio=1)
    shot(page, 'layout-route')
    page.get_by_role('button', name='Map type').click()
    assert not overlap(box('#map-type'), parts['panel']) and not overlap(box('#map-type'), parts['banner'])
    shot(page, 'layout-route-layers')
    page.keyboard.press('Escape')
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    delete_track(server, page.url.rsplit('/', 1)[1])
    delete_track(server, route_id)
    page.evaluate("() => localStorage.removeItem('bikeride.route')")
    context.close()
