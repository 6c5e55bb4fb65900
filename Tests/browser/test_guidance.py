"""Route guidance that keeps going offline (issue 24), on a phone and a desktop viewport.

The web app follows the route itself (Web/js/guidance.js) from the fixes the server has not answered; the
server (RideKit's RouteFollower) stays the truth. The first test feeds one ride, fix by fix, to both and
compares every answer; the others ride past turns and off the route with the network cut, and look at what the
rider sees and hears."""
import json
import math
import random
import re
import urllib.request
from datetime import datetime, timedelta, timezone

from playwright.sync_api import expect

from conftest import offset, shot, wait_until
from test_record import _poll_outbox_empty, open_record, ride, start_ride
from test_route import RECORD_SPEECH


def route_gpx(name, legs, step=10, timed=False):
    """A route of straight legs `[(east, north), …]` from START (metres), a point every `step` metres; `timed`: a
    point a second from 08:00 UTC on 1 June 2026 (a ride: a file without times is a route)."""
    points, here = [offset(0, 0)], (0.0, 0.0)
    for east, north in legs:
        length = math.hypot(east - here[0], north - here[1])
        count = max(1, int(length // step))
        for i in range(1, count + 1):
            f = i / count
            points.append(offset(here[0] + f * (east - here[0]), here[1] + f * (north - here[1])))
        here = (east, north)
    def time(i):
        return f'<time>2026-06-01T{8 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z</time>' if timed else ''
    trkpts = ''.join(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}">{time(i)}</trkpt>' for i, (lat, lon) in enumerate(points))
    return (f'<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">'
            f'<trk><name>{name}</name><trkseg>{trkpts}</trkseg></trk></gpx>').encode()


def post(server, path, body, content_type='application/json', method='POST'):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(server + path, data=data, method=method, headers={'Content-Type': content_type})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def upload(server, name, legs, timed=False):
    tracks = post(server, '/api/tracks', route_gpx(name, legs, timed=timed), 'application/gpx+xml')['tracks']
    assert len(tracks) == 1
    return tracks[0]['id']


# East 300 m, north 300 m (a left), east 300 m (a right), then back south 200 m (a right): three cues.
Z_LEGS = [(300, 0), (300, 300), (600, 300), (600, 100)]


def z_ride():
    """A ride along the Z with GPS noise, a detour 120 m off the route and back, a shortcut, a poor fix, a fix too
    poor to count, a fix out of order: every rule of the follower gets a turn. Fixed seed: the same ride each run."""
    rng = random.Random(24)
    points = []   # (east, north, accuracy, seconds after the previous fix)
    for d in range(0, 300, 8):
        points.append((d + rng.gauss(0, 3), rng.gauss(0, 3), 5, 2))
    for d in range(0, 150, 8):
        points.append((300 + rng.gauss(0, 3), d + rng.gauss(0, 3), 5, 2))
    # Off to the west, 120 m from the route, and back: off route, then rejoined.
    for e in (280, 240, 200, 180, 200, 240, 280, 300):
        points.append((e, 160 + rng.gauss(0, 2), 8, 4))
    points.append((300, 200, 30, 2))          # poor accuracy: the threshold widens
    points.append((310, 230, 150, 2))         # worse than 100 m: the server does not store it
    for d in range(240, 300, 8):
        points.append((300 + rng.gauss(0, 3), d, 5, 2))
    for d in range(300, 600, 10):
        points.append((d + rng.gauss(0, 3), 300 + rng.gauss(0, 3), 5, 2))
    for d in range(300, 100, -10):
        points.append((600 + rng.gauss(0, 3), d + rng.gauss(0, 3), 5, 2))
    return points


def test_the_device_follows_the_route_as_the_server_does(context, server):
    units = 'metric' if context.viewport_name == 'phone' else 'imperial'
    route_id = upload(server, f'Z route agreement {context.viewport_name}', Z_LEGS)
    recording = post(server, '/api/recordings', {'routeTrackId': route_id, 'units': units})
    time = datetime(2026, 6, 1, 8, 0, tzinfo=timezone.utc)
    fixes, answers = [], []
    for sequence, (east, north, accuracy, seconds) in enumerate(z_ride(), start=1):
        time += timedelta(seconds=seconds, milliseconds=137)
        latitude, longitude = offset(east, north)
        fix = {'sequence': sequence, 'latitude': latitude, 'longitude': longitude, 'accuracy': accuracy,
               'time': time.isoformat(timespec='milliseconds').replace('+00:00', 'Z')}
        fixes.append(fix)
        answers.append(post(server, f"/api/recordings/{recording['id']}/fixes", {'fixes': [fix]}))
    # A fix older than the last one: stored by the recorder, skipped by the follower.
    late = dict(fixes[-1], sequence=len(fixes) + 1, time=fixes[-3]['time'], latitude=fixes[-1]['latitude'] + 0.0005)
    fixes.append(late)
    answers.append(post(server, f"/api/recordings/{recording['id']}/fixes", {'fixes': [late]}))
    server_navigation = [answer['navigation'] for answer in answers]
    assert any(n['offRoute'] for n in server_navigation[40:]) and not server_navigation[-2]['offRoute']

    page = context.new_page()
    page.goto('/#/settings')
    page.wait_for_selector('body[data-ready="true"]')
    device = page.evaluate("""async ([routeId, units, fixes, server]) => {
      const { ProvisionalGuidance } = await import('/js/guidance.js');
      const sheet = await (await fetch(`/api/tracks/${routeId}/cues?units=${units}&line=1`)).json();
      const strip = (n) => ({ text: n.nextCue ? n.nextCue.text : null, offRoute: n.offRoute,
        progress: n.progressMeters, away: n.distanceFromRouteMeters });
      const asFix = (f) => ({ ...f, time: Date.parse(f.time) });
      // The whole ride on the device alone (offline from the Start).
      const alone = new ProvisionalGuidance(sheet, units);
      const fromStart = fixes.map((f) => { alone.add(asFix(f)); return strip(alone.navigation()); });
      // One fix beyond each answer of the server (as when the network drops after it).
      const onward = fixes.slice(1).map((f, i) => {
        const g = new ProvisionalGuidance(sheet, units);
        g.add(asFix(fixes[i]));
        g.answered(server[i], fixes[i].sequence);
        g.add(asFix(f));
        return strip(g.navigation());
      });
      return { fromStart, onward, cueCount: sheet.cues.length };
    }""", [route_id, units, fixes, server_navigation])
    assert device['cueCount'] == 3

    def same(mine, theirs, where):
        assert mine['offRoute'] == theirs['offRoute'], where
        assert mine['text'] == (theirs['nextCue']['text'] if theirs['nextCue'] else None), where
        assert abs(mine['progress'] - theirs['progressMeters']) < 0.01, where
        if theirs['distanceFromRouteMeters'] is None:
            assert mine['away'] is None, where
        else:
            assert abs(mine['away'] - theirs['distanceFromRouteMeters']) < 0.01, where

    for index, (mine, theirs) in enumerate(zip(device['fromStart'], server_navigation)):
        same(mine, theirs, ('from start', index, mine, theirs))
    for index, (mine, theirs) in enumerate(zip(device['onward'], server_navigation[1:])):
        same(mine, theirs, ('onward', index + 1, mine, theirs))
    # The ride went through every kind of answer, so that the comparison means something.
    texts = {n['nextCue']['text'].split(' in ')[0] for n in server_navigation if n['nextCue']}
    assert {'Turn left', 'Turn right'} <= texts, texts
    page.close()


def at(east, north):
    return [offset(east, north)]


def test_offline_the_banner_moves_to_the_next_cue_and_off_route_is_said(context, server):
    name = f'Z route offline {context.viewport_name}'
    upload(server, name, Z_LEGS)
    context.add_init_script(RECORD_SPEECH)
    page = context.new_page()
    open_record(page)
    page.get_by_role('button', name='Route: none').click()
    page.get_by_role('group', name='Choose a route').get_by_role('button', name=name).click()
    expect(page.locator('#route-button')).to_have_text(f'Route: {name}')
    start_ride(page)
    banner, alert = page.locator('#cue-banner'), page.locator('#off-route')

    # Online, towards the first corner: the server's banner.
    ride(context, page, [p for d in range(10, 201, 10) for p in at(d, 0)])
    _poll_outbox_empty(page, 15000)
    expect(banner).to_contain_text(re.compile(r'Turn left in 100 m|Turn left in 330 feet'))
    expect(banner).to_have_attribute('data-provisional', 'false')

    # Offline: past the corner and north. Without the server, the banner moves on to the next cue.
    context.set_offline(True)
    ride(context, page, [p for d in range(210, 301, 10) for p in at(d, 0)] + [p for d in range(10, 201, 10) for p in at(300, d)])
    expect(banner).to_contain_text('Turn right')
    expect(banner).to_have_attribute('data-provisional', 'true')
    shot(page, 'guidance-offline-next-cue')
    spoken = page.evaluate('window.__spoken')
    assert any(t.startswith('Turn left') for t in spoken), spoken

    # Still offline, 150 m west of the route: "Off route" is said, the next cue stays greyed, the way back shows.
    ride(context, page, at(250, 200) + at(200, 200) + at(150, 200))
    expect(alert).to_be_visible()
    expect(alert).to_contain_text(re.compile(r'Off route — \d+'))
    wait_until(page, "window.__spoken.includes('Off route')")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text('Then: Turn right')
    assert page.evaluate("document.getElementById('record-view').dataset.offRoute") == 'true'
    arrow = page.locator('#way-back-arrow')
    expect(arrow).to_be_visible()
    # The nearest point of the route is due east (the north leg at 300 m east): the arrow points east, 90°.
    assert abs(float(arrow.get_attribute('data-bearing')) - 90) < 3
    grey = page.evaluate("getComputedStyle(document.getElementById('cue-banner')).backgroundColor")
    assert grey == 'rgb(95, 99, 104)', grey
    alert_box, banner_box = alert.bounding_box(), banner.bounding_box()
    assert banner_box['y'] >= alert_box['y'] + alert_box['height'] - 1, (alert_box, banner_box)
    shot(page, 'guidance-off-route')

    # Back on the route: "Back on route", the alert goes, the cue is shown again.
    ride(context, page, at(200, 200) + at(250, 210) + at(300, 220) + at(300, 230) + at(300, 240))
    wait_until(page, "window.__spoken.includes('Back on route')")
    expect(alert).to_be_hidden()
    expect(banner).to_contain_text(re.compile(r'Turn right in'))

    # Online again: the server's answers take over and agree.
    context.set_offline(False)
    _poll_outbox_empty(page, 30000)
    expect(banner).to_have_attribute('data-provisional', 'false')
    expect(banner).to_contain_text(re.compile(r'Turn right in'))

    # On to the end of the route (offline again): "Arrived", shown and said.
    context.set_offline(True)
    ride(context, page, [p for d in range(250, 301, 10) for p in at(300, d)] + [p for d in range(310, 601, 15) for p in at(d, 300)]
         + [p for d in range(285, 99, -15) for p in at(600, d)], pause_ms=200)
    expect(banner).to_contain_text('Arrived')
    wait_until(page, "window.__spoken.includes('Arrived')")
    shot(page, 'guidance-arrived')
    context.set_offline(False)
    page.close()


def rider_and_panel(page):
    dot = page.locator('path.me-dot').bounding_box()
    panel = page.locator('.record-panel').bounding_box()
    view = page.locator('#record-view').bounding_box()
    return dot, panel, view


def assert_rider_visible(page, where):
    dot, panel, view = rider_and_panel(page)
    x, y = dot['x'] + dot['width'] / 2, dot['y'] + dot['height'] / 2
    assert view['x'] < x < view['x'] + view['width'] and view['y'] < y < view['y'] + view['height'], (where, dot, view)
    under = panel['x'] - 8 <= x <= panel['x'] + panel['width'] + 8 and panel['y'] - 8 <= y <= panel['y'] + panel['height'] + 8
    assert not under, (where, 'the blue dot is under the figures panel', dot, panel)


def test_the_rider_stays_in_view_north_up_and_heading_up(context):
    page = context.new_page()
    open_record(page)
    start_ride(page)
    compass = page.locator('#compass-button')
    here = [0.0, 0.0]

    def go(de, dn, steps=6):
        points = []
        for _ in range(steps):
            here[0] += de
            here[1] += dn
            points += at(here[0], here[1])
        ride(context, page, points, pause_ms=300)
        page.wait_for_timeout(400)

    for heading_up in (False, True):
        if heading_up:
            compass.click()
            expect(compass).to_have_attribute('aria-pressed', 'true')
        # North, east, south and south-west: in heading-up the map turns each time, the rider stays out from under the panel.
        for name, (de, dn) in (('north', (0, 10)), ('east', (10, 0)), ('south', (0, -10)), ('south-west', (-7, -7))):
            go(de, dn)
            assert_rider_visible(page, ('heading-up' if heading_up else 'north-up', name))
        shot(page, 'rider-visible-heading-up' if heading_up else 'rider-visible-north-up')
    page.close()


def test_a_landscape_phone_keeps_the_rider_in_view_heading_up(browser, server):
    from conftest import START
    context = browser.new_context(base_url=server, viewport={'width': 844, 'height': 390}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True)
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    context.grant_permissions(['geolocation'], origin=server)
    context.set_geolocation({'latitude': START[0], 'longitude': START[1], 'accuracy': 5})
    context.viewport_name = 'phone-landscape'
    page = context.new_page()
    open_record(page)
    start_ride(page)
    page.locator('#compass-button').click()
    ride(context, page, [p for d in range(10, 80, 10) for p in at(-d, 0)], pause_ms=300)
    page.wait_for_timeout(400)
    assert_rider_visible(page, 'landscape heading-up west')
    shot(page, 'rider-visible-heading-up')
    context.close()


def test_the_route_picker_searches_and_lists_routes_first(context, server):
    tag = f'Picker{context.viewport_name}'
    # The track is newer than the route, yet the route comes first: routes are what a rider picks most.
    route_id = upload(server, f'{tag} planned loop', Z_LEGS)
    post(server, f'/api/tracks/{route_id}', {'kind': 'route'}, method='PATCH')
    upload(server, f'{tag} morning ride', [(200, 0)], timed=True)
    upload(server, f'Other{context.viewport_name} evening ride', [(200, 0)], timed=True)
    page = context.new_page()
    open_record(page)
    page.get_by_role('button', name='Route: none').click()
    picker = page.get_by_role('group', name='Choose a route')
    picker.get_by_role('searchbox', name='Search routes and tracks').fill(tag)
    options = picker.locator('#route-options li')
    expect(options).to_have_count(5)
    texts = [t.strip() for t in options.all_inner_texts()]
    assert texts == ['No route', 'Routes', f'{tag} planned loop', 'Tracks', f'{tag} morning ride'], texts
    shot(page, 'route-picker-search')
    picker.get_by_role('searchbox', name='Search routes and tracks').fill('no such route xyz')
    expect(picker).to_contain_text('Nothing matches')
    picker.get_by_role('searchbox', name='Search routes and tracks').fill(tag)
    picker.get_by_role('button', name=f'{tag} planned loop').click()
    # Drawn on the map at once, before any ride.
    expect(page.locator('#record-map .leaflet-overlay-pane path.route-path')).to_have_count(1)
    page.close()
