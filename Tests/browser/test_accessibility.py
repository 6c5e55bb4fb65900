"""The web app with a keyboard and as a screen reader sees it: every control has a name, and the Tracks tab can
be used without a mouse (open a track, delete one, undo)."""
import json
import re
import urllib.parse
import urllib.request

import pytest

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
    # One Tab stop a row: the row's link; its Delete button is the arrow key away (or the Delete key on the link).
    tab_to(page, re.escape(name) + '.*')
    page.keyboard.press('ArrowRight')
    expect(rows.first.get_by_role('button', name=f'Delete {name}')).to_be_focused()
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
    # The Delete key on a row's link deletes it too.
    page.keyboard.press('Delete')
    expect(rows.first).to_be_hidden()
    expect(undo).to_be_focused()
    page.keyboard.press('Enter')
    expect(rows.first).to_be_visible()


FOCUS_RING = r"""() => {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    // A radio or checkbox shows its ring on its label.
    const shown = el.matches('input[type=radio], input[type=checkbox]') && el.closest('label') && getComputedStyle(el).outlineStyle === 'none'
      ? el.closest('label') : el;
    const style = getComputedStyle(shown);
    const name = (el.getAttribute('aria-label') || el.getAttribute('title') || el.textContent || el.value || el.id || el.tagName)
      .replace(/\s+/g, ' ').trim().slice(0, 40);
    return { name, tag: el.tagName, style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
}"""


def focus_rings(page, presses):
    """Tabs through the page: every control that takes the focus shows a ring at least 2 px wide."""
    seen, missing = [], []
    for _ in range(presses):
        page.keyboard.press('Tab')
        ring = page.evaluate(FOCUS_RING)
        if ring is None:
            continue
        seen.append(ring['name'])
        if ring['style'] in ('none', 'hidden') or ring['width'] < 2:
            missing.append(ring)
    return seen, missing


def test_focus_rings_on_every_control_map_controls_included(context, server):
    if context.viewport_name == 'phone':
        return  # no keyboard on a phone
    from test_record import open_record, start_ride
    page = context.new_page()
    open_record(page)
    start_ride(page)
    page.locator('body').focus()
    seen, missing = focus_rings(page, 30)
    assert missing == [], missing
    for name in ['Record', 'Tracks', 'Zoom in', 'Zoom out', 'Follow my position', 'Map type', 'Pause', 'Stop']:
        assert any(name in each for each in seen), (name, seen)
    page.get_by_role('button', name='Map type').focus()
    page.keyboard.press('Enter')
    ring = page.evaluate(FOCUS_RING)
    assert ring['tag'] == 'INPUT' and ring['style'] != 'none', ring
    shot(page, 'focus-map-type')
    page.keyboard.press('Escape')
    expect(page.get_by_role('button', name='Map type')).to_be_focused()
    for route in ['/#/tracks', '/#/settings']:
        page.goto(route)
        page.wait_for_selector('body[data-ready="true"]')
        page.locator('body').focus()
        seen, missing = focus_rings(page, 25)
        assert missing == [], (route, missing)
    shot(page, 'focus-settings')


def test_a_skip_link_to_the_list_and_one_tab_stop_a_row(context, server):
    if context.viewport_name == 'phone':
        return
    names = [f'Row stop {i}' for i in range(3)]
    ids = [upload(server, name) for name in names]
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    page.wait_for_selector(f'a[href="#/tracks/{ids[-1]}"]')
    page.locator('body').focus()
    tab_to(page, 'Skip to the list of tracks')
    expect(page.get_by_role('link', name='Skip to the list of tracks')).to_be_visible()
    shot(page, 'skip-link')
    page.keyboard.press('Enter')
    expect(page.get_by_role('list', name='Saved tracks')).to_be_focused()
    assert page.evaluate('location.hash') == '#/tracks', 'the route stays'
    # From the list, Tab goes from row to row: one stop each, the link (the newest upload first).
    page.keyboard.press('Tab')
    rows = page.get_by_role('list', name='Saved tracks').get_by_role('listitem')
    for index in range(3):
        expect(rows.nth(index).get_by_role('link')).to_be_focused()
        page.keyboard.press('Tab')
    # Arrow keys move down and up the list too.
    rows.first.get_by_role('link').focus()
    page.keyboard.press('ArrowDown')
    expect(rows.nth(1).get_by_role('link')).to_be_focused()
    page.keyboard.press('ArrowUp')
    expect(rows.first.get_by_role('link')).to_be_focused()
    for track_id in ids:
        urllib.request.urlopen(urllib.request.Request(f'{server}/api/tracks/{track_id}', method='DELETE'), timeout=10).read()


# Every control a thumb must hit, with what it is and its size, when smaller than 44 × 44 CSS px (Apple's and
# WCAG 2.5.5's size). Not counted: a checkbox or radio inside its label (the label is the target, and is measured),
# a label of another control (the control is the target), skip links (off screen until focused) and the map's
# attribution links, which sit in a line of text.
SMALL_TARGETS = """() => {
  const small = [];
  const targets = document.querySelectorAll('button, input:not([type=hidden]), select, textarea, a[href], summary, [role=button], label');
  for (const element of targets) {
    if (element.closest('.visually-hidden, .skip-link, .leaflet-control-attribution')) continue;
    let box = element;
    if (element.matches('input[type=checkbox], input[type=radio]') && element.closest('label')) box = element.closest('label');
    else if (element.tagName === 'LABEL') {
      const control = element.control;
      if (!control || !control.matches('input[type=checkbox], input[type=radio]')) continue;
    }
    const rect = box.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0 || getComputedStyle(box).visibility === 'hidden') continue;
    if (rect.width < 44 - 0.5 || rect.height < 44 - 0.5) {
      const name = (element.getAttribute('aria-label') || element.textContent || element.name || element.id || '').trim().slice(0, 40);
      small.push(`${element.tagName.toLowerCase()} "${name}" ${Math.round(rect.width)}x${Math.round(rect.height)}`);
    }
  }
  return small;
}"""


@pytest.mark.parametrize('viewport', ['phone'])
def test_every_tap_target_on_a_phone_is_at_least_44_px(context, server):
    """On a phone every control of every tab, and of a track's page, is at least 44 × 44 px (the Tracks tab's
    import picker was 253 × 21)."""
    track_id = upload(server, 'Tap targets')
    page = context.new_page()
    found = {}
    for route in ['#/tracks', f'#/tracks/{track_id}', '#/record', '#/places', '#/live', '#/settings']:
        page.goto('/' + route)
        page.wait_for_selector('body[data-ready="true"]')
        small = page.evaluate(SMALL_TARGETS)
        if small:
            found[route] = small
    assert not found, found


@pytest.mark.parametrize('viewport', ['phone'])
def test_a_long_name_wraps_inside_its_row_and_keeps_the_delete_button_in_it(context, server):
    name = 'Logger_' + 'x' * 120  # a file name without a space, as loggers write them
    upload(server, name)
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    page.get_by_label('Search tracks').fill('Logger_xxx')
    row = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(has_text='Logger_')
    expect(row).to_have_count(1)
    box = row.bounding_box()
    button = row.get_by_role('button', name=re.compile('Delete')).bounding_box()
    assert box['x'] <= button['x'] and button['x'] + button['width'] <= box['x'] + box['width'], (box, button)
    assert page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), 'the page scrolls sideways'
    shot(page, 'tracks-long-name')
