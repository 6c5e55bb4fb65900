"""Issue 22: the heatmap of all rides as a layer on the Tracks map (a toggle) and in the full-screen Heatmap view with
its kind and year filters and the explorer tiles, on a phone and a desktop. The tiles are the server's PNGs; the
browser never gets the points."""
import json
import urllib.request
import uuid

from playwright.sync_api import expect

from conftest import api_get, shot, wait_until

GPX_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<gpx version="1.1" creator="browser test" xmlns="http://www.topografix.com/GPX/1/1">\n')


def bern_loop(name):
    """A 2 × 2 km square loop in Bern (away from the other tests' Zurich rides), 10 m steps, in 2021."""
    points = []
    lat0, lon0 = 46.94, 7.43
    dlat, dlon = 10 / 111_180, 10 / (111_180 * 0.6833)
    corners = [(0, 1), (1, 0), (0, -1), (-1, 0)]
    lat, lon, second = lat0, lon0, 0
    for dn, de in corners:
        for _ in range(200):
            lat += dn * dlat
            lon += de * dlon
            second += 2
            points.append(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><time>2021-06-0{1 + second // 86400}T08:{second // 60 % 60:02d}:{second % 60:02d}Z</time></trkpt>')
    return GPX_HEAD + f'<trk><name>{name}</name><trkseg>\n' + '\n'.join(points) + '\n</trkseg></trk></gpx>\n'


def upload(server, text, file_name):
    request = urllib.request.Request(
        f'{server}/api/tracks?name={urllib.request.quote(file_name)}', data=text.encode(), method='POST',
        headers={'Content-Type': 'application/gpx+xml'})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


LOADED_HEATMAP_TILES = ("Array.from(document.querySelectorAll('{scope} img.leaflet-tile'))"
                        ".filter(i => i.src.includes('/api/heatmap/') && i.complete && i.naturalWidth === 256).length")


def test_heatmap_layer_on_the_track_map_and_the_heatmap_view(context, server):
    name = f'Bern loop {uuid.uuid4().hex[:6]}'
    track_id = upload(server, bern_loop(name), f'{name}.gpx')['tracks'][0]['id']
    page = context.new_page()
    page.goto(f'/#/tracks/{track_id}')
    page.wait_for_selector('body[data-ready="true"]')
    toggle = page.get_by_label('Heatmap of all rides')
    expect(toggle).to_be_visible()
    expect(toggle).not_to_be_checked()
    assert page.evaluate(LOADED_HEATMAP_TILES.format(scope='#track-map')) == 0
    toggle.check()
    wait_until(page, LOADED_HEATMAP_TILES.format(scope='#track-map') + ' > 0')
    shot(page, 'heatmap-layer-on-track-map')

    # The full-screen view, reached from the Tracks tab.
    page.goto('/#/tracks')
    page.get_by_role('link', name='Heatmap of all rides').click()
    expect(page.get_by_role('heading', name='Heatmap')).to_be_visible()
    wait_until(page, "document.getElementById('heatmap-summary').textContent.includes('explorer tiles')")
    explorer = api_get(server, '/api/explorer')
    expect(page.locator('#heatmap-summary')).to_contain_text(f"{explorer['tileCount']} explorer tiles")
    assert int(page.locator('#heatmap-map').get_attribute('data-explorer-tiles')) == explorer['tileCount']
    # The Bern loop's tiles are among them: 2 km at zoom 14 (about 1.7 km a tile here) spans 2–3 tiles a side.
    wait_until(page, LOADED_HEATMAP_TILES.format(scope='#heatmap-map') + ' > 0')
    # Square and cluster drawn: the square's outline is on the map.
    expect(page.locator('#heatmap-map path.explorer-square')).to_have_count(1)
    shot(page, 'heatmap-view')

    # Filters: only runs (none were uploaded as runs here): the tile addresses say so, and the count is the server's.
    view = page.locator('#heatmap-view')
    view.get_by_label('Kind').select_option('run')
    wait_until(page, "(document.getElementById('heatmap-map').dataset.heatmapUrl || '').includes('kind=run')")
    runs = api_get(server, '/api/explorer?kind=run')
    wait_until(page, f"document.getElementById('heatmap-map').dataset.explorerTiles === '{runs['tileCount']}'")
    view.get_by_label('Kind').select_option('')
    view.get_by_label('Year').select_option('2021')
    wait_until(page, "(document.getElementById('heatmap-map').dataset.heatmapUrl || '').includes('year=2021')")
    year = api_get(server, '/api/explorer?year=2021')
    assert year['tileCount'] >= 4
    wait_until(page, f"document.getElementById('heatmap-map').dataset.explorerTiles === '{year['tileCount']}'")
    shot(page, 'heatmap-view-2021')
