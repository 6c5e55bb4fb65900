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
