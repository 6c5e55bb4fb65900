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
