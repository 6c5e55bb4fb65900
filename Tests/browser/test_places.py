"""The Places tab (issue 10): pins placed on the map, notes and photos, the list, delete with undo, share links."""
import json
import math
import struct
import urllib.error
import urllib.request
import uuid
import zlib

from conftest import START, api_get, offset, shot
from test_tracks_and_settings import Finger, touch_drag


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
    page.wait_for_function('location.hash.startsWith("#/places/")')
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
    page.wait_for_function('document.querySelector(".note-photos img").naturalWidth > 0')
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
    page.wait_for_function(f'document.querySelectorAll("#place-list li").length === 3 && [...document.querySelectorAll("#place-list strong")].every((e) => e.textContent.startsWith("{token}"))')
    assert row_names(page) == [f'{token} Bakery', f'{token} Cafe', f'{token} Apothecary']  # 100 m, 300 m, 1 km
    shot(page, 'places-list')
    page.select_option('#place-sort', 'name')
    page.wait_for_function(f'document.querySelector("#place-list strong").textContent === "{token} Apothecary"')
    assert row_names(page) == [f'{token} Apothecary', f'{token} Bakery', f'{token} Cafe']
    page.select_option('#place-sort', 'created')
    page.wait_for_function(f'document.querySelector("#place-list strong").textContent === "{token} Cafe"')
    assert row_names(page) == [f'{token} Cafe', f'{token} Apothecary', f'{token} Bakery']  # newest first
    page.select_option('#place-sort', 'distance')
    page.select_option('#place-label', label['id'])
    page.wait_for_function('document.querySelectorAll("#place-list li").length === 2')
    assert row_names(page) == [f'{token} Bakery', f'{token} Apothecary']
    page.click('#place-list li a >> nth=0')
    page.wait_for_selector(f'#place-heading:text("{token} Bakery")')


def test_delete_hides_the_place_undo_brings_it_back_and_without_undo_it_is_deleted(context, server):
    token = uuid.uuid4().hex[:8]
    latitude, longitude = offset(50, 50)
    place = api_send(server, 'POST', '/api/places', {'name': f'{token} Bench', 'latitude': latitude, 'longitude': longitude})
    page = context.new_page()
    open_places(page)
    page.fill('#place-query', token)
    row = page.locator('#place-list li').first
    page.wait_for_function('document.querySelectorAll("#place-list li").length === 1')

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
    page.click('#place-undo-button')
    page.wait_for_function('document.querySelectorAll("#place-list li").length === 1')
    page.wait_for_timeout(5500)  # past the undo time: nothing was sent
    assert status_of(server, f'/api/places/{place["id"]}') == 200

    delete()
    page.wait_for_selector('#place-undo-bar', state='hidden', timeout=8000)
    page.wait_for_timeout(300)
    assert status_of(server, f'/api/places/{place["id"]}') == 404


def test_offline_the_last_list_is_shown_and_a_change_says_it_was_not_saved(context, server):
    token = uuid.uuid4().hex[:8]
    create_places(server, token)
    page = context.new_page()
    open_places(page)
    page.fill('#place-query', token)
    page.wait_for_function('document.querySelectorAll("#place-list li").length === 3')
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
