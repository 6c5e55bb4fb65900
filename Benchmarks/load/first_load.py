"""The web app's first load on localhost (issue 4's target: interactive within 1 s), in the system's Chromium.

    python3 Benchmarks/load/first_load.py [--base http://127.0.0.1:8080] [--runs 7]

Each run is a fresh browser profile (nothing cached) on a phone viewport with location allowed; it times
from navigation to the app's `data-ready` (config read, map and recorder set up) and to the blue dot, and
prints the browser's own DOMContentLoaded and load times of the last run.
"""
import argparse
import os
import shutil
import statistics
import time

from playwright.sync_api import sync_playwright


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--base', default='http://127.0.0.1:8080')
    parser.add_argument('--runs', type=int, default=7)
    args = parser.parse_args()
    base = args.base
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which('chromium'), args=['--no-sandbox'] if os.geteuid() == 0 else [])
        ready, dot = [], []
        for _ in range(args.runs):
            context = browser.new_context(base_url=base, viewport={'width': 390, 'height': 844}, is_mobile=True, has_touch=True)
            context.grant_permissions(['geolocation'], origin=base)
            context.set_geolocation({'latitude': 37.3230, 'longitude': -122.0322, 'accuracy': 5})
            context.route('**/*', lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
            page = context.new_page()
            began = time.perf_counter()
            page.goto('/#/record')
            page.wait_for_selector('body[data-ready="true"]')
            ready.append(time.perf_counter() - began)
            page.wait_for_selector('path.me-dot')
            dot.append(time.perf_counter() - began)
            timing = page.evaluate(
                "() => { const n = performance.getEntriesByType('navigation')[0]; return [n.domContentLoadedEventEnd, n.loadEventEnd]; }")
            context.close()
        browser.close()
    print(f'ready: median {statistics.median(ready) * 1000:.0f} ms, max {max(ready) * 1000:.0f} ms')
    print(f'blue dot: median {statistics.median(dot) * 1000:.0f} ms, max {max(dot) * 1000:.0f} ms')
    print(f'last run: DOMContentLoaded {timing[0]:.0f} ms, load {timing[1]:.0f} ms')


if __name__ == '__main__':
    main()
