"""The Lap button on the Record tab (issue 24), on a phone and a desktop viewport: each press marks a lap at the
latest fix, queued like the fixes so that a press while offline is sent on reconnection once; the saved ride's page
lists the laps with the server's figures."""
import re

from playwright.sync_api import expect

from conftest import api_get, l_shaped_path, shot
from test_record import _poll_outbox_empty, open_record, ride, start_ride, stop_and_save


def test_laps_marked_online_and_offline_are_listed_on_the_ride_page(context, server):
    page = context.new_page()
    open_record(page)
    lap = page.get_by_role('button', name='Lap', exact=True)
    expect(lap).to_be_hidden()
    start_ride(page)
    expect(lap).to_be_visible()
    path = l_shaped_path(250, 150, 10)  # 400 m: 250 east, then 150 north
    ride(context, page, path[:15])
    _poll_outbox_empty(page, 15000)
    lap.click()
    expect(page.locator('#record-notice')).to_have_text('Lap 2 started.')
    shot(page, 'lap-pressed')
    # Offline: the second mark waits in the outbox with the fixes, and is sent once.
    context.set_offline(True)
    ride(context, page, path[15:28])
    lap.click()
    expect(page.locator('#record-notice')).to_have_text('Lap 3 started.')
    lap.click()  # no new fix since: not a lap
    expect(page.locator('#record-notice')).to_contain_text('needs a new position')
    context.set_offline(False)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    ride(context, page, path[28:])
    _poll_outbox_empty(page, 20000)
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    track_id = page.url.rsplit('/', 1)[1]
    track = api_get(server, f'/api/tracks/{track_id}')
    assert track['lapSource'] == 'recorded', track.get('lapSource')
    laps = track['laps']
    assert len(laps) == 3, laps
    total = sum(lap['distanceMeters'] for lap in laps)
    assert abs(total - track['stats']['distanceMeters']) < 5, (total, track['stats']['distanceMeters'])
    table = page.get_by_role('table').filter(has=page.get_by_role('columnheader', name='Lap'))
    expect(table.get_by_role('row')).to_have_count(4, timeout=10000)
    expect(page.get_by_role('heading', name=re.compile('Laps \\(marked with the Lap button'))).to_be_visible()
    page.locator('#track-laps-section').scroll_into_view_if_needed()
    shot(page, 'laps-on-track-page')


def test_the_lap_count_goes_on_after_a_reload_mid_ride(context, server):
    """The lap number comes from the device's outbox, kept with the ride: a reload mid-ride goes on from it rather
    than from a fresh counter (which said "Lap 2" again)."""
    page = context.new_page()
    open_record(page)
    start_ride(page)
    path = l_shaped_path(200, 0, 10)
    lap = page.get_by_role('button', name='Lap', exact=True)
    ride(context, page, path[:6])
    lap.click()
    expect(page.locator('#record-notice')).to_have_text('Lap 2 started.')
    ride(context, page, path[6:10])
    lap.click()
    expect(page.locator('#record-notice')).to_have_text('Lap 3 started.')
    page.reload()
    page.wait_for_selector('body[data-ready="true"]')
    page.wait_for_selector('body[data-recording-state="recording"]')
    ride(context, page, path[10:14])
    lap.click()
    expect(page.locator('#record-notice')).to_have_text('Lap 4 started.')
    shot(page, 'lap-after-reload')
    ride(context, page, path[14:])
    _poll_outbox_empty(page, 20000)
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    track = api_get(server, f"/api/tracks/{page.url.rsplit('/', 1)[1]}")
    assert len(track['laps']) == 4, track['laps']
