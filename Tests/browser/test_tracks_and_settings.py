"""The Tracks and Settings tabs, on the server's track store."""
import re
from pathlib import Path

from playwright.sync_api import expect

from conftest import shot

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


def test_import_by_the_file_picker_lists_the_track_with_its_distance(context, tmp_path):
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    expect(page.get_by_role('heading', name='Tracks', level=2)).to_be_visible()
    name = f'Imported {context.viewport_name}'
    gpx = write_fixture(tmp_path, name)
    page.get_by_label('Import GPX, .gpx436 or GeoJSON files').set_input_files(str(gpx))
    row = page.get_by_role('list', name='Imports').get_by_role('listitem').first
    expect(row).to_contain_text(gpx.name)
    expect(row).to_contain_text('imported')
    listed = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(has_text=name)
    expect(listed).to_have_count(1)
    expect(listed).to_contain_text(re.compile(r'1000 m|1\.0 km|0\.62 mi'))
    shot(page, 'tracks-imported')
    # A file that is not a track is refused with the reader's reason, and the others go on.
    bad = tmp_path / 'broken.gpx'
    bad.write_text('<gpx><trk><trkseg></trk></gpx>')
    page.get_by_label('Import GPX, .gpx436 or GeoJSON files').set_input_files(str(bad))
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
    page.get_by_role('link', name='Record').click()
    page.get_by_role('button', name='Start').click()
    page.wait_for_selector('body[data-recording-state="recording"]')
    expect(page.locator('#stat-distance')).to_have_text('0 ft')


def test_delete_hides_the_track_and_undo_brings_it_back(context):
    """The ride just stopped is in the list; deleting it and pressing Undo in time asks nothing of the server."""
    import re
    from conftest import l_shaped_path
    from test_record import open_record, ride, start_ride, _poll_outbox_empty
    page = context.new_page()
    open_record(page)
    start_ride(page)
    ride(context, page, l_shaped_path(50, 0, 10))
    _poll_outbox_empty(page, 15000)
    page.get_by_role('button', name='Stop').click()
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    track_id = page.url.rsplit('/', 1)[1]
    expect(page.get_by_role('link', name='GPX', exact=True)).to_have_attribute('href', re.compile(r'^/api/tracks/[\w-]+\.gpx$'))
    page.get_by_role('link', name='← All tracks').click()
    # Other tests' rides share the server: only this ride's row.
    rows = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(
        has=page.locator(f'a[href="#/tracks/{track_id}"]'))
    expect(rows).to_have_count(1)
    requests = []
    page.on('request', lambda request: requests.append(request) if request.method == 'DELETE' else None)
    if page.context.viewport_name == 'phone':
        # Swipe the row left with a finger (pointer events of type touch).
        row = rows.first
        box = row.bounding_box()
        y = box['y'] + box['height'] / 2
        x = box['x'] + box['width'] - 20
        for kind, dx in [('pointerdown', 0), ('pointermove', -60), ('pointermove', -140), ('pointerup', -140)]:
            row.dispatch_event(kind, {'pointerType': 'touch', 'clientX': x + dx, 'clientY': y, 'isPrimary': True, 'bubbles': True})
    else:
        rows.first.get_by_role('button', name=re.compile(r'^Delete Ride ')).click()
    expect(rows.first).to_be_hidden()
    undo = page.get_by_role('button', name='Undo')
    expect(undo).to_be_visible()
    shot(page, 'deleted-undo')
    undo.click()
    expect(rows.first).to_be_visible()
    expect(undo).to_be_hidden()
    page.wait_for_timeout(300)
    assert not requests, 'undo within the time asks nothing of the server'


def test_a_stopped_ride_is_in_the_tracks_list_after_a_reload(context):
    import re
    from conftest import l_shaped_path
    from test_record import open_record, ride, start_ride, _poll_outbox_empty
    page = context.new_page()
    open_record(page)
    start_ride(page)
    ride(context, page, l_shaped_path(60, 0, 10))
    _poll_outbox_empty(page, 15000)
    page.get_by_role('button', name='Stop').click()
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
