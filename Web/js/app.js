// The app shell: hash routes (#/record, #/tracks, #/tracks/ID), the tabs, the service worker.

import { api } from './api.js';
import { DevicesView } from './devices.js';
import { HeatmapView } from './heatmap.js';
import { LiveView } from './live.js';
import { loadLeaflet } from './map.js';
import { OverviewView } from './overview.js';
import { PlacesView } from './places.js';
import { PrivacyView, setUpTrackShare } from './privacy.js';
import { RecordView } from './record.js';
import { handleSkipLinks, oneTabStopPerRow } from './rowkeys.js';
import { SettingsView } from './settings.js';
import { TracksView } from './tracks.js';

const DEFAULT_CONFIG = {
  offlineTiles: null,
  standard: { url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', attribution: '© OpenStreetMap contributors' },
  satellite: { url: 'https://server.arcgisonline.com/ArcGIS/rest/services/World_Imagery/MapServer/tile/{z}/{y}/{x}', attribution: 'Imagery © Esri' },
  labels: { url: 'https://server.arcgisonline.com/ArcGIS/rest/services/Reference/World_Boundaries_and_Places/MapServer/tile/{z}/{y}/{x}', attribution: 'Esri' },
  cameraRadiusMeters: 300,
};

/** The server's settings; the last ones seen when it cannot be reached (a reload while offline). */
async function loadConfig() {
  try {
    const config = await api.config();
    localStorage.setItem('bikeride.config', JSON.stringify(config));
    return config;
  } catch {
    try { return JSON.parse(localStorage.getItem('bikeride.config')) || DEFAULT_CONFIG; } catch { return DEFAULT_CONFIG; }
  }
}

async function main() {
  // The map library loads beside everything else; only the maps wait for it (and say so when it cannot come).
  loadLeaflet();
  const config = await loadConfig();
  const record = new RecordView(config);
  const tracks = new TracksView(config);
  const places = new PlacesView(config);
  const settings = new SettingsView(() => record.settingsChanged());
  const live = new LiveView(config);
  const devices = new DevicesView();
  const heatmap = new HeatmapView(config);
  const privacy = new PrivacyView(config);
  setUpTrackShare(() => tracks.trackId);
  const overview = new OverviewView();
  const views = {
    record: document.getElementById('record-view'), tracks: document.getElementById('tracks-view'),
    track: document.getElementById('track-view'), settings: document.getElementById('settings-view'),
    places: document.getElementById('places-view'), place: document.getElementById('place-view'),
    live: document.getElementById('live-view'), heatmap: document.getElementById('heatmap-view'),
    overview: document.getElementById('overview-view'),
  };
  const titles = {
    record: 'Record', tracks: 'Tracks', track: 'Track', settings: 'Settings', places: 'Places', place: 'Place', live: 'Live',
    heatmap: 'Heatmap', overview: 'Overview',
  };
  let recordMounted = null;

  async function route() {
    const hash = location.hash || '#/record';
    const parts = hash.replace(/^#\/?/, '').split('?')[0].split('/');
    let name = parts[0] || 'record';
    if (name === 'tracks' && parts[1]) name = 'track';
    if (name === 'places' && parts[1]) name = 'place';
    if (!views[name]) name = 'record';
    for (const [key, element] of Object.entries(views)) element.hidden = key !== name;
    for (const link of document.querySelectorAll('.tabs a')) {
      const current = link.dataset.tab === ({ track: 'tracks', place: 'places', heatmap: 'tracks' }[name] || name);
      if (current) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
    }
    document.title = `${titles[name]} · bikeride`;
    if (name !== 'live') live.hidden();
    if (name === 'record') {
      if (!recordMounted) recordMounted = record.mount();
      await recordMounted;
      record.shown();
    } else if (name === 'settings') {
      settings.show();
      await devices.show();
      await privacy.show();
    } else if (name === 'overview') {
      await overview.show();
    } else if (name === 'live') {
      await live.show();
    } else if (name === 'heatmap') {
      await heatmap.show();
    } else if (name === 'places') {
      await places.showList();
    } else if (name === 'place') {
      await places.showPlace(decodeURIComponent(parts[1]));
    } else if (name === 'tracks') {
      await tracks.showList();
    } else {
      await tracks.showTrack(decodeURIComponent(parts[1]));
    }
  }

  handleSkipLinks();
  for (const list of document.querySelectorAll('ul.track-list')) oneTabStopPerRow(list);
  window.addEventListener('hashchange', route);
  // The recorder works in the background while another tab is shown: mount it once at start.
  recordMounted = record.mount();
  await route();
  document.body.dataset.ready = 'true';

  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register('/sw.js').catch((error) => console.warn('service worker not registered', error));
  }
}

main();
