"""All your data out in constant memory (issue 23): `bikeride export-all` on a library of many rides grows by a
small fraction of what it writes, because the zip is written entry by entry as the tracks are read from the store
one at a time. The peak resident memory (VmHWM) of the export of a one-ride library is the baseline; the export of
a library some twenty times larger must not grow with it. Not a browser test, but it needs the real `bikeride`
process, which this harness builds."""
import json
import subprocess
import time
import zipfile

from conftest import ROOT

BINARY = ROOT / '.build' / 'debug' / 'bikeride'


def generate(points, path, seed):
    subprocess.run(['python3', str(ROOT / 'Benchmarks' / 'generate_ride.py'), str(points), str(path), f'--seed={seed}'],
                   check=True, capture_output=True)


def export_peak_kb(data, out):
    """Runs `bikeride export-all` and returns its peak resident memory (VmHWM, KiB), read until it exits."""
    process = subprocess.Popen([str(BINARY), 'export-all', '--out', str(out), '--data-dir', str(data)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    while process.poll() is None:
        try:
            with open(f'/proc/{process.pid}/status') as status:
                for line in status:
                    if line.startswith('VmHWM:'):
                        peak = max(peak, int(line.split()[1]))
        except (FileNotFoundError, ProcessLookupError):
            break
        time.sleep(0.02)
    output, errors = process.communicate(timeout=600)
    assert process.returncode == 0, errors
    return peak, output


def library(folder, rides, points):
    files = []
    for index in range(rides):
        path = folder / f'ride-{index}.gpx'
        generate(points, path, seed=index + 1)
        files.append(str(path))
    subprocess.run([str(BINARY), 'import', '--data-dir', str(folder / 'data'), *files], check=True, capture_output=True, timeout=1200)
    return folder / 'data'


def test_exporting_a_large_library_holds_bounded_memory(tmp_path):
    small_folder, large_folder = tmp_path / 'small', tmp_path / 'large'
    small_folder.mkdir()
    large_folder.mkdir()
    small = library(small_folder, rides=1, points=20_000)
    large = library(large_folder, rides=24, points=20_000)

    small_peak, _ = export_peak_kb(small, tmp_path / 'small.zip')
    large_peak, output = export_peak_kb(large, tmp_path / 'large.zip')
    assert 'exported 24 tracks (480000 points)' in output, output

    # What the export wrote, inflated: every entry's size, as Python's zipfile reads them (CRCs checked).
    with zipfile.ZipFile(tmp_path / 'large.zip') as archive:
        assert archive.testzip() is None
        inflated_mb = sum(info.file_size for info in archive.infolist()) / (1 << 20)
        manifest = json.loads(archive.read('manifest.json'))
    assert manifest['counts']['tracks'] == 24
    grown_mb = (large_peak - small_peak) / 1024
    print(f'export-all peaked at {large_peak / 1024:.1f} MiB for {inflated_mb:.1f} MiB of entries '
          f'({small_peak / 1024:.1f} MiB for one ride): grew by {grown_mb:.1f} MiB')
    assert inflated_mb > 100, inflated_mb
    # Holding the archive (or every track) would grow by the entries' size at least; one ride at a time holds one
    # ride's GPX, its deflated bytes and its points as read: the same as the one-ride library, give or take.
    assert grown_mb < inflated_mb / 8, f'grew by {grown_mb:.1f} MiB for {inflated_mb:.1f} MiB of entries'


def test_settings_export_everything_downloads_the_librarys_zip(browser, server, tmp_path):
    """Settings → "Export everything" downloads `bikeride-export-DATE.zip`, which holds the manifest and the tracks."""
    from playwright.sync_api import expect
    from conftest import shot
    context = browser.new_context(base_url=server, accept_downloads=True)
    context.viewport_name = 'desktop'
    try:
        page = context.new_page()
        page.goto('/#/settings')
        page.wait_for_selector('body[data-ready="true"]')
        link = page.get_by_role('link', name='Export everything')
        expect(link).to_be_visible()
        link.scroll_into_view_if_needed()
        shot(page, 'settings-export')
        with page.expect_download() as download_info:
            link.click()
        download = download_info.value
        assert download.suggested_filename.startswith('bikeride-export-') and download.suggested_filename.endswith('.zip')
        path = tmp_path / download.suggested_filename
        download.save_as(path)
        with zipfile.ZipFile(path) as archive:
            assert archive.testzip() is None
            manifest = json.loads(archive.read('manifest.json'))
        assert manifest['format'] == 'bikeride-export'
        assert manifest['counts']['tracks'] == sum(1 for entry in manifest['entries'] if entry['path'].startswith('tracks/'))
    finally:
        context.close()
