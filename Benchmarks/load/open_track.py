"""Time to open a big saved track in the browser, to the red line drawn (issue 4's target: 500 ms), in the
system's Chromium.

    python3 Benchmarks/load/open_track.py [--base http://127.0.0.1:8080] [--track ID] [--runs 9] [--viewport phone|desktop]

The server must hold the track (`bikeride import ride-100k.gpx --data-dir DIR`, then `bikeride serve --data-dir
DIR`); without `--track` the track with the most points in the first page of the list is taken.

Each run is a fresh browser profile (nothing cached). Two measurements:

- **click → line** (the target): the Tracks list is open and settled; the track's row is clicked, and the
  clock runs in the page from the click until the first animation frame in which the track map holds the
  red line (`#track-map path.ride-path` with its points in `d`), i.e. the frame that paints it. The profile
  charts are timed the same way, to the frame in which both hold their line.
- **deep link → line**: a new page opened at `#/tracks/ID`, from the navigation's start (the app's own
  first load included) to the same frame.

Prints the median and the spread of each, and for the last run what the page fetched for the track (bytes
and time of each API answer) and how many vertices the drawn line has.
"""
import argparse
import os
import shutil
import statistics
import json
import urllib.request

from playwright.sync_api import sync_playwright

VIEWPORTS = {
    'phone': dict(viewport={'width': 390, 'height': 844}, device_scale_factor=2, is_mobile=True, has_touch=True),
    'desktop': dict(viewport={'width': 1280, 'height': 800}),
}

# Installed in every page before its scripts: watches each animation frame for the line and the profiles.
WATCH = """
window.__bench = { line: null, profiles: null, vertices: 0 };
(function watch() {
  const path = document.querySelector('#track-map path.ride-path');
  const d = path && path.getAttribute('d');
  if (window.__bench.line === null && d && d.length > 2) {
    window.__bench.line = performance.now();
    window.__bench.vertices = (d.match(/[ML]/g) || []).length;
  }
  if (window.__bench.profiles === null && document.querySelector('#elevation-profile svg path')
      && document.querySelector('#speed-profile svg path')) {
    window.__bench.profiles = performance.now();
  }
  if (window.__bench.line === null || window.__bench.profiles === null) requestAnimationFrame(watch);
})();
"""

CLICK = """
async (id) => {
  window.__bench.line = null;
  window.__bench.profiles = null;
  const link = document.querySelector(`#track-list a[href="#/tracks/${id}"]`);
  const began = performance.now();
  link.click();
  await new Promise((resolve) => {
    (function wait() {
      if (window.__bench.line !== null && window.__bench.profiles !== null) resolve(); else requestAnimationFrame(wait);
    })();
  });
  return { line: window.__bench.line - began, profiles: window.__bench.profiles - began, vertices: window.__bench.vertices };
}
"""


def pick_track(base):
    with urllib.request.urlopen(base + '/api/tracks?limit=50', timeout=30) as response:
        tracks = json.loads(response.read())['tracks']
    if not tracks:
        raise SystemExit('the server has no tracks: import one first (bikeride import FILE --data-dir DIR)')
    return max(tracks, key=lambda track: track['pointCount'])


def describe(values):
    ordered = sorted(values)
    return f'median {statistics.median(ordered):.0f} ms (min {ordered[0]:.0f}, max {ordered[-1]:.0f}, n={len(ordered)})'


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--base', default='http://127.0.0.1:8080')
    parser.add_argument('--track')
    parser.add_argument('--runs', type=int, default=9)
    parser.add_argument('--viewport', choices=list(VIEWPORTS), default='desktop')
    args = parser.parse_args()
    base = args.base
    if args.track:
        track = {'id': args.track, 'pointCount': '?', 'name': '?'}
    else:
        track = pick_track(base)
    print(f'track {track["id"]} ({track["pointCount"]} points, "{track["name"]}"), {args.viewport} viewport, {args.runs} runs, against {base}')

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which('chromium'), args=['--no-sandbox'] if os.geteuid() == 0 else [])

        def new_context():
            context = browser.new_context(base_url=base, **VIEWPORTS[args.viewport])
            context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
            context.add_init_script(WATCH)
            return context

        click_line, click_profiles, deep_line, deep_profiles = [], [], [], []
        vertices, fetched = 0, []
        for _ in range(args.runs):
            context = new_context()
            page = context.new_page()
            page.goto('/#/tracks')
            page.wait_for_selector('body[data-ready="true"]')
            page.wait_for_selector(f'#track-list a[href="#/tracks/{track["id"]}"]')
            page.wait_for_load_state('networkidle')
            result = page.evaluate(CLICK, track['id'])
            click_line.append(result['line'])
            click_profiles.append(result['profiles'])
            vertices = result['vertices']
            fetched = page.evaluate("""() => performance.getEntriesByType('resource')
                .filter((entry) => entry.name.includes('/api/tracks/'))
                .map((entry) => [new URL(entry.name).pathname + new URL(entry.name).search, entry.encodedBodySize, entry.duration])""")
            context.close()

            context = new_context()
            page = context.new_page()
            page.goto(f'/#/tracks/{track["id"]}')
            page.wait_for_function('window.__bench.line !== null && window.__bench.profiles !== null', polling=50, timeout=60000)
            bench = page.evaluate('window.__bench')
            deep_line.append(bench['line'])
            deep_profiles.append(bench['profiles'])
            context.close()
        browser.close()

    print(f'click → red line drawn:      {describe(click_line)}')
    print(f'click → profiles drawn:      {describe(click_profiles)}')
    print(f'deep link → red line drawn:  {describe(deep_line)}')
    print(f'deep link → profiles drawn:  {describe(deep_profiles)}')
    print(f'last run: the drawn line has {vertices} vertices; fetched:')
    for name, size, duration in fetched:
        print(f'  {name}: {size / 1e6:.2f} MB in {duration:.0f} ms')


if __name__ == '__main__':
    main()
