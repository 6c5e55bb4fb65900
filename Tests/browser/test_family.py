"""Family on one server (issue 23): Anna and Carl share their live position with Bob (`bikeride family add`);
Bob's Live tab shows Anna's latest position as text with its time, and Carl's as hidden, for Carl is inside his
privacy zone. On a phone and a desktop."""
import json
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT, VIEWPORTS, shot, start_server, stop_server, wait_until

PASSWORD = 'correct horse battery'
BINARY = ROOT / '.build' / 'debug' / 'bikeride'
ANNA = (46.5197, 6.6323)   # Lausanne
CARL = (47.3769, 8.5417)   # Zurich, inside his zone


def cli(work, *arguments, stdin=None):
    result = subprocess.run([str(BINARY), *arguments, '--data-dir', str(work / 'data')],
                            input=stdin, text=True, check=True, capture_output=True)
    return result.stdout


@pytest.fixture
def family_server():
    work = Path(tempfile.mkdtemp(prefix='bikeride-browser-family-'))
    for name in ['anna', 'bob', 'carl']:
        cli(work, 'users', 'add', name, '--password-stdin', stdin=PASSWORD + '\n')
    tokens = {}
    for name in ['anna', 'carl']:
        tokens[name] = json.loads(cli(work, 'devices', 'add', 'Phone', '--user', name, '--json'))['token']
        cli(work, 'family', 'add', 'bob', '--hours', '4', '--user', name)
    cli(work, 'privacy-zones', 'add', '--latitude', str(CARL[0]), '--longitude', str(CARL[1] + 0.001), '--radius', '300', '--user', 'carl')
    base, process = start_server(work, ['--accounts'])
    yield base, tokens, work
    stop_server(process, work)


def cli_path(fixture, *arguments):
    return cli(fixture[2], *arguments)


def owntracks(base, user, token, lat, lon, tst):
    body = json.dumps({'_type': 'location', 'lat': lat, 'lon': lon, 'tst': tst, 'tid': user[:2]})
    result = subprocess.run(['curl', '-s', '-u', f'{user}:{token}', '-H', 'Content-Type: application/json', '-d', body,
                             base + '/ingest/owntracks'], capture_output=True, text=True, check=True)
    return result.stdout


def test_live_tab_shows_family_members(browser, family_server, viewport):
    base, tokens, _ = family_server
    tst = int(time.time()) - 120
    assert owntracks(base, 'anna', tokens['anna'], ANNA[0], ANNA[1], tst) == '[]'
    assert owntracks(base, 'carl', tokens['carl'], CARL[0], CARL[1], tst) == '[]'
    context = browser.new_context(base_url=base, **VIEWPORTS[viewport])
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
    context.viewport_name = viewport
    page = context.new_page()
    try:
        page.goto('/login.html')
        page.get_by_label('Name').fill('bob')
        page.get_by_label('Password').fill(PASSWORD)
        page.get_by_role('button', name='Log in').click()
        page.wait_for_url(base + '/')
        page.wait_for_selector('body[data-ready="true"]')
        page.goto(base + '/#/live')
        family = page.get_by_role('list', name='Family')
        family.wait_for()
        anna = family.locator('li[data-user="anna"]')
        anna.wait_for()
        text = anna.inner_text()
        assert 'anna' in text and f'{ANNA[0]:.5f}, {ANNA[1]:.5f}' in text, text
        assert anna.locator('time').get_attribute('datetime').startswith(time.strftime('%Y-%m-%dT', time.gmtime(tst)))
        carl = family.locator('li[data-user="carl"]')
        assert 'hidden near a private place' in carl.inner_text()
        assert f'{CARL[0]:.4f}' not in page.locator('#live-view').inner_text()
        # Anna's position is on the map as a marker of its own; Carl's is not.
        wait_until(page, "() => document.querySelectorAll('#live-map path.leaflet-interactive').length >= 1")
        shot(page, 'live-family')

        # Bob shares his own position with Anna from the form, for a day; an unknown name is refused in words.
        page.get_by_label('Share my position with').fill('nobody')
        page.get_by_role('button', name='Share', exact=True).click()
        page.get_by_role('status').filter(has_text='no user of that name').wait_for()
        page.get_by_label('Share my position with').fill('anna')
        page.get_by_label('for', exact=True).select_option(label='a day')
        page.get_by_role('button', name='Share', exact=True).click()
        sharing = page.get_by_role('list', name='Sharing my position with')
        sharing.locator('li[data-user="anna"]').wait_for()
        assert 'anna sees my position until' in sharing.inner_text()
        listed = json.loads(cli_path(family_server, 'family', 'list', '--json', '--user', 'bob'))
        assert [entry['user'] for entry in listed['sharing']] == ['anna']
        shot(page, 'live-family-sharing')
        page.get_by_role('button', name='Stop sharing with anna').click()
        page.get_by_role('status').filter(has_text='anna no longer sees your position').wait_for()
        wait_until(page, "() => document.querySelectorAll('#family-sharing li').length === 0")
    finally:
        context.close()
