// The service worker: keeps the app shell (and Leaflet, and offline tiles seen) so that the app opens and
// records with no network; the fix queue itself is in IndexedDB (js/outbox.js). The API is never cached.

const SHELL_CACHE = 'bikeride-shell-v4';
const TILE_CACHE = 'bikeride-tiles-v1';
const SHELL = [
  '/', '/index.html', '/css/app.css', '/manifest.webmanifest', '/icons/icon.svg', '/icons/icon-192.png', '/icons/icon-512.png',
  '/js/app.js', '/js/api.js', '/js/format.js', '/js/map.js', '/js/outbox.js', '/js/record.js', '/js/ride.js', '/js/sync.js', '/js/settings.js',
  '/js/tracks.js', '/js/charts.js', '/js/navigation.js', '/js/announce.js', '/js/places.js', '/js/swipe.js', '/js/provisional.js', '/js/guidance.js', '/js/rowkeys.js',
  '/js/live.js', '/js/devices.js', '/js/heatmap.js', '/js/privacy.js', '/js/login.js', '/js/overview.js', '/login.html',
  '/vendor/leaflet/leaflet.js', '/vendor/leaflet/leaflet.css',
];

const NETWORK_ONLY = /^\/(share|live|ride)\//;

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(SHELL_CACHE);
    // One by one: a file that fails (Leaflet from the public copy while offline) must not stop the rest.
    await Promise.all(SHELL.map((url) => cache.add(url).catch(() => undefined)));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (![SHELL_CACHE, TILE_CACHE].includes(name)) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/api/') || url.pathname === '/health' || url.pathname === '/metrics') return;
  // Pages the server makes for a link (a shared place, a live device, a shared ride) and their files: the network,
  // never the app's page in their place nor a cached copy of someone's shared data.
  if (NETWORK_ONLY.test(url.pathname)) return;
  if (url.pathname.startsWith('/tiles/')) {
    event.respondWith(cacheFirst(request, TILE_CACHE));
    return;
  }
  if (request.mode === 'navigate') {
    // Every address of the app is index.html, but the login page is its own page: answered with index.html,
    // the app would ask the API, get 401, go to the login page and get index.html again, forever.
    const page = url.pathname === '/login.html' ? '/login.html' : '/index.html';
    event.respondWith(staleWhileRevalidate(new Request(page), SHELL_CACHE));
    return;
  }
  event.respondWith(staleWhileRevalidate(request, SHELL_CACHE));
});

async function cacheFirst(request, cacheName) {
  const cache = await caches.open(cacheName);
  const cached = await cache.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) cache.put(request, response.clone());
  return response;
}

/** The cached copy at once, refreshed from the network for next time; the network when nothing is cached. */
async function staleWhileRevalidate(request, cacheName) {
  const cache = await caches.open(cacheName);
  const cached = await cache.match(request);
  const refresh = fetch(request).then((response) => {
    if (response.ok) cache.put(request, response.clone());
    return response;
  });
  if (cached) {
    refresh.catch(() => undefined);
    return cached;
  }
  return refresh;
}
