"""Issue 22: the Year tab (totals, calendar heat grid, this year against last, weekly goal, Eddington, records) and
a track page's PR badges, on a phone and a desktop. Walks in 2017 and 2018, a kind and years no other test uses."""
import json
import re
import urllib.request
import uuid

from playwright.sync_api import expect

from conftest import api_get, shot, wait_until

GPX_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<gpx version="1.1" creator="browser test" xmlns="http://www.topografix.com/GPX/1/1">\n')


def walk(name, date, meters, seconds_per_step):
    """Due north from Zurich in 10 m steps, from 07:00 UTC on `date`."""
    points = []
    for i in range(meters // 10 + 1):
        lat = 47.37 + i * 10 / 111_180
        seconds = i * seconds_per_step
        time = f'{date}T{7 + seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}Z'
        points.append(f'<trkpt lat="{lat:.7f}" lon="8.54"><ele>410</ele><time>{time}</time></trkpt>')
    return GPX_HEAD + f'<trk><name>{name}</name><type>walking</type><trkseg>\n' + '\n'.join(points) + '\n</trkseg></trk></gpx>\n'


def upload(server, text, file_name):
    request = urllib.request.Request(
        f'{server}/api/tracks?name={urllib.request.quote(file_name)}', data=text.encode(), method='POST',
        headers={'Content-Type': 'application/gpx+xml'})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())['tracks'][0]['id']


def seed(server):
    """Two walks in March 2018 (the fast one a record), one in 2017; once per server."""
    tag = uuid.uuid4().hex[:6]
    overview = api_get(server, '/api/overview?year=2018&kind=walk')
    if overview['totals']['kinds']:
        records = api_get(server, '/api/records?kind=walk')['records']
        return next(r['trackId'] for r in records if r['key'] == '1km' and r['rank'] == 1)
    fast = upload(server, walk(f'Brisk &lt;b&gt;{tag}&lt;/b&gt;', '2018-03-05', 6000, 5), f'brisk-{tag}.gpx')
    upload(server, walk(f'Stroll {tag}', '2018-03-12', 3100, 8), f'stroll-{tag}.gpx')
    upload(server, walk(f'Old walk {tag}', '2017-06-01', 4000, 7), f'old-{tag}.gpx')
    return fast


def test_the_year_tab_shows_totals_calendar_comparison_goal_and_records(context, server):
    fast = seed(server)
    page = context.new_page()
    page.goto('/#/overview')
    page.wait_for_selector('body[data-ready="true"]')
    expect(page.get_by_role('heading', name='Overview')).to_be_visible()
    page.select_option('#overview-kind', 'walk')
    page.select_option('#overview-year', '2018')
    totals = page.locator('#overview-totals')
    expect(totals).to_contain_text('Activities2')
    expect(totals).to_contain_text('9.10 km')  # 6 km + 3.1 km, the walks' own figures
    # The heat grid: 365 days of 2018 (after the blanks before Monday 1 January: none), two of them walked.
    expect(page.locator('#overview-calendar .day:not(.blank)')).to_have_count(365)
    expect(page.locator('#overview-calendar .day[data-date]')).to_have_count(2)
    expect(page.locator('#overview-calendar .day[data-date="2018-03-05"]')).to_have_attribute('data-level', '1')
    # This year against last: two lines, 2018 ending at 9.1 km, 2017 at 4 km.
    chart = page.locator('#overview-compare svg')
    expect(chart.locator('polyline')).to_have_count(2)
    expect(chart).to_have_attribute('aria-label', '2018: 9.10 km; 2017: 4.00 km')
    # Eddington over every walk day of every year: these three walks alone (6, 3.1 and 4 km) make it at least 3;
    # other tests' walks (the archive import's, 2009–2013) may raise it. The page shows the server's number.
    eddington = api_get(server, '/api/overview?year=2018&kind=walk')['eddingtonKilometers']['number']
    assert eddington >= 3
    expect(page.locator('#eddington-text')).to_contain_text(f'E = {eddington}: {eddington} days of at least {eddington} km')
    # The records link to their tracks; the name is text, not markup.
    # The row is found by its first cell exactly: another row's value ("11.21 km") also contains "1 km". Other
    # tests' walks may hold the record; the link shows the server's name for it, character for character.
    record = next(r for r in api_get(server, '/api/records?kind=walk')['records'] if r['key'] == '1km' and r['rank'] == 1)
    row = page.locator('#records-table tbody tr').filter(
        has=page.locator('td:first-child', has_text=re.compile(r'^1 km$')))
    link = row.get_by_role('link')
    expect(link).to_have_text(record['trackName'])
    if record['trackId'] == fast:
        expect(link).to_have_text(re.compile(r'^Brisk <b>[0-9a-f]{6}</b>$'))
    # A weekly goal: saved, shown with its bar.
    page.fill('#goal-target', '25')
    page.select_option('#goal-measure', 'distance')
    page.get_by_role('button', name='Set goal').click()
    expect(page.locator('#overview-message')).to_have_text('Goal saved.')
    expect(page.locator('#goal-text')).to_contain_text('of 25.00 km')
    assert api_get(server, '/api/settings/goal')['goals'][0]['target'] == 25000
    shot(page, f'overview-{context.viewport_name}')
    # The record's track: its page marks the efforts that were records when it was walked.
    link.click()
    wait_until(page, f"location.hash === '#/tracks/{record['trackId']}'")
    efforts = page.locator('#track-efforts')
    expect(efforts).to_be_visible()
    expect(efforts.locator('li', has_text='1 km').locator('.badge')).to_have_text('PR')
    page.locator('#track-efforts-section').scroll_into_view_if_needed()
    shot(page, f'track-efforts-{context.viewport_name}')


def zoom14_tiles(meters):
    """The zoom-14 tiles of `walk`'s fixes, by the Web Mercator formula."""
    import math
    tiles = set()
    for i in range(meters // 10 + 1):
        lat = math.radians(47.37 + i * 10 / 111_180)
        x = int((8.54 + 180) / 360 * 2 ** 14)
        y = int((1 - math.log(math.tan(lat) + 1 / math.cos(lat)) / math.pi) / 2 * 2 ** 14)
        tiles.add((x, y))
    return tiles


def test_the_year_tab_shows_the_explorer_tiles(context, server):
    seed(server)
    explorer = None
    # The first overview may find the heatmap's index being built by another request (explorer null): ask again.
    for _ in range(20):
        explorer = api_get(server, '/api/overview?year=2018&kind=walk')['explorer']
        if explorer:
            break
        import time
        time.sleep(0.5)
    assert explorer
    # The 2018 walks (6 km and 3.1 km north from one start) pass through these tiles; other tests' walks may add more.
    ours = zoom14_tiles(6000)
    assert len(ours) >= 2
    assert explorer['tilesThisYear'] >= len(ours) and explorer['tileCount'] >= explorer['tilesThisYear']
    assert 0 <= explorer['newThisYear'] <= explorer['tilesThisYear']
    page = context.new_page()
    page.goto('/#/overview')
    page.wait_for_selector('body[data-ready="true"]')
    page.select_option('#overview-kind', 'walk')
    page.select_option('#overview-year', '2018')
    text = page.locator('#explorer-text')
    expect(text).to_have_text(
        f"{explorer['tileCount']} tiles ridden, {explorer['tilesThisYear']} of them in 2018 ({explorer['newThisYear']} new)."
        f" Largest square {explorer['maxSquareSize']}×{explorer['maxSquareSize']}; largest cluster {explorer['maxClusterSize']} tiles.")
    page.get_by_role('heading', name='Explorer tiles').scroll_into_view_if_needed()
    shot(page, f'overview-explorer-{context.viewport_name}')
