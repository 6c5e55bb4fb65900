"""The web app's simulated ride along any saved track (issue 9, part 4): from a track's page, "Simulate a ride
along it" opens the Record tab with the server's simulation of that track in place of the GPS."""
import re

from playwright.sync_api import expect

from conftest import shot, wait_until
from test_record import distance_meters, start_ride
from test_route import upload_route


def test_a_saved_track_can_be_ridden_without_a_gps(context, server):
    track_id = upload_route(server, 'Simulated L')
    page = context.new_page()
    page.goto(f'/#/tracks/{track_id}')
    page.wait_for_selector('body[data-ready="true"]')
    link = page.get_by_role('link', name='Simulate a ride along it')
    expect(link).to_have_attribute('href', re.compile(rf'simulate=\d+&track={track_id}'))
    link.click()
    page.wait_for_selector('body[data-ready="true"]')
    wait_until(page, "() => location.hash.includes('simulate=')")
    page.wait_for_selector('path.me-dot')
    start_ride(page)
    wait_until(page, "() => Number(document.getElementById('record-map').dataset.pathPoints || 0) >= 4", timeout=15000)
    # 18 km/h from the route's start: 5 m a second along its first leg (the emulated GPS stands still).
    assert distance_meters(page) > 10
    shot(page, 'simulated-track')


def test_an_unknown_track_cannot_be_simulated_and_says_so(context):
    page = context.new_page()
    page.goto('/#/record?simulate=18&track=ZZZZZZZZ')
    page.wait_for_selector('body[data-ready="true"]')
    expect(page.get_by_text(re.compile('Cannot simulate this ride: .*ZZZZZZZZ'))).to_be_visible(timeout=10000)


def test_a_simulated_ride_is_marked_and_can_be_kept_as_a_real_one(context, server):
    """Issue 24: the Record tab marks a simulated ride; its page says it counts nowhere and offers to keep it, after
    which the server counts it (its source is `recording`)."""
    from test_record import stop_and_save, _poll_outbox_empty
    from conftest import api_get
    page = context.new_page()
    page.goto('/#/record?simulate=36')
    page.wait_for_selector('body[data-ready="true"]')
    page.wait_for_selector('path.me-dot')
    start_ride(page)
    badge = page.locator('#simulated-badge')
    expect(badge).to_be_visible()
    expect(badge).to_have_text('Simulated')
    wait_until(page, "() => Number(document.getElementById('record-map').dataset.pathPoints || 0) >= 4", timeout=15000)
    shot(page, 'simulated-badge-record')
    _poll_outbox_empty(page, 15000)
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    track_id = page.url.rsplit('/', 1)[1]
    note = page.locator('#track-simulated')
    expect(note).to_be_visible(timeout=10000)
    expect(note).to_contain_text('left out of totals, records')
    shot(page, 'simulated-track-page')
    assert api_get(server, f'/api/tracks/{track_id}')['source'] == 'simulation'
    page.get_by_role('button', name='Keep as a real ride').click()
    expect(page.locator('#track-message')).to_contain_text('Kept as a real ride', timeout=10000)
    expect(note).to_be_hidden()
    assert api_get(server, f'/api/tracks/{track_id}')['source'] == 'recording'
    shot(page, 'simulated-track-kept')


def test_a_simulated_ride_stays_marked_after_a_reload_in_the_list_and_on_its_page(context, server):
    """Issue 24: the Simulated badge is not only for the moment of recording. A reload of the Record tab mid-ride
    keeps it (the device and the server both know the ride is simulated), even on the plain Record tab; the saved
    ride is marked in the Tracks list and on its page."""
    from test_record import stop_and_save, _poll_outbox_empty
    from conftest import api_get
    page = context.new_page()
    page.goto('/#/record?simulate=36')
    page.wait_for_selector('body[data-ready="true"]')
    page.wait_for_selector('path.me-dot')
    start_ride(page)
    badge = page.locator('#simulated-badge')
    expect(badge).to_be_visible()
    wait_until(page, "() => Number(document.getElementById('record-map').dataset.pathPoints || 0) >= 3", timeout=15000)
    recording = page.evaluate("""() => new Promise((resolve) => {
      const open = indexedDB.open('bikeride');
      open.onsuccess = () => {
        const request = open.result.transaction('meta').objectStore('meta').get('current');
        request.onsuccess = () => resolve(request.result.recording);
      };
    })""")
    assert api_get(server, f"/api/recordings/{recording['id']}")['simulated'] is True
    # The plain Record tab (no demo mode in the address): the ride in progress is still the simulated one.
    page.goto('/#/record')
    page.reload()
    page.wait_for_selector('body[data-ready="true"]')
    page.wait_for_selector('body[data-recording-state="recording"]')
    expect(badge).to_be_visible()
    expect(badge).to_have_text('Simulated')
    shot(page, 'simulated-badge-after-reload')
    _poll_outbox_empty(page, 15000)
    stop_and_save(page)
    page.wait_for_url(re.compile(r'#/tracks/[\w-]+$'))
    track_id = page.url.rsplit('/', 1)[1]
    expect(page.locator('#track-simulated')).to_be_visible(timeout=10000)
    # A ride that is not simulated has no badge on the Record tab.
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    row = page.locator(f'[data-track-id="{track_id}"]')
    expect(row.locator('.simulated-badge')).to_have_text('Simulated', timeout=10000)
    expect(row.get_by_role('link')).to_have_attribute('aria-label', re.compile(', simulated, '))
    shot(page, 'simulated-in-list')
    page.goto('/#/record')
    page.reload()
    page.wait_for_selector('body[data-ready="true"]')
    expect(badge).to_be_hidden()
