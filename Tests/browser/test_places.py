"""The Places tab (issue 10): pins placed on the map, notes and photos, the list, delete with undo, share links."""
import base64
import json
import math
import struct
import urllib.error
import urllib.request
import uuid
import zlib

import http.server
import tempfile
import threading
import urllib.parse
from pathlib import Path

import pytest

from conftest import START, VIEWPORTS, api_get, offset, shot, start_server, stop_server, wait_until
from test_tracks_and_settings import Finger, touch_drag

NOMINATIM = Path(__file__).resolve().parents[1] / 'nominatim'  # recorded answers of nominatim.org (jsonv2)


def api_send(server, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server + path, data=data, method=method, headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(request, timeout=5) as response:
        text = response.read()
        return json.loads(text) if text else None


def status_of(server, path):
    try:
        with urllib.request.urlopen(server + path, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def png(width, height):
    """A valid RGB PNG of that size, written by hand (signature, IHDR, one IDAT, IEND)."""
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    rows = b''.join(b'\x00' + b'\xff\x80\x00' * width for _ in range(height))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))


def metres_between(a, b):
    """Equirectangular distance: exact enough for the few hundred metres compared here."""
    north = math.radians(b[0] - a[0]) * 6371008.8
    east = math.radians(b[1] - a[1]) * 6371008.8 * math.cos(math.radians(a[0]))
    return math.hypot(east, north)


def open_places(page):
    page.goto('/#/places')
    page.wait_for_selector('body[data-ready="true"]')
    page.wait_for_selector('#places-map .me-dot', state='attached')  # centred on the user


def test_a_pin_placed_on_the_map_gets_notes_and_a_photo_and_its_share_link_shows_them(context, browser, server):
    page = context.new_page()
    open_places(page)
    box = page.locator('#places-map').bounding_box()
    centre = (box['x'] + box['width'] / 2, box['y'] + box['height'] / 2)
    dx, dy = 30, 40  # px right of and below the user, who is at the centre at zoom 15
    at = (centre[0] + dx, centre[1] + dy)
    if context.viewport_name == 'phone':
        finger = Finger(page)
        finger.down(*at)
        page.wait_for_timeout(800)  # held still: a long press
        finger.up()
    else:
        page.mouse.click(*at, button='right')
    page.wait_for_selector('#place-new:not([hidden])')
    shot(page, 'places-new-pin')
    name = f'Bike shop {uuid.uuid4().hex[:6]}'
    page.fill('#place-new-name', name)
    page.fill('#place-new-address', '1 Infinite Loop')
    page.fill('#place-new-label', f'Errands {uuid.uuid4().hex[:4]}')
    page.click('#place-new button[type="submit"]')
    wait_until(page, 'location.hash.startsWith("#/places/")')
    place_id = page.evaluate('decodeURIComponent(location.hash.split("/")[2])')
    page.wait_for_selector(f'#place-heading:text("{name}")')

    # Where the press was: Web Mercator at zoom 15 is 40075016.686 × cos(latitude) / 2^(15+8) metres a CSS pixel.
    metres_per_px = 40075016.686 * math.cos(math.radians(START[0])) / 2 ** 23
    expected = offset(dx * metres_per_px, -dy * metres_per_px)
    stored = api_get(server, f'/api/places/{place_id}')
    assert stored['name'] == name and stored['address'] == '1 Infinite Loop'
    assert len(stored['labels']) == 1
    # Leaflet puts its pixel origin on whole pixels and the box may start between two: within 2 px.
    assert metres_between(expected, (stored['latitude'], stored['longitude'])) < 2 * metres_per_px

    for body in ('Open 9 to 5', 'Ask for the inner tubes'):
        page.fill('#note-body', body)
        page.click('#note-add button[type="submit"]')
        page.wait_for_selector(f'.note-body:text("{body}")')
    page.locator('.place-note').first.locator('input[type="file"]').set_input_files(
        files=[{'name': 'dot.png', 'mimeType': 'image/png', 'buffer': png(2, 3)}])
    thumbnail = page.locator('.note-photos img').first
    thumbnail.wait_for()
    wait_until(page, 'document.querySelector(".note-photos img").naturalWidth > 0')
    assert page.evaluate('[document.querySelector(".note-photos img").naturalWidth, document.querySelector(".note-photos img").naturalHeight]') == [2, 3]
    stored = api_get(server, f'/api/places/{place_id}')
    assert [note['body'] for note in stored['notes']] == ['Open 9 to 5', 'Ask for the inner tubes']
    assert [photo['mediaType'] for photo in stored['notes'][0]['photos']] == ['image/png']

    assert page.get_attribute('#place-geo', 'href') == f'geo:{stored["latitude"]},{stored["longitude"]}'
    assert page.get_attribute('#place-osm', 'href').startswith('https://www.openstreetmap.org/directions?to=')
    shot(page, 'place-details')
    thumbnail.click()
    page.wait_for_selector('#photo-dialog[open]')
    page.click('#photo-dialog button')

    page.click('#place-share')
    page.wait_for_selector('#place-share-link:not([hidden])')
    link = page.input_value('#place-share-link')
    assert link.startswith(server + '/share/')
    stranger = browser.new_context()  # no session, nothing of the app's
    try:
        share = stranger.new_page()
        share.goto(link)
        text = share.inner_text('body')
        assert name in text and 'Open 9 to 5' in text and 'Ask for the inner tubes' in text
    finally:
        stranger.close()


def create_places(server, token):
    """Three places at known distances from the user, created in an order that is neither by name nor by distance."""
    label = api_send(server, 'POST', '/api/labels', {'name': f'Food {token}', 'colour': '#e53935'})
    spots = [('Bakery', 100, 0, [label['id']]), ('Apothecary', 0, 1000, [label['id']]), ('Cafe', -300, 0, [])]
    for name, east, north, labels in spots:
        latitude, longitude = offset(east, north)
        api_send(server, 'POST', '/api/places', {'name': f'{token} {name}', 'latitude': latitude, 'longitude': longitude, 'labels': labels})
    return label


def row_names(page):
    return page.locator('#place-list li:not([hidden]) strong').all_inner_texts()


def test_the_list_sorts_by_distance_name_and_date_filters_by_label_and_searches_as_you_type(context, server):
    token = uuid.uuid4().hex[:8]
    label = create_places(server, token)
    page = context.new_page()
    open_places(page)
    page.type('#place-query', token, delay=20)  # as you type: no Enter
    wait_until(page, f'document.querySelectorAll("#place-list li").length === 3 && [...document.querySelectorAll("#place-list strong")].every((e) => e.textContent.startsWith("{token}"))')
    assert row_names(page) == [f'{token} Bakery', f'{token} Cafe', f'{token} Apothecary']  # 100 m, 300 m, 1 km
    shot(page, 'places-list')
    page.select_option('#place-sort', 'name')
    wait_until(page, f'document.querySelector("#place-list strong").textContent === "{token} Apothecary"')
    assert row_names(page) == [f'{token} Apothecary', f'{token} Bakery', f'{token} Cafe']
    page.select_option('#place-sort', 'created')
    wait_until(page, f'document.querySelector("#place-list strong").textContent === "{token} Cafe"')
    assert row_names(page) == [f'{token} Cafe', f'{token} Apothecary', f'{token} Bakery']  # newest first
    page.select_option('#place-sort', 'distance')
    page.select_option('#place-label', label['id'])
    wait_until(page, 'document.querySelectorAll("#place-list li").length === 2')
    assert row_names(page) == [f'{token} Bakery', f'{token} Apothecary']
    page.click('#place-list li a >> nth=0')
    page.wait_for_selector(f'#place-heading:text("{token} Bakery")')


def test_delete_is_sent_at_once_and_undo_restores_the_place_through_the_server(context, server):
    token = uuid.uuid4().hex[:8]
    latitude, longitude = offset(50, 50)
    place = api_send(server, 'POST', '/api/places', {'name': f'{token} Bench', 'latitude': latitude, 'longitude': longitude})
    api_send(server, 'POST', f'/api/places/{place["id"]}/notes', {'body': 'In the shade after 3'})
    page = context.new_page()
    open_places(page)
    # The search's answer awaited: with few places on the server, one row may show before the search is made.
    with page.expect_response(lambda response: '/api/places?' in response.url and f'q={token}' in response.url):
        page.fill('#place-query', token)
    row = page.locator('#place-list li').first
    wait_until(page, 'document.querySelectorAll("#place-list li").length === 1')

    def delete():
        if context.viewport_name == 'phone':
            row.scroll_into_view_if_needed()
            box = row.bounding_box()
            y = box['y'] + box['height'] / 2
            touch_drag(page, (box['x'] + box['width'] - 20, y), (box['x'] + 20, y))
        else:
            row.locator('button.delete').click()
        page.wait_for_selector('#place-undo-bar:not([hidden])')
        assert page.locator('#place-list li').count() == 0

    delete()
    assert status_of(server, f'/api/places/{place["id"]}') == 404  # deleted on the server at once
    page.click('#place-undo-button')
    wait_until(page, 'document.querySelectorAll("#place-list li").length === 1')
    restored = api_get(server, f'/api/places/{place["id"]}')  # brought back by the server, notes and all
    assert restored['name'] == f'{token} Bench' and [note['body'] for note in restored['notes']] == ['In the shade after 3']
    # Said once the list is drawn again (the list first, then the message): waited for, not read at once.
    page.wait_for_selector(f'#places-message:text-is("Restored {token} Bench.")')

    delete()
    page.wait_for_selector('#place-undo-bar', state='hidden', timeout=8000)  # the undo time passes
    assert status_of(server, f'/api/places/{place["id"]}') == 404
    page.reload()
    page.wait_for_selector('body[data-ready="true"]')
    page.fill('#place-query', token)
    page.wait_for_selector('#places-message:text("No places yet.")')


def test_tapping_a_pin_opens_its_details_and_its_page_deletes_it_with_undo(context, server):
    token = uuid.uuid4().hex[:8]
    east, north = -160, 120  # metres from the user, apart from the other tests' places
    latitude, longitude = offset(east, north)
    place = api_send(server, 'POST', '/api/places', {'name': f'{token} Kiosk', 'latitude': latitude, 'longitude': longitude})
    page = context.new_page()
    open_places(page)
    wait_until(page, 'document.querySelectorAll("#places-map path.place-pin").length > 0')
    box = page.locator('#places-map').bounding_box()
    metres_per_px = 40075016.686 * math.cos(math.radians(START[0])) / 2 ** 23  # zoom 15
    at = (box['x'] + box['width'] / 2 + east / metres_per_px, box['y'] + box['height'] / 2 - north / metres_per_px)
    # The pin is drawn where its position is, within Leaflet's whole-pixel rounding.
    centres = page.evaluate('[...document.querySelectorAll("#places-map path.place-pin")].map((p) => { const b = p.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })')
    assert min(math.hypot(x - at[0], y - at[1]) for x, y in centres) < 2
    if context.viewport_name == 'phone':
        page.touchscreen.tap(*at)
    else:
        page.mouse.click(*at)
    wait_until(page, f'location.hash === "#/places/{place["id"]}"')
    page.wait_for_selector(f'#place-heading:text("{token} Kiosk")')
    assert page.input_value('#place-name') == f'{token} Kiosk'
    assert page.inner_text('#place-coordinates') == f'{latitude:.6f}, {longitude:.6f}'
    shot(page, 'place-from-pin')

    page.click('#place-delete')
    wait_until(page, 'location.hash === "#/places"')
    page.wait_for_selector('#place-undo-bar:not([hidden])')
    assert page.inner_text('#place-undo-text') == f'Deleted {token} Kiosk.'
    wait_until(page, f'![...document.querySelectorAll("#place-list strong")].some((e) => e.textContent === "{token} Kiosk")')
    assert status_of(server, f'/api/places/{place["id"]}') == 404
    page.click('#place-undo-button')
    page.wait_for_selector(f'#place-list strong:text("{token} Kiosk")')
    assert status_of(server, f'/api/places/{place["id"]}') == 200
    api_send(server, 'DELETE', f'/api/places/{place["id"]}')  # the other viewport's run puts its own pin here


def jpeg_from_canvas(page, width, height, colour):
    """A real JPEG of that size, encoded by the browser's canvas."""
    url = page.evaluate('''([w, h, colour]) => { const c = document.createElement('canvas'); c.width = w; c.height = h;
        const g = c.getContext('2d'); g.fillStyle = colour; g.fillRect(0, 0, w, h); return c.toDataURL('image/jpeg', 0.9); }''',
        [width, height, colour])
    return base64.b64decode(url.split(',', 1)[1])


def with_exif_thumbnail(jpeg, thumbnail):
    """`jpeg` with an APP1 EXIF segment after its SOI whose IFD1 points at `thumbnail` (EXIF 2.32, little endian)."""
    tiff = b'II' + struct.pack('<HI', 42, 8) + struct.pack('<HI', 0, 14) + struct.pack('<H', 2)
    tiff += struct.pack('<HHII', 0x0201, 4, 1, 44) + struct.pack('<HHII', 0x0202, 4, 1, len(thumbnail)) + struct.pack('<I', 0)
    app1 = b'Exif\x00\x00' + tiff + thumbnail
    return jpeg[:2] + b'\xff\xe1' + struct.pack('>H', len(app1) + 2) + app1 + jpeg[2:]


def test_photo_thumbnails_are_the_exif_one_or_one_the_browser_made_and_the_share_page_shows_them(context, browser, server):
    token = uuid.uuid4().hex[:8]
    latitude, longitude = offset(-80, -60)
    place = api_send(server, 'POST', '/api/places', {'name': f'{token} Market', 'latitude': latitude, 'longitude': longitude})
    api_send(server, 'POST', f'/api/places/{place["id"]}/notes', {'body': 'Stalls'})
    page = context.new_page()
    page.goto(f'/#/places/{place["id"]}')
    page.wait_for_selector(f'#place-heading:text("{token} Market")')
    photo = with_exif_thumbnail(jpeg_from_canvas(page, 640, 480, '#2e7d32'), jpeg_from_canvas(page, 16, 12, '#c62828'))
    picture = png(600, 400)
    page.locator('.place-note').first.locator('input[type="file"]').set_input_files(files=[
        {'name': 'camera.jpg', 'mimeType': 'image/jpeg', 'buffer': photo},
        {'name': 'screen.png', 'mimeType': 'image/png', 'buffer': picture},
    ])
    wait_until(page, 'document.querySelectorAll(".note-photos img").length === 2 && [...document.querySelectorAll(".note-photos img")].every((i) => i.complete && i.naturalWidth > 0)')
    sizes = page.evaluate('[...document.querySelectorAll(".note-photos img")].map((i) => [i.naturalWidth, i.naturalHeight])')
    # The JPEG's own 16×12 EXIF thumbnail; for the PNG, the browser's 256 px one (600×400 → 256×171).
    assert sizes == [[16, 12], [256, 171]]
    stored = api_get(server, f'/api/places/{place["id"]}')['notes'][0]['photos']
    assert [p['hasThumbnail'] for p in stored] == [True, True]
    assert [p['byteCount'] for p in stored] == [len(photo), len(picture)]
    shot(page, 'place-thumbnails')
    page.locator('.note-photos button').first.click()
    page.wait_for_selector('#photo-dialog[open]')
    wait_until(page, 'document.getElementById("photo-large").naturalWidth === 640')
    page.click('#photo-dialog button')

    link = server + api_send(server, 'POST', f'/api/places/{place["id"]}/share')['url']
    stranger = browser.new_context()
    try:
        share = stranger.new_page()
        share.goto(link)
        wait_until(share, 'document.querySelectorAll(".photos img").length === 2 && [...document.querySelectorAll(".photos img")].every((i) => i.complete && i.naturalWidth > 0)')
        assert share.evaluate('[...document.querySelectorAll(".photos img")].map((i) => i.naturalWidth)') == [16, 256]
    finally:
        stranger.close()


def test_offline_the_last_list_is_shown_and_a_change_says_it_was_not_saved(context, server):
    token = uuid.uuid4().hex[:8]
    create_places(server, token)
    page = context.new_page()
    open_places(page)
    page.fill('#place-query', token)
    wait_until(page, 'document.querySelectorAll("#place-list li").length === 3')
    context.set_offline(True)
    try:
        page.select_option('#place-sort', 'name')
        page.wait_for_selector('#places-message:text("offline — showing the last list")')
        assert len(row_names(page)) == 3
        page.click('#place-list li a >> nth=0')
        page.wait_for_selector('#place-heading:text("Bakery")')
        page.fill('#note-body', 'Closed on Mondays')
        page.click('#note-add button[type="submit"]')
        page.wait_for_selector('#place-message:text("Not saved")')
        assert 'offline' in page.inner_text('#place-message')
        shot(page, 'place-offline')
    finally:
        context.set_offline(False)


def test_without_leaflet_the_places_map_says_so_and_the_list_and_plus_button_still_work(context_without_leaflet):
    page = context_without_leaflet.new_page()
    page.goto('/#/places')
    page.wait_for_selector('body[data-ready="true"]', timeout=20000)
    page.wait_for_selector('#places-map[data-map-library="missing"] .map-missing')
    page.click('#place-add')  # no map centre: the place goes where the user is
    page.wait_for_selector('#place-new:not([hidden])')
    name = f'Fountain {uuid.uuid4().hex[:6]}'
    page.fill('#place-new-name', name)
    page.click('#place-new button[type="submit"]')
    page.wait_for_selector(f'#place-heading:text("{name}")')
    page.click('text=← All places')
    page.wait_for_selector(f'#place-list strong:text("{name}")')


class StandInNominatim(http.server.BaseHTTPRequestHandler):
    """A Nominatim-compatible service on loopback answering the recorded answers; notes what it was asked."""
    seen = []

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        StandInNominatim.seen.append((url.path, query, self.headers.get('User-Agent', '')))
        if url.path == '/search':
            body = (NOMINATIM / 'search-apple-park.json').read_bytes() if 'apple park' in query.get('q', [''])[0].lower() else b'[]'
        elif url.path == '/reverse':
            body = (NOMINATIM / 'reverse-de-anza.json').read_bytes()
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope='module')
def geocoded_server():
    """`bikeride serve --geocoder-url` pointing at the stand-in."""
    standin = http.server.ThreadingHTTPServer(('127.0.0.1', 0), StandInNominatim)
    threading.Thread(target=standin.serve_forever, daemon=True).start()
    work = Path(tempfile.mkdtemp(prefix='bikeride-browser-geocoder-'))
    base, process = start_server(work, ['--geocoder-url', f'http://127.0.0.1:{standin.server_port}', '--geocoder-contact', 'tests@example.org'])
    yield base
    stop_server(process, work)
    standin.shutdown()


@pytest.fixture
def geocoded_context(browser, geocoded_server, viewport):
    context = browser.new_context(base_url=geocoded_server, **VIEWPORTS[viewport])
    context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(geocoded_server) else route.abort())
    context.grant_permissions(['geolocation'], origin=geocoded_server)
    context.set_geolocation({'latitude': START[0], 'longitude': START[1], 'accuracy': 5})
    context.viewport_name = viewport
    yield context
    context.close()


def test_without_a_geocoder_a_new_pin_gets_no_address_looked_up(context):
    page = context.new_page()
    open_places(page)
    assert page.locator('#place-search').is_visible()  # towns, places and tracks are searched all the same (test_search.py)
    page.click('#place-add')
    page.wait_for_selector('#place-new:not([hidden])')
    page.wait_for_timeout(300)
    assert page.input_value('#place-new-address') == ''


def test_address_search_moves_the_map_and_a_new_pin_gets_its_address_from_the_geocoder(geocoded_context, geocoded_server):
    page = geocoded_context.new_page()
    open_places(page)
    page.fill('#place-search-query', 'Apple Park')
    page.click('#place-search button[type="submit"]')
    results = page.locator('#place-search-results button')
    results.first.wait_for()
    # The user's own places called so come first (another viewport's run saved one): the geocoder's addresses follow.
    assert [text for text in results.all_inner_texts() if not text.startswith('Your place: ')] == [
        'Address: Apple Park, 1, Apple Park Way, Cupertino, Santa Clara County, California, 95014, United States',
        'Address: Apple Park Visitor Center, 10600, North Tantau Avenue, Cupertino, Santa Clara County, California, 95014, United States',
    ]
    shot(page, 'places-address-search')
    page.locator('#place-search-results button.place-search-address').first.click()
    page.wait_for_selector('#place-new:not([hidden])')
    assert page.input_value('#place-new-name') == 'Apple Park'
    assert page.input_value('#place-new-address').startswith('Apple Park, 1, Apple Park Way')
    centre = page.evaluate('(() => { const b = document.getElementById("places-map").getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()')
    draft = page.evaluate('(() => { const b = document.querySelector("#places-map path.place-draft").getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()')
    assert math.hypot(draft[0] - centre[0], draft[1] - centre[1]) < 2  # the map went there: the draft pin is at its centre
    page.fill('#place-new-name', f'Apple Park {uuid.uuid4().hex[:4]}')
    page.click('#place-new button[type="submit"]')
    wait_until(page, 'location.hash.startsWith("#/places/")')
    place_id = page.evaluate('decodeURIComponent(location.hash.split("/")[2])')
    stored = api_get(geocoded_server, f'/api/places/{place_id}')
    assert (stored['latitude'], stored['longitude']) == (37.3348586, -122.0090486)

    # A pin placed by hand: its address is looked up where it is.
    page.click('text=← All places')
    page.wait_for_selector('#places-map .me-dot', state='attached')
    page.evaluate('window.scrollTo(0, 0)')
    page.click('#place-add')
    page.wait_for_selector('#place-new:not([hidden])')
    wait_until(page, 'document.getElementById("place-new-address").value !== ""')
    assert page.input_value('#place-new-address') == 'South De Anza Boulevard, Cupertino, Santa Clara County, California, 95014, United States'
    searches = [query for path, query, _ in StandInNominatim.seen if path == '/search']
    reverses = [query for path, query, _ in StandInNominatim.seen if path == '/reverse']
    assert searches[-1]['q'] == ['Apple Park'] and searches[-1]['format'] == ['jsonv2']
    assert reverses and reverses[-1]['format'] == ['jsonv2']
    assert all(agent.startswith('bikeride/') and 'tests@example.org' in agent for _, _, agent in StandInNominatim.seen)
