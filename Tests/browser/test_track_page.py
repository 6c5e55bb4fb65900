"""Issue 11, the Tracks half: charts that tell the truth, search as you type, a forgiving import that says what
it left out, totals above the list, the track page's start, Delete and splits."""
import json
import math
import re
import urllib.request
import uuid

import pytest

from playwright.sync_api import expect

from conftest import api_get, shot

GPX_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<gpx version="1.1" creator="browser test" xmlns="http://www.topografix.com/GPX/1/1" '
            'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">\n')


def steady_ride(name, count=301, dip=True, start_minute=0):
    """On 4 May 2019 (older than the other tests' tracks, so that they stay on the list's first page), due north from Zurich at a constant 18 km/h (10 m every 2 s), 3 km, heart rate 140 throughout; the
    elevation is 410 m with a 0.5 m dip in the middle (GPS noise, not a descent)."""
    points = []
    for i in range(count):
        lat = 47.37 + i * 10 / 111_180
        seconds = start_minute * 60 + i * 2
        time = f'2019-05-04T06:{seconds // 60 % 60:02d}:{seconds % 60:02d}Z' if seconds < 3600 else None
        ele = 409.5 if dip and count // 2 - 5 <= i <= count // 2 + 5 else 410
        points.append(f'<trkpt lat="{lat:.7f}" lon="8.54"><ele>{ele}</ele><time>{time}</time>'
                      '<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>140</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>')
    return GPX_HEAD + f'<trk><name>{name}</name><trkseg>\n' + '\n'.join(points) + '\n</trkseg></trk></gpx>\n'


def upload(server, text, file_name):
    request = urllib.request.Request(
        f'{server}/api/tracks?name={urllib.request.quote(file_name)}', data=text.encode(), method='POST',
        headers={'Content-Type': 'application/gpx+xml'})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def open_track(page, track_id):
    page.goto(f'/#/tracks/{track_id}')
    page.wait_for_selector('body[data-ready="true"]')
    expect(page.locator('#speed-profile svg')).to_be_visible()


def test_charts_have_axes_with_units_and_tell_the_truth(context, server):
    name = f'Steady {uuid.uuid4().hex[:6]}'
    track_id = upload(server, steady_ride(name), f'{name}.gpx')['tracks'][0]['id']
    page = context.new_page()
    open_track(page, track_id)
    speed = page.locator('#speed-profile svg')
    expect(speed.locator('.y-unit')).to_have_text('km/h')
    expect(speed.locator('.x-unit')).to_have_text('km')
    expect(speed.locator('.y-tick').first).to_be_visible()
    # A constant 18 km/h: the data is 18 everywhere, the axis spans from 0 and the line is flat (under a pixel).
    assert abs(float(speed.get_attribute('data-data-min')) - 18) < 0.05
    assert abs(float(speed.get_attribute('data-data-max')) - 18) < 0.05
    assert float(speed.get_attribute('data-y-min')) == 0 and float(speed.get_attribute('data-y-max')) >= 18
    assert speed.locator('.chart-line').evaluate('line => line.getBBox().height') < 1
    # A 0.5 m dip at 410 m: the elevation axis spans at least 30 m, so the dip is a few pixels, not the chart.
    elevation = page.locator('#elevation-profile svg')
    expect(elevation.locator('.y-unit')).to_have_text('m')
    span = float(elevation.get_attribute('data-y-max')) - float(elevation.get_attribute('data-y-min'))
    assert span >= 30
    plot = elevation.locator('.chart-grid .axis').nth(1).evaluate('axis => axis.getBBox().height')
    assert elevation.locator('.chart-line').evaluate('line => line.getBBox().height') < plot * 0.05
    # Heart rate is in the file: its chart is there, in bpm; cadence and power are not.
    expect(page.locator('#heartRate-profile svg .y-unit')).to_have_text('bpm')
    expect(page.locator('#cadence-figure')).to_be_hidden()
    expect(page.locator('#power-figure')).to_be_hidden()
    # Splits per km: 3 of them, 3:20 each (1 km at 18 km/h).
    rows = page.locator('#track-splits tbody tr')
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text('3:20')
    expect(rows.first).to_contain_text('18.0 km/h')
    # The start where it was ridden: 06:00 UTC in Zurich in May is 08:00 Central European Summer Time.
    expect(page.locator('#track-when')).to_contain_text(re.compile(r'Started .*08:00.*Europe/Zurich, UTC\+02:00'))
    # Pointing at the chart puts a marker on the map, at that place along the track.
    speed.scroll_into_view_if_needed()
    box = speed.bounding_box()
    page.mouse.move(box['x'] + box['width'] * 0.75, box['y'] + box['height'] / 2)
    expect(page.locator('#track-map')).to_have_attribute('data-cursor', re.compile(r'^47\.\d+,8\.54'))
    expect(page.locator('.chart-cursor-marker')).to_have_count(1)
    lat = float(page.locator('#track-map').get_attribute('data-cursor').split(',')[0])
    along = (lat - 47.37) * 111_180
    assert 1800 < along < 2700, f'the marker is {along:.0f} m along, the cursor at about 3/4 of 3 km'
    # The keyboard moves the cursor too (arrow keys on the focused chart), and it stays while the map is looked at.
    page.mouse.move(0, 0)  # the pointer leaves the chart (its cursor goes), the keyboard takes over
    speed.focus()
    page.keyboard.press('Home')
    for _ in range(9):
        page.keyboard.press('ArrowRight')
    lat = float(page.locator('#track-map').get_attribute('data-cursor').split(',')[0])
    assert (lat - 47.37) * 111_180 < 1000, 'ten steps from the start are in the first kilometre'
    page.locator('#track-heading').scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    expect(page.locator('.chart-cursor-marker')).to_have_count(1)
    shot(page, 'track-page-top')
    speed.scroll_into_view_if_needed()
    shot(page, 'track-charts')
    page.locator('#elevation-profile').scroll_into_view_if_needed()
    shot(page, 'track-charts-elevation')


def test_search_as_you_type_and_no_track_matches(context, server):
    token = uuid.uuid4().hex[:8]
    upload(server, steady_ride(f'Search {token} lake', count=31), f'morning-{token}.gpx')
    upload(server, steady_ride(f'Other {token}', count=31, start_minute=5), f'other-{token}.gpx')
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    rows = page.get_by_role('list', name='Saved tracks').get_by_role('listitem')
    query = page.get_by_label('Search tracks')
    query.click()
    page.keyboard.type(f'{token} la', delay=30)  # no Enter: the list follows the typing
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(f'Search {token} lake')
    query.fill('')
    page.keyboard.type(f'morning-{token}', delay=20)  # the file's name
    expect(rows).to_have_count(1)
    query.fill(f'{token}')
    expect(rows).to_have_count(2)
    page.locator('#track-kind-filter').select_option('run')
    expect(page.locator('#tracks-message')).to_contain_text('No track matches')
    page.locator('#track-kind-filter').select_option('')
    query.fill('')
    page.keyboard.type('zzqx-nothing', delay=20)
    expect(rows).to_have_count(0)
    expect(page.locator('#tracks-message')).to_have_text('No track matches “zzqx-nothing”.')
    shot(page, 'tracks-no-match')


def test_a_forgiving_import_shows_its_warning_and_every_result_stays_until_dismissed(context, tmp_path):
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    name = f'Forgiven {uuid.uuid4().hex[:6]}'
    text = steady_ride(name, count=21).replace('<trk>', '<wpt lat="95" lon="8.54"><name>Nowhere</name></wpt>\n<trk>', 1)
    path = tmp_path / 'forgiven.gpx'
    path.write_text(text)
    page.get_by_label('Import GPX, FIT, TCX, .gpx436, GeoJSON or zip files').set_input_files(str(path))
    row = page.get_by_role('list', name='Imports').get_by_role('listitem').filter(has_text='forgiven.gpx')
    expect(row).to_contain_text('1 track imported')
    expect(row).to_contain_text('1 waypoint skipped: latitude 95 is out of range')
    expect(row).to_contain_text('line 3, column 1')
    page.get_by_label('Search tracks').fill(name)  # an old ride: past the first page when the other tests ran first
    expect(page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(has_text=name)).to_have_count(1)
    shot(page, 'import-warning')
    page.get_by_label('Search tracks').fill('')
    # A clean file's row stays too, until dismissed (it cleared itself after 4 s: a rider who looked away missed it).
    clean = tmp_path / 'clean.gpx'
    clean.write_text(steady_ride(f'Clean {uuid.uuid4().hex[:6]}', count=21))
    page.get_by_label('Import GPX, FIT, TCX, .gpx436, GeoJSON or zip files').set_input_files(str(clean))
    clean_row = page.get_by_role('list', name='Imports').get_by_role('listitem').filter(has_text='clean.gpx')
    expect(clean_row).to_contain_text('imported')
    page.wait_for_timeout(5000)
    expect(clean_row).to_be_visible()
    clean_row.get_by_role('button', name='Dismiss clean.gpx').click()
    expect(clean_row).to_have_count(0)
    expect(row).to_be_visible()
    row.get_by_role('button', name='Dismiss forgiven.gpx').click()
    expect(row).to_have_count(0)


def test_totals_kind_icons_and_a_track_without_times(context, server):
    token = uuid.uuid4().hex[:6]
    untimed = steady_ride(f'Untimed {token}', count=21)
    untimed = re.sub(r'<time>[^<]*</time>', '', untimed)
    upload(server, untimed, f'untimed-{token}.gpx')
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    totals = api_get(server, '/api/tracks/totals?offset=0')
    for label in ('This week', 'This month', 'This year'):
        expect(page.locator('#totals-list')).to_contain_text(label)
    year = page.locator('#totals-list [data-period="year"]')
    count = totals['year']['trackCount']
    expect(year).to_contain_text(f'{count} track' + ('' if count == 1 else 's'))
    row = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(has_text=f'Untimed {token}')
    expect(row).to_contain_text('no time recorded')
    expect(row).not_to_contain_text('0:00')
    # A file without times is a plan, not a ride (issue 24): listed as a route.
    expect(row.get_by_role('img', name='route')).to_have_count(1)
    shot(page, 'tracks-totals')
    row.get_by_role('link').click()
    expect(page.locator('#track-when')).to_have_text('No time recorded')
    expect(page.locator('#track-stats')).to_contain_text('no time recorded')
    expect(page.locator('#speed-profile')).to_contain_text('no times')


def test_delete_from_the_track_page_and_undo(context, server):
    name = f'Doomed {uuid.uuid4().hex[:6]}'
    track_id = upload(server, steady_ride(name, count=21), f'{name}.gpx')['tracks'][0]['id']
    page = context.new_page()
    open_track(page, track_id)
    page.get_by_role('button', name='Delete', exact=True).click()
    page.wait_for_url(re.compile(r'#/tracks$'))
    rows = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(has_text=name)
    expect(rows).to_have_count(0)
    page.get_by_role('button', name='Undo').click()
    page.get_by_label('Search tracks').fill(name)  # an old ride: on the first page once searched for
    expect(rows).to_have_count(1)
    gpx = urllib.request.urlopen(f'{server}/api/tracks/{track_id}.gpx', timeout=5).read().decode()
    assert '<type>cycling</type>' in gpx


@pytest.mark.parametrize('viewport', ['desktop'])  # one import of the file per server: a second is "already imported"
def test_a_bike_computers_fit_file_imports_by_the_picker_and_downloads_as_a_course(context, tmp_path):
    """A FIT file from a bike computer goes in by the picker (the content decides, not the name) and its page
    offers the line back as a FIT course for a head unit."""
    import shutil
    from pathlib import Path
    fixture = Path(__file__).resolve().parents[3] / 'shared' / 'fixtures' / 'fit' / 'python-fitparse' / 'garmin-fenix-5-bike.fit'
    path = tmp_path / f'fenix-{uuid.uuid4().hex[:6]}.fit'
    shutil.copy(fixture, path)
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    page.get_by_label('Import GPX, FIT, TCX, .gpx436, GeoJSON or zip files').set_input_files(str(path))
    row = page.get_by_role('list', name='Imports').get_by_role('listitem').filter(has_text=path.name)
    expect(row).to_contain_text('1 track imported')
    page.get_by_label('Search tracks').fill(path.stem)
    saved = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(has_text=path.stem)
    expect(saved).to_have_count(1)
    saved.get_by_role('link').first.click()
    link = page.get_by_role('link', name='Download for a bike computer (FIT)')
    expect(link).to_have_attribute('href', re.compile(r'^/api/tracks/[\w-]+\.fit$'))
    body = page.request.get(link.get_attribute('href')).body()
    assert body[8:12] == b'.FIT', 'a FIT file'
    shot(page, 'track-fit-import')


@pytest.mark.parametrize('viewport', ['desktop'])
def test_a_watch_file_without_gps_shows_the_devices_figures_and_laps(context, tmp_path):
    """A FIT file from a speed sensor without GPS (a treadmill, a trainer) is a track without a line whose figures
    are the device's; its page says what the device measured and lists the laps as the device recorded them.
    The truth is fitdecode's reading of the same file."""
    import shutil
    from pathlib import Path
    import fitdecode
    fixture = Path(__file__).resolve().parents[3] / 'shared' / 'fixtures' / 'fit' / 'python-fitparse' / 'compressed-speed-distance.fit'
    session, laps = None, []
    with fitdecode.FitReader(str(fixture)) as reader:
        for frame in reader:
            if frame.frame_type == fitdecode.FIT_FRAME_DATA and frame.name == 'session':
                session = frame
            elif frame.frame_type == fitdecode.FIT_FRAME_DATA and frame.name == 'lap':
                laps.append(frame)
    distance_km = f"{session.get_value('total_distance') / 1000:.2f} km"
    path = tmp_path / f'sensor-{uuid.uuid4().hex[:6]}.fit'
    shutil.copy(fixture, path)
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    page.get_by_label('Import GPX, FIT, TCX, .gpx436, GeoJSON or zip files').set_input_files(str(path))
    row = page.get_by_role('list', name='Imports').get_by_role('listitem').filter(has_text=path.name)
    expect(row).to_contain_text('imported')
    page.get_by_label('Search tracks').fill(path.stem)
    saved = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(has_text=path.stem)
    expect(saved).to_contain_text(distance_km)  # the list row shows the device's distance, not 0 m
    saved.get_by_role('link').first.click()
    expect(page.locator('#track-device')).to_contain_text(f'Device: {distance_km}')
    expect(page.locator('#track-no-line')).to_be_visible()
    expect(page.locator('#track-map')).to_be_hidden()
    shot(page, 'track-device-figures')
    table = page.get_by_role('table').filter(has=page.locator('#lap-rate'))
    expect(table.locator('tbody tr')).to_have_count(len(laps))
    first = laps[0].get_value('total_distance')
    first_text = f'{first / 1000:.2f} km' if first >= 1000 else f'{round(first)} m'
    expect(table.locator('tbody tr').first.locator('td').first).to_have_text(first_text)
    page.locator('#track-laps-section').scroll_into_view_if_needed()
    shot(page, 'track-device-laps')


@pytest.mark.parametrize('viewport', ['desktop'])
def test_a_strava_export_zip_imports_by_the_picker(context, tmp_path):
    """A zip of rides (a Strava bulk export: activities.csv names them) goes in by the picker in one go; a bad
    entry is said, the others are imported."""
    import zipfile
    from pathlib import Path
    token = uuid.uuid4().hex[:6]
    fixture = Path(__file__).resolve().parents[3] / 'shared' / 'fixtures' / 'fit' / 'python-fitparse' / 'garmin-fenix-5-run.fit'
    path = tmp_path / f'export_{token}.zip'
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as archive:
        archive.writestr('activities.csv',
                         'Activity ID,Activity Name,Activity Type,Filename\n'
                         f'1,"Evening run, {token}",Run,activities/1.fit\n'
                         f'2,"Lunch ride {token}",Ride,activities/2.gpx\n'
                         '3,Broken,Ride,activities/3.gpx\n')
        archive.writestr('activities/1.fit', fixture.read_bytes())
        archive.writestr('activities/2.gpx', steady_ride(f'ride {token}', count=21, start_minute=7))
        archive.writestr('activities/3.gpx', '<gpx version="1.1" creator="x"><trk><trkseg><trkpt lat="1"')
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    page.get_by_label('Import GPX, FIT, TCX, .gpx436, GeoJSON or zip files').set_input_files(str(path))
    row = page.get_by_role('list', name='Imports').get_by_role('listitem').filter(has_text=path.name)
    expect(row).to_contain_text('2 imported, 1 failed')
    expect(row).to_contain_text('activities/3.gpx')
    page.get_by_label('Search tracks').fill(token)
    saved = page.get_by_role('list', name='Saved tracks').get_by_role('listitem')
    expect(saved.filter(has_text=f'Evening run, {token}')).to_have_count(1)
    expect(saved.filter(has_text=f'Lunch ride {token}')).to_have_count(1)
    shot(page, 'import-zip')


def _clock(seconds):
    """As the app writes a duration: m:ss, or h:mm:ss."""
    total = round(seconds)
    h, m, s = total // 3600, total % 3600 // 60, total % 60
    return f'{h}:{m:02d}:{s:02d}' if h else f'{m}:{s:02d}'


def test_the_list_row_shows_moving_time_as_the_totals_do_and_a_run_its_pace(context, server):
    # 5 minutes moving north at 5 m/s, 5 minutes standing, 5 minutes moving on: elapsed 15 min, moving 10.
    name = f'Stop and go {uuid.uuid4().hex[:6]}'
    points = []
    lat = 47.37
    for i in range(451):
        if not 150 <= i < 300:
            lat += 10 / 111_180
        seconds = i * 2
        points.append(f'<trkpt lat="{lat:.7f}" lon="8.54"><ele>410</ele><time>2019-05-04T05:{seconds // 60:02d}:{seconds % 60:02d}Z</time></trkpt>')
    text = GPX_HEAD + f'<trk><name>{name}</name><trkseg>\n' + '\n'.join(points) + '\n</trkseg></trk></gpx>\n'
    track_id = upload(server, text, f'{name}.gpx')['tracks'][0]['id']
    request = urllib.request.Request(f'{server}/api/tracks/{track_id}', data=b'{"kind":"run"}', method='PATCH',
                                     headers={'Content-Type': 'application/json'})
    urllib.request.urlopen(request, timeout=10).read()
    track = api_get(server, f'/api/tracks/{track_id}')
    assert track['elapsedSeconds'] - track['movingSeconds'] > 200, track
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    page.get_by_label('Search tracks').fill(name)
    row = page.get_by_role('list', name='Saved tracks').get_by_role('listitem').filter(has_text=name)
    expect(row).to_contain_text(f"{_clock(track['movingSeconds'])} moving")
    expect(row).not_to_contain_text(_clock(track['elapsedSeconds']))
    pace = _clock(1000 * track['movingSeconds'] / track['distanceMeters'])
    expect(row).to_contain_text(f'{pace} /km')
    expect(page.get_by_role('list', name='Saved tracks').get_by_role('listitem')).to_have_count(1)
    shot(page, 'tracks-row-moving-pace')
