"""The web app with a keyboard and as a screen reader sees it: every control has a name, and the Tracks tab can
be used without a mouse (open a track, delete one, undo)."""
import json
import re
import urllib.parse
import urllib.request

from playwright.sync_api import expect

from conftest import shot
from test_tracks_and_settings import GPX_FIXTURE

# Roles a user operates: each needs an accessible name (the name a screen reader speaks).
CONTROL = re.compile(r'^\s*- (button|link|textbox|combobox|checkbox|radio|slider|spinbutton|switch|tab|menuitem)\b(?P<rest>.*)$')


def unnamed_controls(page):
    """Controls in the page's accessibility tree (as Chromium computes it) that have no name."""
    found = []
    for line in page.locator('body').aria_snapshot().splitlines():
        match = CONTROL.match(line)
        if match and not match.group('rest').lstrip().startswith('"'):
            found.append(line.strip())
    return found


def upload(server, name):
    points = '\n'.join(
        f'<trkpt lat="{46.6 + i * 0.0009:.7f}" lon="6.7"><time>2024-06-01T08:00:{i * 5:02d}Z</time></trkpt>'
        for i in range(10))
    body = GPX_FIXTURE.format(name=name, points=points).encode()
    query = urllib.parse.quote(f'{name}.gpx')
    request = urllib.request.Request(f'{server}/api/tracks?name={query}', data=body, method='POST',
                                     headers={'Content-Type': 'application/gpx+xml'})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())['tracks'][0]['id']


def test_every_control_has_a_name(context, server):
    track_id = upload(server, f'Named controls {context.viewport_name}')
    page = context.new_page()
    for route in ['/#/record', '/#/tracks', f'/#/tracks/{track_id}', '/#/settings']:
        page.goto(route)
        page.wait_for_selector('body[data-ready="true"]')
        page.wait_for_timeout(300)
        assert unnamed_controls(page) == [], f'{route}: controls without a name'


def tab_to(page, accessible_name, limit=80):
    """Presses Tab until the focused element's accessible name matches; returns how many presses it took."""
    for presses in range(1, limit + 1):
        page.keyboard.press('Tab')
        name = page.evaluate(r"""() => {
            const el = document.activeElement;
            if (!el) return '';
            return (el.getAttribute('aria-label') || el.textContent || '').replace(/\s+/g, ' ').trim();
        }""")
        if re.fullmatch(accessible_name, name):
            return presses
    raise AssertionError(f'Tab never reached {accessible_name!r}')


def test_the_tracks_tab_works_with_the_keyboard_alone(context, server):
    if context.viewport_name == 'phone':
        return  # a phone has no keyboard; its swipe is tested in test_tracks_and_settings.py
    name = 'Keyboard ride'
    track_id = upload(server, name)
    page = context.new_page()
    page.goto('/#/record')
    page.wait_for_selector('body[data-ready="true"]')
    # From the top of the page: to the Tracks tab, and into it.
    page.locator('body').focus()
    tab_to(page, 'Tracks')
    page.keyboard.press('Enter')
    expect(page.get_by_role('heading', name='Tracks', level=2)).to_be_visible()
    # To the track's link, and open it.
    tab_to(page, re.escape(name) + '.*')
    page.keyboard.press('Enter')
    page.wait_for_url(re.compile(rf'#/tracks/{track_id}$'))
    expect(page.get_by_role('heading', level=2)).to_have_text(name)
    # Back to the list, then delete the track with its button, and undo.
    tab_to(page, '← All tracks')
    page.keyboard.press('Enter')
    rows = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(
        has=page.locator(f'a[href="#/tracks/{track_id}"]'))
    expect(rows).to_have_count(1)
    tab_to(page, f'Delete {re.escape(name)}')
    page.keyboard.press('Enter')
    expect(rows.first).to_be_hidden()
    undo = page.get_by_role('button', name='Undo')
    expect(undo).to_be_visible()
    # The focus was on the Delete button of a row now hidden: it moves to Undo, and back to the row after it.
    expect(undo).to_be_focused()
    shot(page, 'keyboard-undo')
    page.keyboard.press('Enter')
    expect(rows.first).to_be_visible()
    expect(rows.first.get_by_role('link')).to_be_focused()
