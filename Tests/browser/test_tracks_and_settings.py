"""The Tracks and Settings tabs, as far as they go before the track store is wired in."""
from pathlib import Path

from playwright.sync_api import expect

from conftest import shot

FIXTURE = Path(__file__).resolve().parents[3] / 'shared' / 'fixtures' / 'gpx'


def test_tracks_say_what_is_missing_and_imports_report_per_file(context):
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    expect(page.get_by_role('heading', name='Tracks', level=2)).to_be_visible()
    expect(page.get_by_role('status').filter(has_text='track store')).to_be_visible()
    gpx = next(FIXTURE.rglob('*.gpx'), None)
    if gpx is None:
        gpx = Path(__file__).parent / 'make_mbtiles.py'  # any file: the server refuses it either way for now
    page.get_by_label('Import GPX, .gpx436 or GeoJSON files').set_input_files(str(gpx))
    row = page.get_by_role('list', name='Imports').get_by_role('listitem').first
    expect(row).to_contain_text(gpx.name)
    expect(row).to_contain_text('no track store yet')
    shot(page, 'tracks')


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
    """Until the store lands the only listed track is the ride just stopped; the undo needs no server."""
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
    expect(page.get_by_role('link', name='GPX', exact=True)).to_have_attribute('href', re.compile(r'^/api/tracks/[\w-]+\.gpx$'))
    page.get_by_role('link', name='← All tracks').click()
    rows = page.get_by_role('list', name='Saved tracks').get_by_role('listitem')
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
        page.get_by_role('button', name=re.compile(r'^Delete Ride ')).click()
    expect(rows.first).to_be_hidden()
    undo = page.get_by_role('button', name='Undo')
    expect(undo).to_be_visible()
    shot(page, 'deleted-undo')
    undo.click()
    expect(rows.first).to_be_visible()
    expect(undo).to_be_hidden()
    page.wait_for_timeout(300)
    assert not requests, 'undo within the time asks nothing of the server'
