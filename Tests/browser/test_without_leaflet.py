"""A server without Debian's libjs-leaflet and a browser that cannot reach the public copy (a fresh machine
offline): the page says in the page that the map library is missing and how to get it, and everything but the
map works: recording (the ride drawn as a line without tiles), the Tracks list, a track's page, Settings."""
import re

import pytest
from playwright.sync_api import expect

from conftest import api_get, l_shaped_path, shot
from test_record import _poll_outbox_empty, distance_meters, ride, stop_and_save

MESSAGE = ('The map library (Leaflet) could not be loaded. On the server: sudo apt-get install libjs-leaflet, '
           'or run bash scripts/start.sh, then reload.')


def map_message(page, region):
    return page.get_by_role('region', name=region).get_by_role('alert')


def test_without_leaflet_the_page_says_so_and_records_the_ride_as_a_line(context_without_leaflet, server_without_leaflet):
    context, server = context_without_leaflet, server_without_leaflet
    page = context.new_page()
    leaflet_answers = []
    page.on('response', lambda response: leaflet_answers.append(response.status) if response.url.endswith('/vendor/leaflet/leaflet.js') else None)
    page.goto('/#/record')
    page.wait_for_selector('body[data-ready="true"]')
    assert leaflet_answers == [302], 'the server sends the browser to the public copy, which it cannot reach'
    assert page.evaluate('typeof window.L') == 'undefined'

    message = map_message(page, 'Map')
    expect(message).to_have_text(MESSAGE)
    expect(message).to_be_visible()
    # The map's own controls go with the map; the record panel stays.
    expect(page.get_by_role('button', name='Follow my position')).to_be_hidden()
    start = page.get_by_role('button', name='Start')
    expect(start).to_be_visible()
    shot(page, 'no-leaflet-record')

    # Recording works: Start, fixes, the figures, the line, Pause/Resume, Stop.
    start.click()
    page.wait_for_selector('body[data-recording-state="recording"]')
    path = l_shaped_path(80, 60, 10)  # 140 m
    ride(context, page, path)
    _poll_outbox_empty(page, 15000)
    assert abs(distance_meters(page) - 140) < 10, distance_meters(page)
    line = page.locator('#record-map polyline.ride-path')
    expect(line).to_have_count(1)
    assert line.get_attribute('stroke') == '#ff0000' and line.get_attribute('stroke-width') == '3'
    drawn = line.get_attribute('points').split()
    assert len(drawn) == int(page.get_attribute('#record-map', 'data-path-points')) >= 10
    # North up and east to the right: the path goes east (x grows, y stays), then north (y shrinks).
    xs = [float(point.split(',')[0]) for point in drawn]
    ys = [float(point.split(',')[1]) for point in drawn]
    corner = xs.index(max(xs))
    assert 0 < corner < len(drawn) - 1 and abs(ys[corner] - ys[0]) < 3 and ys[-1] < ys[corner] - 20
    # The line lies in the part of the map the message and the panel leave free.
    box = page.locator('#record-map').bounding_box()
    top = message.bounding_box()['y'] + message.bounding_box()['height'] - box['y']
    panel = page.locator('.record-panel').bounding_box()
    assert all(top < y for y in ys)
    if panel['width'] > box['width'] * 0.6:
        assert all(y < panel['y'] - box['y'] for y in ys)
    expect(page.locator('#record-map circle.me-dot')).to_have_count(1)
    shot(page, 'no-leaflet-recording')
    page.get_by_role('button', name='Pause').click()
    page.get_by_role('button', name='Resume').click()
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    track_id = page.url.rsplit('/', 1)[1]

    # The track's page: figures and profiles, the line without the map, and the same message.
    expect(page.locator('#track-stats')).to_contain_text('Distance')
    expect(page.locator('#track-stats')).to_contain_text(re.compile(r'1[34]\d m'))
    expect(map_message(page, 'Track map')).to_have_text(MESSAGE)
    expect(page.locator('#track-map polyline.ride-path')).to_have_count(1)
    expect(page.get_by_role('img', name=re.compile(r'^Speed from '))).to_be_visible()
    shot(page, 'no-leaflet-track')

    # The Tracks list has it.
    page.get_by_role('link', name='← All tracks').click()
    row = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(has=page.locator(f'a[href="#/tracks/{track_id}"]'))
    expect(row).to_have_count(1)
    assert any(track['id'] == track_id for track in api_get(server, '/api/tracks?limit=100')['tracks'])
    shot(page, 'no-leaflet-tracks')

    # Settings opens and works.
    page.get_by_role('link', name='Settings').click()
    expect(page.get_by_role('heading', name='Settings', level=2)).to_be_visible()
    page.get_by_label('Imperial (mi, ft, mph)').check()
    assert page.evaluate("() => localStorage.getItem('bikeride.units')") == 'imperial'
    shot(page, 'no-leaflet-settings')


@pytest.mark.parametrize('viewport', ['phone'])
def test_a_map_library_that_never_answers_does_not_hang_the_app(context_without_leaflet):
    context = context_without_leaflet
    waiting = []
    context.route('**/vendor/leaflet/leaflet.js', lambda route: waiting.append(route))  # never answered
    page = context.new_page()
    # The Tracks tab does not wait for the map library at all (the page's load event never comes: not waited for).
    page.goto('/#/tracks', wait_until='domcontentloaded')
    page.wait_for_selector('body[data-ready="true"]')
    expect(page.get_by_role('heading', name='Tracks', level=2)).to_be_visible()
    assert len(waiting) == 1, 'Leaflet was asked for and is still not answered'
    # The Record tab gives up on it after its time limit (10 s) and says so.
    page.get_by_role('link', name='Record', exact=True).click()
    expect(map_message(page, 'Map')).to_have_text(MESSAGE, timeout=20000)
    expect(page.get_by_role('button', name='Start')).to_be_visible()
    page.get_by_role('button', name='Start').click()
    page.wait_for_selector('body[data-recording-state="recording"]')
