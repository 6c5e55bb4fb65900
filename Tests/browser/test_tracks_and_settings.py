"""The Tracks and Settings tabs, on the server's track store."""
import json
import re
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import api_get, shot

FIXTURE = Path(__file__).resolve().parents[3] / 'shared' / 'fixtures' / 'gpx'


GPX_FIXTURE = """<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="browser test" xmlns="http://www.topografix.com/GPX/1/1">
<trk><name>{name}</name><trkseg>
{points}
</trkseg></trk></gpx>
"""


def write_fixture(folder, name):
    """A straight ride due north: 11 points 100 m apart (1 km), one every 20 s."""
    points = '\n'.join(
        f'<trkpt lat="{46.5 + i * 100 / 111_195:.7f}" lon="6.6"><time>2024-05-01T10:{i // 3:02d}:{i % 3 * 20:02d}Z</time></trkpt>'
        for i in range(11))
    path = folder / f'{name}.gpx'
    path.write_text(GPX_FIXTURE.format(name=name, points=points))
    return path


class Finger:
    """One finger on the touch screen, through Chromium's own input pipeline (CDP `Input.dispatchTouchEvent`), so
    that the browser decides as on a phone whether a move is a scroll, and ends the touch the way it would (a
    scroll ends it with `pointercancel`). Coordinates are CSS pixels in the viewport."""

    def __init__(self, page):
        self.page = page
        self.cdp = page.context.new_cdp_session(page)
        self.at = None

    def send(self, kind, points):
        self.cdp.send('Input.dispatchTouchEvent', {'type': kind, 'touchPoints': points})

    def down(self, x, y):
        self.at = (x, y)
        self.send('touchStart', [{'x': x, 'y': y}])

    def move_to(self, x, y, steps=12):
        (x0, y0) = self.at
        for i in range(1, steps + 1):
            self.send('touchMove', [{'x': x0 + (x - x0) * i / steps, 'y': y0 + (y - y0) * i / steps}])
            self.page.wait_for_timeout(16)  # about one frame a move, as a finger on a phone
        self.at = (x, y)

    def up(self):
        self.send('touchEnd', [])
        self.cdp.detach()

    def cancel(self):
        self.send('touchCancel', [])
        self.cdp.detach()


def touch_drag(page, start, end):
    finger = Finger(page)
    finger.down(*start)
    finger.move_to(*end)
    finger.up()


def test_import_by_the_file_picker_lists_the_track_with_its_distance(context, tmp_path):
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    expect(page.get_by_role('heading', name='Tracks', level=2)).to_be_visible()
    name = f'Imported {context.viewport_name}'
    gpx = write_fixture(tmp_path, name)
    page.get_by_label('Import GPX, FIT, TCX, .gpx436, GeoJSON or zip files').set_input_files(str(gpx))
    row = page.get_by_role('list', name='Imports').get_by_role('listitem').first
    expect(row).to_contain_text(gpx.name)
    expect(row).to_contain_text('imported')
    page.get_by_label('Search tracks').fill(name)  # other tests' newer tracks may fill the first page
    listed = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(has_text=name)
    expect(listed).to_have_count(1)
    expect(listed).to_contain_text(re.compile(r'1000 m|1\.0 km|0\.62 mi'))
    shot(page, 'tracks-imported')
    # The result stays until it is dismissed.
    page.wait_for_timeout(5000)
    expect(row).to_contain_text('imported')
    row.get_by_role('button', name=f'Dismiss {gpx.name}').click()
    expect(page.get_by_role('list', name='Imports').get_by_role('listitem').filter(has_text=gpx.name)).to_have_count(0)
    # A file that is not a track is refused with the reader's reason, and the others go on.
    bad = tmp_path / 'broken.gpx'
    bad.write_text('<gpx><trk><trkseg></trk></gpx>')
    page.get_by_label('Import GPX, FIT, TCX, .gpx436, GeoJSON or zip files').set_input_files(str(bad))
    failed = page.get_by_role('list', name='Imports').get_by_role('listitem').filter(has_text='broken.gpx')
    expect(failed).to_contain_text('not imported')
    expect(failed).to_contain_text('line')


def test_settings_change_the_units(context):
    page = context.new_page()
    page.goto('/#/settings')
    page.wait_for_selector('body[data-ready="true"]')
    page.get_by_label('Imperial (mi, ft, mph)').check()
    expect(page.get_by_label('Drop a breadcrumb pin every 50 m')).to_be_checked()
    assert page.evaluate("() => localStorage.getItem('bikeride.units')") == 'imperial'
    shot(page, 'settings')
    page.get_by_role('link', name='Record', exact=True).click()
    page.get_by_role('button', name='Start').click()
    page.wait_for_selector('body[data-recording-state="recording"]')
    expect(page.locator('#stat-distance')).to_have_text('0 ft')


def test_delete_hides_the_track_and_undo_brings_it_back(context, server):
    """The ride just stopped is in the list; deleting it deletes it on the server at once (a tab closed right
    after loses nothing), and Undo restores it through the server."""
    import re
    from conftest import l_shaped_path
    from test_record import open_record, ride, start_ride, stop_and_save, _poll_outbox_empty
    page = context.new_page()
    open_record(page)
    start_ride(page)
    ride(context, page, l_shaped_path(50, 0, 10))
    _poll_outbox_empty(page, 15000)
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    track_id = page.url.rsplit('/', 1)[1]
    expect(page.get_by_role('link', name='GPX', exact=True)).to_have_attribute('href', re.compile(r'^/api/tracks/[\w-]+\.gpx$'))
    page.get_by_role('link', name='← All tracks').click()
    # Other tests' rides share the server: only this ride's row.
    rows = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(
        has=page.locator(f'a[href="#/tracks/{track_id}"]'))
    expect(rows).to_have_count(1)
    requests = []
    page.on('request', lambda request: requests.append(request.method) if request.method in ('DELETE', 'POST') else None)
    if page.context.viewport_name == 'phone':
        # Swipe the row left with a finger, well past the threshold (40 % of the row's width).
        box = rows.first.bounding_box()
        y = box['y'] + box['height'] / 2
        x = box['x'] + box['width'] - 20
        touch_drag(page, (x, y), (x - box['width'] * 0.6, y))
    else:
        rows.first.get_by_role('button', name=re.compile(r'^Delete Ride ')).click()
    expect(rows).to_have_count(0)
    undo = page.get_by_role('button', name='Undo')
    expect(undo).to_be_visible()
    assert track_id not in saved_track_ids(server), 'deleted on the server at once'
    shot(page, 'deleted-undo')
    undo.click()
    expect(rows.first).to_be_visible()
    expect(undo).to_be_hidden()
    assert requests == ['DELETE', 'POST'], requests
    assert track_id in saved_track_ids(server), 'Undo restored it on the server'


def test_a_stopped_ride_is_in_the_tracks_list_after_a_reload(context):
    import re
    from conftest import l_shaped_path
    from test_record import open_record, ride, start_ride, stop_and_save, _poll_outbox_empty
    page = context.new_page()
    open_record(page)
    start_ride(page)
    ride(context, page, l_shaped_path(60, 0, 10))
    _poll_outbox_empty(page, 15000)
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    track_id = page.url.rsplit('/', 1)[1]
    # Not the copy the page kept of the Stop answer: a reload, and the list from the server.
    page.evaluate("() => sessionStorage.clear()")
    page.goto('/#/tracks')
    page.reload()
    page.wait_for_selector('body[data-ready="true"]')
    row = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(
        has=page.locator(f'a[href="#/tracks/{track_id}"]'))
    expect(row).to_have_count(1)
    expect(row).to_contain_text('Ride ')
    row.get_by_role('link').first.click()
    expect(page.get_by_role('heading', level=2).filter(has_text='Ride ')).to_be_visible()
    shot(page, 'stopped-ride-after-reload')


def test_a_big_track_opens_with_a_line_for_its_map_and_gains_detail_when_zoomed(context, server, tmp_path):
    import json
    import subprocess
    import sys
    import urllib.request
    # A generated ride of 20,000 points (about 100 km), uploaded through the API.
    gpx = tmp_path / 'big.gpx'
    subprocess.run([sys.executable, str(Path(__file__).resolve().parents[2] / 'Benchmarks' / 'generate_ride.py'), '20000', str(gpx)],
                   check=True, capture_output=True)
    request = urllib.request.Request(f'{server}/api/tracks?name=big.gpx', data=gpx.read_bytes(), method='POST',
                                     headers={'Content-Type': 'application/gpx+xml'})
    with urllib.request.urlopen(request, timeout=60) as response:
        track = json.loads(response.read())['tracks'][0]
    assert track['pointCount'] == 20000

    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    # Other tests' tracks (the overview's and heatmap's years of rides) may push it past the first page: found by name.
    page.get_by_label('Search tracks').fill(track['name'])
    expect(page.locator(f'#track-list a[href="#/tracks/{track["id"]}"]')).to_have_count(1)
    with page.expect_response(lambda r: re.search(rf'/api/tracks/{track["id"]}\?fit=\d+x\d+$', r.url)) as first:
        page.locator(f'#track-list a[href="#/tracks/{track["id"]}"]').click()
    answer = first.value.json()
    drawn = sum(len(segment) for segment in answer['segments'])
    # Simplified for the map it is drawn in: far fewer points than the track has, and the server says for which zoom.
    assert answer['pointCount'] == 20000 and isinstance(answer['simplifiedForZoom'], int)
    assert 100 < drawn < 5000, drawn
    line = page.locator('#track-map path.ride-path')
    expect(line).to_have_count(1)
    assert len(re.findall(r'[ML]', line.get_attribute('d'))) > 50
    expect(page.get_by_role('img', name=re.compile(r'^Elevation from '))).to_be_visible()
    shot(page, 'big-track')

    # Zoomed in one step, the line is asked for again with the detail of the new zoom.
    with page.expect_response(lambda r: re.search(rf'/api/tracks/{track["id"]}\?zoom=\d+$', r.url)) as detail:
        page.locator('#track-map').get_by_role('button', name='Zoom in').click()
    finer = detail.value.json()
    assert finer['simplifiedForZoom'] == answer['simplifiedForZoom'] + 1
    assert sum(len(segment) for segment in finer['segments']) > drawn
    expect(page.locator('#track-map')).to_have_attribute('data-line-zoom', str(finer['simplifiedForZoom']))


# --- swipe to delete, and scrolling, on a phone -----------------------------------------------------------------



def upload_track(server, name):
    # Ridden long ago: the list is newest first, and these must not push other tests' tracks off its first page.
    points = '\n'.join(
        f'<trkpt lat="{46.7 + i * 0.0009:.7f}" lon="6.8"><time>2001-07-01T08:00:{i * 5:02d}Z</time></trkpt>' for i in range(10))
    request = urllib.request.Request(
        f'{server}/api/tracks?name={urllib.parse.quote(name)}.gpx', data=GPX_FIXTURE.format(name=name, points=points).encode(),
        method='POST', headers={'Content-Type': 'application/gpx+xml'})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())['tracks'][0]['id']


def saved_track_ids(server, search=''):
    """Every track the server's store has (whose name has `search`), through the API's pages."""
    ids, cursor = [], None
    while True:
        query = {'limit': 100, 'q': search, **({'cursor': cursor} if cursor else {})}
        page = api_get(server, '/api/tracks?' + urllib.parse.urlencode(query))
        ids += [track['id'] for track in page['tracks']]
        cursor = page.get('nextCursor')
        if not cursor:
            return sorted(ids)


FODDER = 'Scroll fodder'


@pytest.fixture
def phone_list(context, server):
    """The Tracks tab on a phone, searched for tracks of its own (the ones these tests may delete), a list longer
    than the screen; DELETE requests are recorded."""
    for _ in range(22 - len(saved_track_ids(server, FODDER))):
        upload_track(server, f'{FODDER} {uuid.uuid4().hex[:8]}')
    page = context.new_page()
    page.deletes = []
    page.on('request', lambda request: page.deletes.append(request.url) if request.method == 'DELETE' else None)
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    page.get_by_label('Search tracks').fill(FODDER)
    page.get_by_label('Search tracks').press('Enter')
    rows = page.locator('#track-list > li')
    expect(rows.filter(has_text=FODDER)).to_have_count(20)  # a full first page, of these tracks only
    expect(rows).to_have_count(20)
    # Counts the gestures the browser took over (a scroll ends the touch with pointercancel, clientX 0).
    page.evaluate("""() => { window.pointerCancels = 0;
        document.getElementById('track-list').addEventListener('pointercancel', () => { window.pointerCancels += 1; }); }""")
    return page


def visible_rows(page):
    return page.locator('#track-list > li:visible')


def first_row(page):
    """The first row of the list, found by its track (a `:visible` locator would move on to the next row)."""
    href = visible_rows(page).first.locator('a').get_attribute('href')
    return page.locator('#track-list > li').filter(has=page.locator(f'a[href="{href}"]'))


@pytest.mark.parametrize('viewport', ['phone'])
def test_scrolling_the_list_with_a_finger_on_a_row_deletes_nothing(phone_list, server):
    page = phone_list
    before = saved_track_ids(server)
    shown = visible_rows(page).count()
    scroller = page.locator('#tracks-view')
    # Three flicks up, each starting on a row in the middle of the screen, a little slanted as a thumb moves.
    for _ in range(3):
        height = page.viewport_size['height']
        for index in range(visible_rows(page).count()):
            box = visible_rows(page).nth(index).bounding_box()
            if box['y'] > height * 0.45:
                break
        x, y = box['x'] + box['width'] * 0.6, box['y'] + box['height'] / 2
        touch_drag(page, (x, y), (x - 25, y - 260))
        page.wait_for_timeout(300)
    assert scroller.evaluate('element => element.scrollTop') > 200, 'the list scrolled'
    assert page.evaluate('window.pointerCancels') >= 3, 'the browser took each scroll over (pointercancel)'
    expect(page.locator('#undo-bar')).to_be_hidden()
    assert visible_rows(page).count() == shown
    assert page.locator('#track-list li.swiping').count() == 0
    page.wait_for_timeout(300)
    assert not page.deletes
    assert saved_track_ids(server) == before


@pytest.mark.parametrize('viewport', ['phone'])
def test_a_cancelled_swipe_deletes_nothing(phone_list, server):
    page = phone_list
    before = saved_track_ids(server)
    row = first_row(page)
    box = row.bounding_box()
    x, y = box['x'] + box['width'] - 20, box['y'] + box['height'] / 2
    # Far enough left to delete, then the browser cancels the touch (a call comes in, the system takes it).
    finger = Finger(page)
    finger.down(x, y)
    finger.move_to(x - box['width'] * 0.7, y)
    expect(row).to_have_class(re.compile(r'\bswipe-armed\b'))
    finger.cancel()
    assert page.evaluate('window.pointerCancels') == 1
    # And the same from events alone, as the old code misread them: a pointercancel at clientX 0.
    for kind, clientX in [('pointerdown', x), ('pointermove', x - 30), ('pointermove', x - 200), ('pointercancel', 0)]:
        row.dispatch_event(kind, {'pointerType': 'touch', 'pointerId': 7, 'isPrimary': True, 'clientX': clientX, 'clientY': y, 'bubbles': True})
    expect(row).to_be_visible()
    expect(row).not_to_have_class(re.compile(r'\bswiping\b'))
    assert row.locator('.track-row').evaluate('element => element.style.transform') == ''
    expect(page.locator('#undo-bar')).to_be_hidden()
    page.wait_for_timeout(300)
    assert not page.deletes
    assert saved_track_ids(server) == before


@pytest.mark.parametrize('viewport', ['phone'])
def test_a_short_swipe_springs_back_and_a_long_one_deletes_with_undo(phone_list, server):
    page = phone_list
    before = saved_track_ids(server)
    row = first_row(page)
    box = row.bounding_box()
    x, y = box['x'] + box['width'] - 20, box['y'] + box['height'] / 2

    # Short of the threshold (40 % of the row): the row comes back.
    touch_drag(page, (x, y), (x - box['width'] * 0.25, y))
    expect(row).to_be_visible()
    expect(page.locator('#undo-bar')).to_be_hidden()
    expect(row).not_to_have_class(re.compile(r'\bswiping\b'))

    # Past it: mid-swipe the row has slid and the red Delete area shows under it.
    finger = Finger(page)
    finger.down(x, y)
    finger.move_to(x - box['width'] * 0.55, y)
    reveal = row.locator('.swipe-reveal')
    expect(reveal).to_be_visible()
    expect(reveal).to_have_text('Delete')
    slid = row.locator('.track-row').bounding_box()['x'] - box['x']
    assert slid < -box['width'] * 0.5, slid
    red = reveal.evaluate('element => getComputedStyle(element).backgroundColor')
    r, g, b = (int(part) for part in re.fullmatch(r'rgb\((\d+), (\d+), (\d+)\)', red).groups())
    assert r > 120 and g < 80 and b < 80, red
    path = shot(page, 'swipe-mid')
    finger.up()
    expect(row).to_be_hidden()
    undo = page.get_by_role('button', name='Undo')
    expect(undo).to_be_visible()
    undo.click()
    expect(row).to_be_visible()
    # Deleted on the server at once, and restored by Undo.
    assert len(page.deletes) == 1
    assert saved_track_ids(server) == before

    # And without Undo it stays deleted on the server.
    href = row.locator('a').get_attribute('href')
    touch_drag(page, (x, y), (x - box['width'] * 0.6, y))
    expect(row).to_have_count(0)
    deleted = urllib.parse.unquote(href.rsplit('/', 1)[1])
    assert len(page.deletes) == 2 and page.deletes[1].endswith(deleted)
    assert saved_track_ids(server) == sorted(set(before) - {deleted})
    assert path.exists()


def test_a_waypoints_only_file_makes_no_track_and_offers_places(context, tmp_path, server):
    """Issue 24: a file of waypoints only is no 0 m track; the row says why and imports the waypoints as places."""
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    tag = uuid.uuid4().hex[:8]
    errands = tmp_path / f'errands-{tag}.gpx'
    errands.write_text(
        '<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">'
        f'<wpt lat="46.51" lon="6.61"><name>Bakery {tag}</name></wpt><wpt lat="46.52" lon="6.62"><name>Post {tag}</name></wpt></gpx>')
    page.get_by_label('Import GPX, FIT, TCX, .gpx436, GeoJSON or zip files').set_input_files(str(errands))
    row = page.get_by_role('list', name='Imports').get_by_role('listitem').filter(has_text=errands.name)
    expect(row).to_contain_text('only waypoints')
    shot(page, 'waypoints-only-refused')
    row.get_by_role('button', name='Import its waypoints as places').click()
    expect(row).to_contain_text('2 places imported')
    shot(page, 'waypoints-only-as-places')
    places = api_get(server, f'/api/places?q={tag}')['places']
    assert sorted(place['name'] for place in places) == [f'Bakery {tag}', f'Post {tag}']
