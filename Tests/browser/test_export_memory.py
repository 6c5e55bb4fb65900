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


def rides(folder, first, count, points):
    files = []
    for index in range(first, first + count):
        path = folder / f'ride-{index}.gpx'
        generate(points, path, seed=index + 1)
        files.append(str(path))
    return files


def import_into(data, files):
    subprocess.run([str(BINARY), 'import', '--data-dir', str(data), *files], check=True, capture_output=True, timeout=1200)


def inflated_mb(path):
    """What an export wrote, inflated: every entry's size, as Python's zipfile reads them (CRCs checked)."""
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None
        return sum(info.file_size for info in archive.infolist()) / (1 << 20), json.loads(archive.read('manifest.json'))


def test_exporting_a_large_library_holds_bounded_memory(tmp_path):
    small, large = tmp_path / 'small', tmp_path / 'large'
    import_into(small, rides(tmp_path, 0, 1, 20_000))
    files = rides(tmp_path, 1, 24, 20_000)
    import_into(large, files[:12])

    small_peak, _ = export_peak_kb(small, tmp_path / 'small.zip')
    half_peak, _ = export_peak_kb(large, tmp_path / 'half.zip')
    import_into(large, files[12:])
    large_peak, output = export_peak_kb(large, tmp_path / 'large.zip')
    assert 'exported 24 tracks (480000 points)' in output, output

    half_mb, _ = inflated_mb(tmp_path / 'half.zip')
    large_mb, manifest = inflated_mb(tmp_path / 'large.zip')
    assert manifest['counts']['tracks'] == 24
    assert large_mb > 100, large_mb
    print(f'export-all peaked at {small_peak / 1024:.1f} MiB for 1 ride, {half_peak / 1024:.1f} MiB for 12 rides '
          f'({half_mb:.1f} MiB of entries), {large_peak / 1024:.1f} MiB for 24 rides ({large_mb:.1f} MiB of entries)')
    # Holding the archive (or every track) would grow by the entries' size at least. One ride at a time holds one
    # ride's GPX, its deflated bytes and its points as read (and what the allocator keeps of them): more than for an
    # empty library, but no more for 24 rides than for 12.
    grown_mb = (large_peak - small_peak) / 1024
    assert grown_mb < large_mb / 4, f'grew by {grown_mb:.1f} MiB for {large_mb:.1f} MiB of entries'
    doubled_mb = (large_peak - half_peak) / 1024
    assert doubled_mb < (large_mb - half_mb) / 4, f'12 more rides ({large_mb - half_mb:.1f} MiB) grew it by {doubled_mb:.1f} MiB'


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
        # One GPX per track (a FIT file beside it when the track came as one, and tracks.json, are entries too).
        assert manifest['counts']['tracks'] == sum(1 for entry in manifest['entries']
                                                   if entry['path'].startswith('tracks/') and entry['path'].endswith('.gpx'))
    finally:
        context.close()
