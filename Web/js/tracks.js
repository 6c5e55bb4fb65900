// The Tracks tab: the list of saved tracks and a track's page.
//
// Saved tracks live in the server's store (/api/tracks). The ride just stopped is also kept for this session
// (from the Stop answer), so its page shows even before the server can be reached again.

import { api, ApiError, NetworkError } from './api.js';
import * as format from './format.js';
import { makeSwipeable } from './swipe.js';  // a row pulled left deletes its track (rules in swipe.js)
import { drawTrackMap, escapeHTML, loadLeaflet, setTrackLines } from './map.js';
import { arrow } from './announce.js';

const $ = (id) => document.getElementById(id);
const PAGE_SIZE = 20;
const LONG_CUE_SHEET = 8;      // more turns than this are collapsed under their heading
const UNDO_MS = 5000;          // how long a deleted track can be brought back before the server is asked

function lastStopped() {
  try { return JSON.parse(sessionStorage.getItem('bikeride.lastStopped') || 'null'); } catch { return null; }
}

function explain(error) {
  if (error instanceof NetworkError) return 'Offline: the list of tracks needs the server.';
  return `Could not load the tracks: ${error.message}`;
}

export class TracksView {
  constructor(config) {
    this.config = config;
    this.cursor = null;
    this.trackMap = null;
    $('track-search').addEventListener('submit', (event) => { event.preventDefault(); this.showList(); });
    $('tracks-more').addEventListener('click', () => this.loadPage(false));
    $('undo-button').addEventListener('click', () => this.undoDelete());
    $('track-edit').addEventListener('submit', (event) => { event.preventDefault(); this.saveTrack(); });
    $('import-files').addEventListener('change', (event) => {
      this.importFiles([...event.target.files]);
      event.target.value = '';
    });
    const zone = $('drop-zone');
    zone.addEventListener('dragover', (event) => { event.preventDefault(); zone.classList.add('dragging'); });
    zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
    zone.addEventListener('drop', (event) => {
      event.preventDefault();
      zone.classList.remove('dragging');
      this.importFiles([...event.dataTransfer.files]);
    });
  }

  /** Uploads files one after the other, each with its progress and its own result. */
  async importFiles(files) {
    let imported = 0;
    for (const file of files) {
      const item = document.createElement('li');
      const name = document.createElement('span');
      name.textContent = file.name;
      const status = document.createElement('span');
      status.textContent = 'waiting';
      const progress = document.createElement('progress');
      progress.max = 1;
      progress.value = 0;
      progress.setAttribute('aria-label', `Uploading ${file.name}`);
      item.append(name, status, progress);
      $('import-list').append(item);
      try {
        status.textContent = 'uploading';
        const answer = await upload(file, (fraction) => { progress.value = fraction; });
        progress.value = 1;
        status.textContent = answer && answer.duplicate ? 'already imported' : 'imported';
        imported += 1;
      } catch (error) {
        progress.remove();
        status.textContent = `not imported: ${error.message}`;
        status.classList.add('failed');
      }
    }
    if (imported) await this.showList();
  }

  async showList() {
    this.cursor = null;
    $('track-list').replaceChildren();
    await this.loadPage(true);
  }

  async loadPage(first) {
    const message = $('tracks-message');
    message.textContent = '';
    try {
      const params = { limit: PAGE_SIZE, q: $('track-query').value.trim() };
      if (this.cursor) params.cursor = this.cursor;
      const page = await api.tracks(params);
      for (const track of page.tracks || []) $('track-list').append(this.row(track));
      this.cursor = page.nextCursor || null;
      $('tracks-more').hidden = !this.cursor;
      if (first && !(page.tracks || []).length) message.textContent = 'No tracks yet. Record a ride, or import a GPX file.';
    } catch (error) {
      message.textContent = explain(error);
      $('tracks-more').hidden = true;
      const recent = lastStopped();
      if (first && recent && recent.trackId) {
        message.textContent += ' The ride you just stopped is below.';
        $('track-list').append(this.row({
          id: recent.trackId, name: recent.name, startedAt: recent.startedAt,
          distanceMeters: recent.stats.distanceMeters, ascentMeters: recent.stats.ascentMeters, elapsedSeconds: recent.stats.elapsedSeconds,
          shape: recent.path.flatMap((path) => path.points),
        }));
      }
    }
  }

  row(track) {
    const item = document.createElement('li');
    // Under the row, the red area a swipe uncovers (the Delete button says the same to a screen reader).
    const reveal = document.createElement('div');
    reveal.className = 'swipe-reveal';
    reveal.setAttribute('aria-hidden', 'true');
    reveal.textContent = 'Delete';
    const content = document.createElement('div');
    content.className = 'track-row';
    const link = document.createElement('a');
    link.href = `#/tracks/${encodeURIComponent(track.id)}`;
    if (track.shape && track.shape.length > 1) content.append(shapeSVG(track.shape));
    link.innerHTML = `<strong>${escapeHTML(track.name || 'Track')}</strong><br>
      <span>${escapeHTML(format.date(track.startedAt))} · ${format.distance(track.distanceMeters)} ·
      ${format.elevation(track.ascentMeters)} climb · ${format.duration(track.elapsedSeconds)}</span>`;
    content.append(link);
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'delete';
    remove.textContent = 'Delete';
    remove.setAttribute('aria-label', `Delete ${track.name || 'track'}`);
    remove.addEventListener('click', () => this.deleteWithUndo(track, item));
    content.append(remove);
    item.append(reveal, content);
    makeSwipeable(item, content, () => this.deleteWithUndo(track, item));
    return item;
  }

  /**
   * Hides the track at once and asks the server to delete it only when the undo time is over, so that Undo
   * needs nothing from the server.
   */
  deleteWithUndo(track, item) {
    if (this.pendingDelete) this.commitDelete();
    // The focus was on the row's Delete button, now hidden: a keyboard user lands on Undo, not at the top.
    const hadFocus = item.contains(document.activeElement);
    item.hidden = true;
    $('undo-text').textContent = `Deleted ${track.name || 'track'}.`;
    $('undo-bar').hidden = false;
    if (hadFocus) $('undo-button').focus();
    this.pendingDelete = { track, item, timer: setTimeout(() => this.commitDelete(), UNDO_MS) };
  }

  undoDelete() {
    const pending = this.pendingDelete;
    if (!pending) return;
    clearTimeout(pending.timer);
    pending.item.hidden = false;
    this.pendingDelete = null;
    // Back to the row that came back, if the focus was on Undo.
    const undoHadFocus = document.activeElement === $('undo-button');
    $('undo-bar').hidden = true;
    if (undoHadFocus) pending.item.querySelector('a').focus();
  }

  async commitDelete() {
    const pending = this.pendingDelete;
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pendingDelete = null;
    $('undo-bar').hidden = true;
    try {
      await api.deleteTrack(pending.track.id);
      pending.item.remove();
    } catch (error) {
      pending.item.hidden = false;
      $('tracks-message').textContent = `Could not delete: ${error.message}`;
    }
  }

  async saveTrack() {
    const id = this.trackId;
    const form = $('track-edit');
    try {
      const track = await api.updateTrack(id, { name: form.elements.name.value.trim(), kind: form.elements.kind.value });
      $('track-heading').textContent = track.name;
      $('track-message').textContent = 'Saved.';
    } catch (error) {
      $('track-message').textContent = `Could not save: ${error.message}`;
    }
  }

  async showTrack(id) {
    const message = $('track-message');
    message.textContent = '';
    const mapElement = $('track-map');
    // The profiles are asked for at once, beside the track, and drawn after its line.
    const profileRequest = api.profile(id).catch(() => null);
    const mapLibrary = loadLeaflet();
    let track = null;
    try {
      // The line comes simplified for the size of the map it is drawn in (a big track draws as fast as a small one).
      track = await api.track(id, fitParameters(mapElement));
    } catch (error) {
      const recent = lastStopped();
      if (recent && recent.trackId === id) {
        track = { id, name: recent.name, stats: recent.stats, segments: recent.path.map((path) => path.points), profile: recent.profile };
      } else {
        message.textContent = explain(error);
      }
    }
    this.trackId = id;
    $('track-heading').textContent = track ? track.name : 'Track';
    const form = $('track-edit');
    form.elements.name.value = track ? track.name : '';
    form.elements.kind.value = (track && track.kind) || 'ride';
    for (const format of ['gpx', 'gpx436', 'geojson']) {
      $(`download-${format}`).href = `/api/tracks/${encodeURIComponent(id)}.${format}`;
    }
    // Demo mode along this track (record.js: #/record?simulate=KMH&track=ID).
    // The recorder takes its positions when the app starts, so the replay starts with a fresh page.
    const simulateLink = $('simulate-track');
    simulateLink.href = `#/record?simulate=18&track=${encodeURIComponent(id)}`;
    simulateLink.onclick = (event) => {
      event.preventDefault();
      location.hash = simulateLink.getAttribute('href');
      location.reload();
    };
    this.renderStats(track ? track.stats : null);
    this.showTurns(track ? id : null);
    await mapLibrary;
    if (this.trackMap) { this.trackMap.remove(); this.trackMap = null; }
    mapElement.replaceChildren();
    delete mapElement.dataset.lineZoom;
    if (track) {
      // Null without Leaflet: then the line is drawn alone, once, with nothing to zoom.
      this.trackMap = drawTrackMap(mapElement, this.config, track.segments || []);
      if (this.trackMap && Number.isInteger(track.simplifiedForZoom)) this.detailOnZoom(id, this.trackMap, track.simplifiedForZoom);
    }
    try {
      const profile = track ? (track.profile || await profileRequest) : null;
      renderProfile($('elevation-profile'), profile ? profile.distanceMeters : [], profile ? profile.elevationMeters : [], 'elevation');
      renderProfile($('speed-profile'), profile ? profile.distanceMeters : [], profile ? profile.speedMetersPerSecond : [], 'speed');
    } catch {
      renderProfile($('elevation-profile'), [], [], 'elevation');
      renderProfile($('speed-profile'), [], [], 'speed');
    }
  }

  /** Zoomed in beyond what the line was simplified for: asks for it again with the detail of the new zoom. */
  detailOnZoom(id, map, simplifiedForZoom) {
    let loaded = simplifiedForZoom;
    let asking = false;
    map.on('zoomend', async () => {
      const wanted = Math.min(24, Math.ceil(map.getZoom()) + 1);  // one closer, as the server's fit is
      if (wanted <= loaded || asking) return;
      asking = true;
      try {
        const detail = await api.track(id, { zoom: wanted });
        if (this.trackMap === map) {
          setTrackLines(map, detail.segments || []);
          loaded = wanted;
          map.getContainer().dataset.lineZoom = String(wanted);
        }
      } catch {
        // The line drawn stays; the next zoom asks again.
      } finally {
        asking = false;
      }
    });
  }

  /** The track's cue sheet (its turns, in the user's units): open when short, collapsed under "Turns" when long. */
  async showTurns(id) {
    const section = $('track-turns');
    section.hidden = true;
    $('cue-list').replaceChildren();
    if (!id) return;
    let sheet;
    try {
      sheet = await api.cues(id, format.units());
    } catch {
      return;  // offline, or a track without length: the page goes without its turns
    }
    if (this.trackId !== id || !(sheet.cues || []).length) return;
    for (const cue of sheet.cues) {
      const item = document.createElement('li');
      const arrowGlyph = document.createElement('span');
      arrowGlyph.setAttribute('aria-hidden', 'true');
      arrowGlyph.textContent = `${arrow(cue.direction, cue.severity)} `;
      item.append(arrowGlyph, cue.fromPrevious ? `${cue.text} after ${cue.fromPrevious}` : cue.text);
      $('cue-list').append(item);
    }
    const count = sheet.cues.length;
    $('turns-summary').textContent = count === 1 ? '1 turn' : `${count} turns`;
    $('turns-details').open = count <= LONG_CUE_SHEET;
    section.hidden = false;
  }

  renderStats(stats) {
    const list = $('track-stats');
    list.replaceChildren();
    if (!stats) return;
    const rows = [
      ['Distance', format.distance(stats.distanceMeters)],
      ['Moving time', format.duration(stats.movingSeconds)],
      ['Elapsed time', format.duration(stats.elapsedSeconds)],
      ['Average speed', format.speed(stats.averageSpeedMetersPerSecond)],
      ['Maximum speed', format.speed(stats.maxSpeedMetersPerSecond)],
      ['Climb', format.elevation(stats.ascentMeters)],
      ['Descent', format.elevation(stats.descentMeters)],
    ];
    for (const [label, value] of rows) {
      const wrapper = document.createElement('div');
      const term = document.createElement('dt');
      term.textContent = label;
      const detail = document.createElement('dd');
      detail.textContent = value;
      wrapper.append(term, detail);
      list.append(wrapper);
    }
  }
}

/** `{fit: "WIDTHxHEIGHT"}`: the part of the track map the line is fitted into (drawTrackMap leaves 20 px a side). */
function fitParameters(element) {
  const width = element.clientWidth - 40, height = element.clientHeight - 40;
  return width > 0 && height > 0 ? { fit: `${width}x${height}` } : undefined;
}

/** A line chart of `ys` against `xs` (metres), as SVG with a text alternative. */
export function renderProfile(container, xs, ys, kind) {
  container.replaceChildren();
  const points = (xs || []).map((x, i) => [x, ys[i]]).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  if (points.length < 2) {
    container.textContent = 'No data for this profile yet.';
    return;
  }
  const width = 600, height = 120;
  const [minX, maxX] = [points[0][0], points[points.length - 1][0]];
  const minY = Math.min(...points.map((p) => p[1])), maxY = Math.max(...points.map((p) => p[1]));
  const sx = (x) => ((x - minX) / Math.max(1, maxX - minX)) * width;
  const sy = (y) => height - ((y - minY) / Math.max(1e-9, maxY - minY)) * (height - 10) - 5;
  const d = points.map(([x, y], i) => `${i ? 'L' : 'M'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join('');
  const label = kind === 'speed'
    ? `Speed from ${format.speed(minY)} to ${format.speed(maxY)} over ${format.distance(maxX - minX)}`
    : `Elevation from ${format.elevation(minY)} to ${format.elevation(maxY)} over ${format.distance(maxX - minX)}`;
  container.innerHTML = `<svg viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" role="img" aria-label="${escapeHTML(label)}">
    <path d="${d}" fill="none" stroke="var(--colour-primary)" stroke-width="2" vector-effect="non-scaling-stroke"/></svg>`;
}

const MEDIA_TYPES = { gpx: 'application/gpx+xml', gpx436: 'application/json', geojson: 'application/geo+json', json: 'application/json' };

/** POST /api/tracks with upload progress (fetch cannot report it); rejects with an ApiError-like error. */
function upload(file, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    const extension = file.name.split('.').pop().toLowerCase();
    request.open('POST', `/api/tracks?name=${encodeURIComponent(file.name)}`);
    request.setRequestHeader('Content-Type', MEDIA_TYPES[extension] || 'application/octet-stream');
    request.upload.onprogress = (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); };
    request.onload = () => {
      let body = null;
      try { body = JSON.parse(request.responseText); } catch { body = null; }
      if (request.status >= 200 && request.status < 300) return resolve(body);
      const detail = body && body.error ? body.error : {};
      reject(new ApiError(request.status, detail.code || `http_${request.status}`, detail.message || request.statusText));
    };
    request.onerror = () => reject(new NetworkError(new Error('upload failed')));
    request.send(file);
  });
}

/** A small drawing of a track's shape, `[latitude, longitude]` points fitted into 64×48 (north up). */
export function shapeSVG(points) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 64 48');
  svg.setAttribute('class', 'shape');
  svg.setAttribute('aria-hidden', 'true');
  const lats = points.map((p) => p[0]), lons = points.map((p) => p[1]);
  const midLat = (Math.min(...lats) + Math.max(...lats)) / 2;
  const xScale = Math.cos(midLat * Math.PI / 180);  // degrees of longitude are shorter away from the equator
  const minX = Math.min(...lons) * xScale, maxX = Math.max(...lons) * xScale;
  const minY = Math.min(...lats), maxY = Math.max(...lats);
  const scale = Math.min(60 / Math.max(1e-9, maxX - minX), 44 / Math.max(1e-9, maxY - minY));
  const offsetX = (64 - (maxX - minX) * scale) / 2, offsetY = (48 - (maxY - minY) * scale) / 2;
  const step = Math.max(1, Math.floor(points.length / 200));
  const d = points.filter((_, i) => i % step === 0 || i === points.length - 1)
    .map(([lat, lon], i) => `${i ? 'L' : 'M'}${(offsetX + (lon * xScale - minX) * scale).toFixed(1)},${(48 - offsetY - (lat - minY) * scale).toFixed(1)}`).join('');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', '#ff0000');
  path.setAttribute('stroke-width', '2');
  svg.append(path);
  return svg;
}
