"""Issue 24's smaller friction on the Places tab and the share pages: typing an existing label's name uses that label,
a place's GPX download holds that place only, pins show their names as text, the rider's blue dot stays above a
pin dropped where they stand, and the place share page shows local dates, 5 decimals and a map with streets (the
offline tile set here), falling back to the plain drawing when its tiles cannot be loaded."""
import urllib.request
import uuid

from playwright.sync_api import expect

from conftest import START, VIEWPORTS, api_get, shot, wait_until
from test_places import api_send, open_places


def test_an_existing_labels_name_pins_names_the_blue_dot_and_one_places_gpx(context, server):
    page = context.new_page()
    label = f'Errands {uuid.uuid4().hex[:6]}'
    first = api_send(server, 'POST', '/api/labels', {'name': label, 'colour': '#3949ab'})
    open_places(page)
    # A new pin where the rider stands (the + button at the map centre, which is the rider), the label's name
    # typed in another case.
    name = f'<b>Corner</b> shop {uuid.uuid4().hex[:4]}'
    page.click('#place-add')
    page.wait_for_selector('#place-new:not([hidden])')
    page.fill('#place-new-name', name)
    page.fill('#place-new-label', label.upper())
    page.click('#place-new button[type="submit"]')
    wait_until(page, 'location.hash.startsWith("#/places/")')
    place_id = page.evaluate('decodeURIComponent(location.hash.split("/")[2])')
    stored = api_get(server, f'/api/places/{place_id}')
    assert [item['id'] for item in stored['labels']] == [first['id']]
    assert [item['name'].lower() for item in api_get(server, '/api/labels')['labels']].count(label.lower()) == 1

    # The place's page downloads this place only.
    href = f'/api/places.gpx?place={place_id}'
    expect(page.locator('#place-gpx')).to_have_attribute('href', href)  # set once the place's page is drawn
    with urllib.request.urlopen(server + href, timeout=5) as response:
        gpx = response.read().decode()
    assert gpx.count('<wpt') == 1 and '&lt;b&gt;Corner&lt;/b&gt;' in gpx

    # Back on the map: the pin's name beside it, as text; the blue dot drawn above the pin at the same spot.
    page.goto('/#/places')
    tooltip = page.locator('.place-pin-name', has_text=name)  # the markup shows as text
    tooltip.first.wait_for()
    assert tooltip.first.inner_text() == name
    assert page.locator('.place-pin-name b').count() == 0
    wait_until(page, "document.querySelector('#places-map .me-dot') !== null")
    # SVG paints in document order: the dot comes after every pin (it is also not a tap target, so a tap there
    # reaches the pin below).
    order = page.evaluate("""(() => {
        const dot = document.querySelector('#places-map .me-dot');
        const paths = [...dot.ownerSVGElement.querySelectorAll('path')];
        return { dot: paths.indexOf(dot), pins: paths.filter((p) => p.classList.contains('place-pin')).map((p) => paths.indexOf(p)),
                 dotTakesTaps: getComputedStyle(dot).pointerEvents !== 'none' };
    })()""")
    assert order['pins'] and all(index < order['dot'] for index in order['pins']), order
    assert not order['dotTakesTaps'], order
    shot(page, 'places-pin-names')


def test_the_place_share_page_has_local_dates_five_decimals_and_a_tile_map(context, browser, server):
    place = api_send(server, 'POST', '/api/places', {'name': 'Caf\u00e9 <i>du</i> Lac', 'latitude': START[0] + 0.0001234567, 'longitude': START[1]})
    share = api_send(server, 'POST', f'/api/places/{place["id"]}/share')
    visitor = browser.new_context(base_url=server, **VIEWPORTS[context.viewport_name])
    visitor.viewport_name = context.viewport_name
    try:
        page = visitor.new_page()
        page.goto(share['url'])
        text = page.inner_text('body')
        assert f'{START[0] + 0.0001234567:.5f}, {START[1]:.5f}' in text
        # Cupertino: Los Angeles time, -08:00 or -07:00 by season.
        assert 'America/Los_Angeles)' in text and ('UTC-08:00' in text or 'UTC-07:00' in text)
        assert 'Café <i>du</i> Lac' in text
        # The map: the server's offline tile set under the drawing (this server runs with --tiles), the place's dot.
        wait_until(page, "[...document.querySelectorAll('img.tile')].some((image) => image.complete && image.naturalWidth > 0)")
        assert page.locator('.map svg circle').count() == 1
        shot(page, 'place-share-map')
        # Without its tiles (offline), the plain drawing is left: the dot on the grey background.
        page.route('**/tiles/**', lambda route: route.abort())
        page.reload()
        wait_until(page, "[...document.querySelectorAll('img.tile')].every((image) => image.complete && image.naturalWidth === 0)")
        assert page.locator('.map svg circle').is_visible()
        shot(page, 'place-share-map-offline')
    finally:
        visitor.close()
