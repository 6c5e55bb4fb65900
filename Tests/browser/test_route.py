"""Following a route in the web app, on a phone and a desktop viewport: choosing a saved track as the route, the
route drawn under the ride, the next turn in a banner, the off-route alert, spoken cues, heading-up, and the
route's turns on its track page. The route is an L: 300 m east, then 300 m north, so its one turn is a left."""
import json
import re
import urllib.request

from playwright.sync_api import expect

from conftest import START, offset, shot
from test_record import _poll_outbox_empty, open_record, ride, start_ride, stop_and_save

ROUTE_COLOUR = '#7b2cbf'

# Speech is replaced by a list of what would be said: headless Chromium has no voice, and the test reads it.
RECORD_SPEECH = """
window.__spoken = [];
if ('speechSynthesis' in window) window.speechSynthesis.speak = (utterance) => window.__spoken.push(utterance.text);
"""


def l_route_gpx(name):
    """East 300 m, then north 300 m, a point every 10 m: one left turn, at (300 m east, 0)."""
    points = [offset(d, 0) for d in range(0, 301, 10)] + [offset(300, d) for d in range(10, 301, 10)]
    trkpts = ''.join(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"></trkpt>' for lat, lon in points)
    return (f'<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">'
            f'<trk><name>{name}</name><trkseg>{trkpts}</trkseg></trk></gpx>').encode()


def upload_route(server, name):
    request = urllib.request.Request(server + '/api/tracks', data=l_route_gpx(name), method='POST',
                                     headers={'Content-Type': 'application/gpx+xml'})
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.loads(response.read())
    tracks = answer['tracks']
    assert len(tracks) == 1, answer
    return tracks[0]['id']


def at(east, north):
    return [offset(east, north)]


def test_announcement_timing_follows_speed_and_never_repeats(context):
    page = context.new_page()
    page.goto('/#/settings')
    page.wait_for_selector('body[data-ready="true"]')
    said = page.evaluate("""async () => {
      const { announcement } = await import('/js/announce.js');
      const run = (speed, distances) => {
        const spoken = new Set(), out = [];
        for (const d of distances) {
          const said = announcement({ text: 'Turn left', distanceMeters: d, latitude: 1, longitude: 2 }, speed, spoken);
          if (said) { spoken.add(said.key); out.push([d, said.kind]); }
        }
        return out;
      };
      return {
        // 5 m/s: 30 s is 150 m (also the floor), 15 s is 75 m; "turn" within 40 m (8 s is 40 m too).
        slow: run(5, [400, 250, 140, 100, 60, 35, 20, 10]),
        // 10 m/s: prepare between 300 m and 150 m, turn within 80 m.
        fast: run(10, [400, 290, 200, 120, 70, 30]),
        // First seen closer than 15 s: no "prepare", only the turn.
        late: run(10, [100, 90, 70, 50]),
        // Speed unknown: the distances alone.
        unknown: run(null, [200, 149, 41, 39]),
      };
    }""")
    assert said['slow'] == [[140, 'prepare'], [35, 'turn']]
    assert said['fast'] == [[290, 'prepare'], [70, 'turn']]
    assert said['late'] == [[70, 'turn']]
    assert said['unknown'] == [[149, 'prepare'], [39, 'turn']]


def test_following_a_route_shows_turns_and_off_route(context, server):
    name = f'L route {context.viewport_name}'
    route_id = upload_route(server, name)
    context.add_init_script(RECORD_SPEECH)
    page = context.new_page()
    open_record(page)

    # Choose the route: remembered on the device, drawn in purple under where the ride will go.
    page.get_by_role('button', name='Route: none').click()
    page.get_by_role('group', name='Choose a route').get_by_role('button', name=name).click()
    expect(page.locator('#route-button')).to_have_text(f'Route: {name}')
    assert json.loads(page.evaluate("localStorage.getItem('bikeride.route')"))['id'] == route_id
    route_line = page.locator(f'#record-map .leaflet-overlay-pane path.route-path[stroke="{ROUTE_COLOUR}"]')
    expect(route_line).to_have_count(1)
    assert route_line.get_attribute('stroke-width') == '4'
    assert abs(float(route_line.get_attribute('stroke-opacity')) - 0.7) < 0.01

    start_ride(page)
    banner = page.locator('#cue-banner')
    alert = page.locator('#off-route')
    # East along the first leg: before the corner the banner says to turn left, with the left arrow.
    ride(context, page, [p for d in range(10, 241, 10) for p in at(d, 0)])
    _poll_outbox_empty(page, 15000)
    expect(banner).to_be_visible()
    expect(banner).to_have_attribute('role', 'status')
    expect(banner).to_contain_text(re.compile(r'^←\s*Turn left'))
    assert float(page.evaluate("getComputedStyle(document.getElementById('cue-text')).fontSize").rstrip('px')) >= 24
    expect(alert).to_be_hidden()
    shot(page, 'route-turn-ahead')

    # Round the corner and north: no turn left on the route, the banner changes to following it.
    ride(context, page, [p for d in range(250, 301, 10) for p in at(d, 0)] + [p for d in range(10, 101, 10) for p in at(300, d)])
    _poll_outbox_empty(page, 15000)
    expect(banner).to_contain_text('Follow the route')
    expect(banner).not_to_contain_text('Turn left')
    spoken = page.evaluate('window.__spoken')
    assert 1 <= len(spoken) <= 2 and all(text.startswith('Turn left') for text in spoken), spoken

    # 150 m east of the second leg: the red alert, with how far the route is.
    ride(context, page, at(350, 100) + at(400, 100) + at(450, 100))
    _poll_outbox_empty(page, 15000)
    expect(alert).to_be_visible()
    expect(alert).to_have_attribute('role', 'alert')
    text = alert.inner_text()
    away = int(re.search(r'Off route — (\d+) m from the route', text).group(1))
    assert 140 <= away <= 160, text
    expect(banner).to_be_hidden()
    shot(page, 'route-off')

    # Back on the route (riding west): the alert goes.
    ride(context, page, at(400, 100) + at(350, 100) + at(310, 100) + at(300, 100))
    _poll_outbox_empty(page, 15000)
    expect(alert).to_be_hidden()
    expect(banner).to_be_visible()

    # Mid-ride, changing the route needs the server: offline the rider is told, and the route stays.
    picker = page.get_by_role('group', name='Choose a route')
    context.set_offline(True)
    page.locator('#route-button').click()
    picker.get_by_role('button', name='No route').click()
    expect(page.locator('#sync-status')).to_contain_text('route cannot be changed')
    expect(page.locator('#route-button')).to_have_text(f'Route: {name}')
    expect(route_line).to_have_count(1)
    context.set_offline(False)
    # Online: dropped (banner and line go), then chosen again (they come back).
    page.locator('#route-button').click()
    picker.get_by_role('button', name='No route').click()
    expect(page.locator('#route-button')).to_have_text('Route: none')
    expect(banner).to_be_hidden()
    expect(route_line).to_have_count(0)
    page.locator('#route-button').click()
    picker.get_by_role('button', name=name).click()
    expect(route_line).to_have_count(1)
    expect(banner).to_contain_text('Follow the route')

    # Heading-up: the map turns by minus the heading (west, 270°: a quarter turn), the button says so.
    compass = page.locator('#compass-button')
    expect(compass).to_have_attribute('aria-pressed', 'false')
    compass.click()
    expect(compass).to_have_attribute('aria-pressed', 'true')
    matrix = page.evaluate("getComputedStyle(document.getElementById('record-map')).transform")
    a, b = (float(x) for x in re.match(r'matrix\(([^,]+), ([^,]+),', matrix).groups())
    assert abs(a) < 0.05 and abs(b - 1) < 0.05, matrix  # rotate(-270deg) = rotate(90deg)
    box = page.locator('#compass-button').bounding_box()
    assert box['width'] >= 44 and box['height'] >= 44
    shot(page, 'route-heading-up')
    # A drag on the turned map moves it with the finger, on screen, as on a map that is not turned.
    dot = page.locator('path.me-dot')
    before = dot.bounding_box()
    view = page.locator('#record-view').bounding_box()
    x, y = view['x'] + view['width'] / 2, view['y'] + view['height'] / 3
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 120, y, steps=6)
    page.mouse.up()
    after = dot.bounding_box()
    assert abs(after['x'] - before['x'] - 120) < 12 and abs(after['y'] - before['y']) < 12, (before, after)
    expect(page.get_by_role('button', name='Follow my position')).to_have_attribute('aria-pressed', 'false')
    compass.click()
    expect(compass).to_have_attribute('aria-pressed', 'false')
    assert page.evaluate("getComputedStyle(document.getElementById('record-map')).transform") == 'none'

    # Stop; the route's own page lists its turn.
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    expect(banner).to_be_hidden()
    page.goto(f'/#/tracks/{route_id}')
    expect(page.get_by_role('heading', name='Turns', level=3)).to_be_visible()
    turns = page.locator('#cue-list li')
    expect(turns).to_have_count(1)
    expect(turns.first).to_contain_text('Turn left')
    shot(page, 'route-turns')
    # Remembered for the next ride.
    page.goto('/#/record')
    expect(page.locator('#route-button')).to_have_text(f'Route: {name}')
    page.close()


def test_without_leaflet_the_route_is_drawn_in_the_line_drawing(context_without_leaflet, server_without_leaflet):
    context = context_without_leaflet
    name = f'L route without map {context.viewport_name}'
    upload_route(server_without_leaflet, name)
    page = context.new_page()
    page.goto('/#/record')
    page.wait_for_selector('body[data-ready="true"]')
    page.wait_for_selector('#record-map[data-map-library="missing"]')
    page.get_by_role('button', name='Route: none').click()
    page.get_by_role('group', name='Choose a route').get_by_role('button', name=name).click()
    route_line = page.locator(f'#record-map svg.line-map polyline.route-path[stroke="{ROUTE_COLOUR}"]')
    expect(route_line).to_have_count(1)
    # The L's three corners (start, turn, end) are in the drawn line.
    assert len(route_line.get_attribute('points').split()) >= 3
    shot(page, 'route-without-leaflet')
    page.close()
