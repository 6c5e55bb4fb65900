"""Issue 21: a Strava export imports in the background, and the Tracks tab shows how far it is ("12 of 40 files", a
progress bar), then what it made; the job is asked of the server (`GET /api/imports/{id}`), so a reload or another
instance would find it too."""
import json
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from playwright.sync_api import expect

from conftest import api_get, shot, wait_until

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize('viewport', ['phone'])
def test_an_archive_import_shows_its_progress_then_its_outcome(context, server, tmp_path):
    tag = uuid.uuid4().hex[:6]
    path = tmp_path / f'strava_{tag}.zip'
    # 40 activities of 20 min to 2.5 h (FIT, GPX, TCX, gzipped or not, indoor rides) dated 2009–2013, older than the other
    # tests' tracks; the generator's truth says how many files it wrote.
    subprocess.run([sys.executable, str(ROOT / 'Benchmarks' / 'generate_archive.py'), '40', str(path), '--tag', tag,
                    '--first-year', '2009', '--seed', str(int(tag, 16))], check=True, capture_output=True)
    truth = json.loads((tmp_path / f'{path.name}.truth.json').read_text())
    files = truth['files']
    page = context.new_page()
    page.goto('/#/tracks')
    page.wait_for_selector('body[data-ready="true"]')
    page.get_by_label('Import GPX, FIT, TCX, .gpx436, GeoJSON or zip files').set_input_files(str(path))
    row = page.get_by_role('list', name='Imports').get_by_role('listitem').filter(has_text=path.name)

    # While it runs: "N of 40 files" with N below 40, and a progress bar of files that says the same.
    wait_until(page, f"""() => [...document.querySelectorAll('#import-list li')].some((li) =>
        li.textContent.includes('{path.name}') && /([1-9]\\d*) of {files} files/.test(li.querySelector('.import-status').textContent)
        && Number(li.querySelector('.import-status').textContent.match(/(\\d+) of {files} files/)[1]) < {files})""", timeout=60000)
    bar = row.get_by_role('progressbar')
    expect(bar).to_have_attribute('max', str(files))
    done = int(re.search(rf'(\d+) of {files} files', row.inner_text()).group(1))
    assert 0 < done < files
    shot(page, 'import-archive-progress')

    # The end: every file imported, the bar gone, and the tracks in the list under their names from activities.csv.
    expect(row).to_contain_text(f'{files} imported', timeout=120000)
    expect(row.get_by_role('progressbar')).to_have_count(0)
    shot(page, 'import-archive-done')
    page.get_by_label('Search tracks').fill(tag)
    saved = page.get_by_role('list', name='Saved tracks').get_by_role('listitem')
    expect(saved.first).to_contain_text(tag)
    tracks = api_get(server, f'/api/tracks?q={tag}&limit=100')['tracks']
    assert len(tracks) == files
    assert sum(1 for t in tracks if t['pointCount'] == 0) == truth['indoor']
