// The Tracks tab: the list of saved tracks and a track's page.
//
// Saved tracks live in the server's store (/api/tracks). The ride just stopped is also kept for this session
// (from the Stop answer), so its page shows even before the server can be reached again.

import { api, ApiError, NetworkError } from './api.js';
import * as format from './format.js';
import { makeSwipeable } from './swipe.js';  // a row pulled left deletes its track (rules in swipe.js)
import { drawTrackMap, escapeHTML, loadLeaflet, setTrackLines } from './map.js';
import { arrow } from './announce.js';
import { renderChart } from './charts.js';
import { badge, effortValue, EFFORT_NAMES } from './overview.js';

const $ = (id) => document.getElementById(id);
const PAGE_SIZE = 20;
const LONG_CUE_SHEET = 8;      // more turns than this are collapsed under their heading
const UNDO_MS = 5000;          // how long the Undo bar offers to bring a deleted track back
const SEARCH_DELAY_MS = 200;   // search as you type: asked once the typing pauses this long
const CHARTS = ['elevation', 'speed', 'heartRate', 'cadence', 'power'];
const PROFILE_KEYS = { elevation: 'elevationMeters', speed: 'speedMetersPerSecond', heartRate: 'heartRate', cadence: 'cadence', power: 'powerWatts' };

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
    this.listRequest = 0;
    $('track-search').addEventListener('submit', (event) => {
      event.preventDefault();
      clearTimeout(this.searchTimer);
      this.showList();
    });
    // Search as you type: a pause in the typing asks (unless the list already shows that search); an older
    // answer arriving late is dropped (listRequest).
    $('track-query').addEventListener('input', () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = setTimeout(() => {
        if (this.shownSearch !== this.searchKey()) this.showList();
      }, SEARCH_DELAY_MS);
    });
    $('track-kind-filter').addEventListener('change', () => this.showList());
    $('track-delete').addEventListener('click', () => this.deleteShownTrack());
    $('tracks-more').addEventListener('click', () => this.loadPage(false));
    $('undo-button').addEventListener('click', () => this.undoDelete());
    $('track-edit').addEventListener('submit', (event) => { event.preventDefault(); this.saveTrack(); });
    $('track-keep-real').addEventListener('click', () => this.keepAsRealRide());
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

  /**
   * Uploads files one after the other, each with its progress and its own result: what the server says it
   * made of the file ("8 tracks imported") and what it left out (its `warnings`, in plain words, with the line
   * and column as detail). Every row stays until dismissed (a rider who looked away still sees what happened).
   */
  async importFiles(files) {
    let imported = 0;
    for (const file of files) {
      const item = document.createElement('li');
      const name = document.createElement('span');
      name.className = 'import-name';
      name.textContent = file.name;
      const status = document.createElement('span');
      status.className = 'import-status';
      status.textContent = 'waiting';
      const progress = document.createElement('progress');
      progress.max = 1;
      progress.value = 0;
      progress.setAttribute('aria-label', `Uploading ${file.name}`);
      item.append(name, status, progress);
      $('import-list').append(item);
      const dismiss = () => {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'dismiss';
        button.textContent = 'Dismiss';
        button.setAttribute('aria-label', `Dismiss ${file.name}`);
        button.addEventListener('click', () => item.remove());
        item.append(button);
      };
      try {
        status.textContent = 'uploading';
        const answer = await upload(file, (fraction) => {
          progress.value = fraction;
          // Sent whole: the server now reads it (an archive of many rides takes a while).
          if (fraction >= 1) status.textContent = 'importing';
        });
        let finished = answer;
        // An archive is imported in the background: its job says how far it is until it is done.
        if (answer && answer.state) finished = await this.followImport(answer, progress, status);
        progress.remove();
        status.textContent = (finished && finished.message) || 'imported';
        const warnings = (finished && finished.warnings) || [];
        // An archive's entries that could not be imported, each with why (the first 200; the count says all).
        const failures = (finished && finished.failures) || [];
        if (finished && finished.failureCount > failures.length) {
          failures.push(`and ${(finished.failureCount - failures.length).toLocaleString()} more`);
        }
        if (finished && (finished.state === 'failed' || finished.state === 'interrupted')) status.classList.add('failed');
        if (warnings.length || failures.length) {
          const list = document.createElement('ul');
          list.className = 'import-warnings';
          for (const warning of warnings) {
            const line = document.createElement('li');
            line.textContent = warning.message;
            if (warning.line) {
              const detail = document.createElement('small');
              detail.textContent = ` (line ${warning.line}, column ${warning.column})`;
              line.append(detail);
            }
            list.append(line);
          }
          for (const failure of failures) {
            const line = document.createElement('li');
            line.textContent = failure;
            list.append(line);
          }
          item.append(list);
          item.classList.add('warned');
        } else {
          item.classList.add('done');
        }
        dismiss();
        imported += 1;
      } catch (error) {
        progress.remove();
        status.textContent = `not imported: ${error.message}`;
        status.classList.add('failed');
        // A file of waypoints only makes no track; its waypoints can become places.
        if (error.code === 'nothing_to_import' && /only waypoints/.test(error.message)) {
          const asPlaces = document.createElement('button');
          asPlaces.type = 'button';
          asPlaces.className = 'import-as-places';
          asPlaces.textContent = 'Import its waypoints as places';
          asPlaces.addEventListener('click', async () => {
            asPlaces.disabled = true;
            try {
              const answer = await upload(file, () => {}, { waypointsAsPlaces: true });
              status.textContent = answer.message;
              status.classList.remove('failed');
              item.classList.add('done');
              asPlaces.remove();
            } catch (again) {
              status.textContent = `not imported: ${again.message}`;
              asPlaces.disabled = false;
            }
          });
          item.append(asPlaces);
        }
        dismiss();
      }
    }
    if (imported) await this.showList();
  }

  /**
   * Polls an archive import's job (`GET /api/imports/{id}`) and shows it on the file's row: a progress bar of
   * files and "312 of 2,041 files". Resolves with the job once it is no longer running.
   */
  async followImport(job, progress, status) {
    const show = (current) => {
      if (current.filesTotal > 0) {
        progress.max = current.filesTotal;
        progress.value = current.filesDone;
        progress.setAttribute('aria-label', `Importing ${current.fileName}`);
        status.textContent = `${current.filesDone.toLocaleString()} of ${current.filesTotal.toLocaleString()} files`;
      } else {
        progress.removeAttribute('value');  // indeterminate while the archive's list of files is read
        status.textContent = 'reading the archive';
      }
    };
    let current = job;
    let misses = 0;
    show(current);
    while (current.state === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 400));
      try {
        current = await api.importJob(job.id);
        misses = 0;
      } catch (error) {
        // The network may drop for a moment while a big archive imports; the job goes on on the server.
        if (!(error instanceof NetworkError) || ++misses > 150) throw error;
        continue;
      }
      show(current);
    }
    return current;
  }

  async showList() {
    this.cursor = null;
    this.showTotals();
    await this.loadPage(true);
  }

  /** This week, this month, this year: the server's sums of the list's figures, in the rider's zone. */
  async showTotals() {
    let totals;
    try {
      totals = await api.trackTotals(-new Date().getTimezoneOffset());
    } catch {
      $('track-totals').hidden = true;
      return;
    }
    const list = $('totals-list');
    list.replaceChildren();
    for (const [key, label] of [['week', 'This week'], ['month', 'This month'], ['year', 'This year']]) {
      const period = totals[key];
      if (!period) continue;
      const wrapper = document.createElement('div');
      wrapper.dataset.period = key;
      const term = document.createElement('dt');
      term.textContent = label;
      const detail = document.createElement('dd');
      const count = period.trackCount === 1 ? '1 track' : `${period.trackCount} tracks`;
      const parts = [format.elevation(period.ascentMeters) + ' climb', count];
      if (period.movingSeconds > 0) parts.unshift(`${format.duration(period.movingSeconds)} moving`);
      detail.innerHTML = `<strong>${escapeHTML(format.distance(period.distanceMeters))}</strong>
        <span>${parts.map(escapeHTML).join(' · ')}</span>`;
      wrapper.append(term, detail);
      list.append(wrapper);
    }
    $('track-totals').hidden = false;
  }

  /** What the list is asked for: the search text and the kind. */
  searchKey() {
    return `${$('track-query').value.trim()}\n${$('track-kind-filter').value}`;
  }

  async loadPage(first) {
    const message = $('tracks-message');
    const request = ++this.listRequest;
    if (first) this.shownSearch = this.searchKey();
    try {
      const q = $('track-query').value.trim();
      const kind = $('track-kind-filter').value;
      const params = { limit: PAGE_SIZE };
      if (q) params.q = q;
      if (kind) params.kind = kind;
      if (this.cursor && !first) params.cursor = this.cursor;
      const page = await api.tracks(params);
      if (request !== this.listRequest) return;  // a newer search was asked meanwhile
      // A fresh first page replaces rows the user may be acting on: the focus stays on the same track's row.
      const list = $('track-list');
      const focusedId = first && list.contains(document.activeElement)
        ? document.activeElement.closest('li')?.dataset.trackId : null;
      const focusedDelete = focusedId && document.activeElement.classList.contains('delete');
      if (first) list.replaceChildren();
      message.textContent = '';
      for (const track of page.tracks || []) {
        const item = this.row(track);
        list.append(item);
        if (focusedId === track.id && !item.hidden) {
          (focusedDelete ? item.querySelector('button.delete') : item.querySelector('a')).focus();
        }
      }
      this.cursor = page.nextCursor || null;
      $('tracks-more').hidden = !this.cursor;
      if (first && !(page.tracks || []).length) {
        message.textContent = q || kind
          ? `No track matches${q ? ` “${q}”` : ''}${kind ? ` among the ${$('track-kind-filter').selectedOptions[0].textContent.toLowerCase()}` : ''}.`
          : 'No tracks yet. Record a ride, or import a GPX file.';
      }
    } catch (error) {
      if (request !== this.listRequest) return;
      if (first) $('track-list').replaceChildren();
      message.textContent = explain(error);
      $('tracks-more').hidden = true;
      const recent = lastStopped();
      if (first && recent && recent.trackId) {
        message.textContent += ' The ride you just stopped is below.';
        $('track-list').append(this.row({
          id: recent.trackId, name: recent.name, startedAt: recent.startedAt, startTime: recent.startedAt,
          distanceMeters: recent.stats.distanceMeters, ascentMeters: recent.stats.ascentMeters, elapsedSeconds: recent.stats.elapsedSeconds,
          movingSeconds: recent.stats.movingSeconds,
          shape: recent.path.flatMap((path) => path.points),
        }));
      }
    }
  }

  row(track) {
    const item = document.createElement('li');
    item.dataset.trackId = track.id;
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
    content.append(kindIcon(track.kind));
    const timed = Boolean(track.startTime);
    const when = !timed ? 'no time recorded' : track.localStartTime ? format.localDateTime(track.localStartTime) : format.date(track.startTime);
    const parts = [when, format.distance(track.distanceMeters), `${format.elevation(track.ascentMeters)} climb`];
    const simulated = track.source === 'simulation';
    // Moving time, as the totals above add it up, and said so.
    if (timed) parts.push(`${format.duration(track.movingSeconds)} moving`);
    // Runners read pace: minutes per kilometre (or mile) while moving.
    if (timed && track.kind === 'run' && track.movingSeconds > 0) parts.push(format.pace(track.distanceMeters / track.movingSeconds));
    // A simulated ride carries the Record tab's badge wherever it is listed.
    const badge = simulated ? ' <span class="simulated-badge">Simulated</span>' : '';
    link.innerHTML = `<strong>${escapeHTML(track.name || 'Track')}</strong>${badge}<br>
      <span class="track-meta">${parts.map(escapeHTML).join(' · ')}</span>`;
    link.setAttribute('aria-label', `${track.name || 'Track'}, ${KIND_NAMES[track.kind] || 'track'}, ${simulated ? 'simulated, ' : ''}${parts.join(', ')}`);
    item.dataset.kind = track.kind || 'ride';
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
   * Deletes the track on the server at once (a soft delete: the server keeps it restorable, as places are) and
   * offers Undo, which restores it. Nothing waits in the browser: a tab closed right after loses no delete.
   */
  async deleteWithUndo(track, item) {
    // The focus was on the row's Delete button, now hidden: a keyboard user lands on Undo, not at the top.
    const hadFocus = item.contains(document.activeElement);
    item.hidden = true;
    try {
      await api.deleteTrack(track.id);
    } catch (error) {
      item.hidden = false;
      $('tracks-message').textContent = `Could not delete: ${error.message}`;
      return;
    }
    item.remove();
    this.offerUndo({ id: track.id, name: track.name }, hadFocus);
  }

  /** The track page's Delete: the same soft delete, then back to the list with Undo. */
  async deleteShownTrack() {
    const id = this.trackId;
    if (!id) return;
    const name = $('track-heading').textContent;
    try {
      await api.deleteTrack(id);
    } catch (error) {
      $('track-message').textContent = `Could not delete: ${error.message}`;
      return;
    }
    location.hash = '#/tracks';
    this.offerUndo({ id, name }, true);
  }

  /** Shows the Undo bar for a track the server has deleted, for UNDO_MS. */
  offerUndo(restorable, focus) {
    this.restorable = restorable;
    $('undo-text').textContent = `Deleted ${restorable.name || 'track'}.`;
    $('undo-bar').hidden = false;
    clearTimeout(this.restoreTimer);
    this.restoreTimer = setTimeout(() => { this.restorable = null; $('undo-bar').hidden = true; }, UNDO_MS);
    if (focus) $('undo-button').focus();
  }

  undoDelete() {
    if (!this.restorable) return;
    const { id } = this.restorable;
    const undoHadFocus = document.activeElement === $('undo-button');
    this.restorable = null;
    clearTimeout(this.restoreTimer);
    $('undo-bar').hidden = true;
    api.restoreTrack(id).then(async () => {
      await this.showList();
      // Back to the row that came back, if the focus was on Undo.
      if (undoHadFocus) document.querySelector(`#track-list li[data-track-id="${CSS.escape(id)}"] a`)?.focus();
    }).catch((error) => {
      $('tracks-message').textContent = `Could not bring it back: ${error.message}`;
    });
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

  /**
   * A simulated ride kept as a real one (`PATCH {source: "recording"}`): it then counts in the totals, records,
   * overview and heatmap; the page is drawn again for its PR marks.
   */
  async keepAsRealRide() {
    const id = this.trackId;
    try {
      await api.updateTrack(id, { source: 'recording' });
    } catch (error) {
      $('track-message').textContent = `Could not keep it: ${error.message}`;
      return;
    }
    await this.showTrack(id);
    $('track-message').textContent = 'Kept as a real ride: it now counts in your totals, records and heatmap.';
  }

  /** A track's page. Only the latest call draws: a page asked for while an earlier one is still loading (the
   * saved ride's, then the route's) must not be drawn over by the earlier one's late answer. */
  async showTrack(id) {
    const shown = (this.trackShown = (this.trackShown || 0) + 1);
    const stale = () => shown !== this.trackShown;
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
    if (stale()) return;
    this.trackId = id;
    $('track-share-result').hidden = true;
    $('track-share').hidden = !track || !track.createdAt;
    $('track-heading').textContent = track ? track.name : 'Track';
    $('track-when').textContent = !track ? ''
      : track.startTime ? `Started ${track.localStartTime ? format.localDateTime(track.localStartTime, { weekday: true }) : format.date(track.startTime)}${zoneNote(track)}`
        : 'No time recorded';
    $('track-delete').hidden = !track || !track.createdAt;
    $('track-simulated').hidden = !track || track.source !== 'simulation';
    const form = $('track-edit');
    form.elements.name.value = track ? track.name : '';
    form.elements.kind.value = (track && track.kind) || 'ride';
    for (const format of ['gpx', 'gpx436', 'geojson', 'fit']) {
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
    this.renderStats(track ? track.stats : null, Boolean(track && (track.startTime || (track.stats && track.stats.startTime))), track && track.kind);
    this.renderSplits(track && track.splits, Boolean(track && track.startTime));
    this.renderDevice(track);
    this.renderEfforts(track && track.efforts);
    this.showTurns(track ? id : null, stale);
    await mapLibrary;
    if (stale()) return;
    if (this.trackMap) { this.trackMap.remove(); this.trackMap = null; this.cursorMarker = null; }
    mapElement.replaceChildren();
    delete mapElement.dataset.lineZoom;
    // A track without a single position (an indoor ride, a treadmill run): no map to show, and nothing to follow.
    const hasLine = Boolean(track && (track.segments || []).some((segment) => segment.length > 0));
    mapElement.hidden = Boolean(track) && !hasLine;
    $('track-no-line').hidden = !track || hasLine;
    $('simulate-track').hidden = !hasLine;
    $('download-fit').hidden = !hasLine;
    if (track && hasLine) {
      // Null without Leaflet: then the line is drawn alone, once, with nothing to zoom.
      this.trackMap = drawTrackMap(mapElement, this.config, track.segments || []);
      if (this.trackMap && Number.isInteger(track.simplifiedForZoom)) this.detailOnZoom(id, this.trackMap, track.simplifiedForZoom);
    }
    let profile = null;
    try {
      profile = track ? (track.profile || await profileRequest) : null;
    } catch {
      profile = null;
    }
    if (stale()) return;
    this.renderCharts(profile);
  }

  /** The charts the profile has values for; a cursor on one shows its place on the map. */
  renderCharts(profile) {
    const positions = (profile && profile.positions) || [];
    const onCursor = (index) => this.showCursorOnMap(index == null ? null : positions[index]);
    for (const kind of CHARTS) {
      const container = $(`${kind}-profile`);
      const values = profile ? profile[PROFILE_KEYS[kind]] : null;
      const optional = !['elevation', 'speed'].includes(kind);
      if (optional) $(`${kind}-figure`).hidden = !values;
      if (optional && !values) { container.replaceChildren(); continue; }
      renderChart(container, profile ? profile.distanceMeters : [], values || [], kind, {
        onCursor,
        emptyText: kind === 'speed' ? 'No speed: this track has no times.' : kind === 'elevation' ? 'No elevation in this track.' : undefined,
      });
    }
  }

  /** A marker on the track map where the chart's cursor is (removed when it leaves the chart). */
  showCursorOnMap(position) {
    const map = this.trackMap;
    if (!map || !window.L) return;
    if (!position) {
      if (this.cursorMarker) { this.cursorMarker.remove(); this.cursorMarker = null; }
      return;
    }
    if (!this.cursorMarker) {
      this.cursorMarker = L.circleMarker(position, { radius: 8, color: '#fff', weight: 3, fillColor: '#1565c0', fillOpacity: 1, className: 'chart-cursor-marker' }).addTo(map);
    } else {
      this.cursorMarker.setLatLng(position);
    }
    map.getContainer().dataset.cursor = `${position[0]},${position[1]}`;
    if (!map.getBounds().contains(position)) map.panTo(position);
  }

  /** Splits per km or per mile, by the units setting: time, pace (runs, walks) or speed (rides), climb. */
  renderSplits(splits, timed) {
    const section = $('track-splits-section');
    const imperial = format.units() === 'imperial';
    const rows = splits ? (imperial ? splits.mile : splits.kilometer) || [] : [];
    section.hidden = rows.length === 0;
    const body = $('track-splits').tBodies[0];
    body.replaceChildren();
    if (!rows.length) return;
    const length = imperial ? 1609.344 : 1000;
    $('split-unit').textContent = imperial ? 'Mile' : 'km';
    const pace = ['run', 'walk'].includes($('track-kind').value);
    $('split-rate').textContent = pace ? `Pace (/${imperial ? 'mi' : 'km'})` : 'Speed';
    for (const split of rows) {
      const row = document.createElement('tr');
      const label = split.isPartial ? format.distance(split.distanceMeters) : String(split.index + 1);
      const seconds = timed ? split.durationSeconds : null;
      let rate = '–';
      if (seconds > 0) rate = pace ? format.duration(seconds * length / split.distanceMeters) : format.speed(split.distanceMeters / seconds);
      // The climb over the split (it adds up to the track's climb), not the net change of height.
      const climb = split.climbMeters == null ? '–' : format.elevation(split.climbMeters);
      for (const [index, text] of [label, seconds == null ? '–' : format.duration(seconds), rate, climb].entries()) {
        const cell = document.createElement(index === 0 ? 'th' : 'td');
        if (index === 0) cell.scope = 'row';
        cell.textContent = text;
        row.append(cell);
      }
      body.append(row);
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

  /** The track's cue sheet (its turns, in the user's units): open when short, collapsed under "Turns" when long.
   * Drawn only while its page is the latest shown (`stale`, from `showTrack`), and whole, never appended to. */
  async showTurns(id, stale) {
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
    if (stale() || !(sheet.cues || []).length) return;
    const items = sheet.cues.map((cue) => {
      const item = document.createElement('li');
      const arrowGlyph = document.createElement('span');
      arrowGlyph.setAttribute('aria-hidden', 'true');
      arrowGlyph.textContent = `${arrow(cue.direction, cue.severity)} `;
      item.append(arrowGlyph, cue.fromPrevious ? `${cue.text} after ${cue.fromPrevious}` : cue.text);
      return item;
    });
    $('cue-list').replaceChildren(...items);
    const count = sheet.cues.length;
    $('turns-summary').textContent = count === 1 ? '1 turn' : `${count} turns`;
    $('turns-details').open = count <= LONG_CUE_SHEET;
    section.hidden = false;
  }

  /** What the bike computer or watch measured, beside bikeride's figures: one line and its laps. */
  renderDevice(track) {
    const device = track && track.device;
    const line = $('track-device');
    const parts = [];
    if (device) {
      if (device.distanceMeters != null) parts.push(format.distance(device.distanceMeters));
      if (device.timerSeconds != null) parts.push(`${format.duration(device.timerSeconds)} moving`);
      if (device.ascentMeters != null) parts.push(`${format.elevation(device.ascentMeters)} climb`);
      if (device.averageHeartRate != null) parts.push(`${Math.round(device.averageHeartRate)} bpm`);
      if (device.averagePowerWatts != null) parts.push(`${Math.round(device.averagePowerWatts)} W`);
    }
    line.textContent = parts.length ? `Device: ${parts.join(', ')}` : '';
    line.hidden = parts.length === 0;

    const laps = (track && track.laps) || [];
    $('track-laps-section').hidden = laps.length < 2;
    $('laps-heading').textContent = track && track.lapSource === 'recorded'
      ? 'Laps (marked with the Lap button; moving time)' : 'Laps (as the device recorded them)';
    const body = $('track-laps').tBodies[0];
    body.replaceChildren();
    const pace = ['run', 'walk'].includes(track && track.kind);
    $('lap-rate').textContent = pace ? `Pace (/${format.units() === 'imperial' ? 'mi' : 'km'})` : 'Speed';
    const length = format.units() === 'imperial' ? 1609.344 : 1000;
    laps.forEach((lap, index) => {
      const seconds = lap.timerSeconds ?? lap.elapsedSeconds;
      let rate = '–';
      if (seconds > 0 && lap.distanceMeters > 0) {
        rate = pace ? format.duration(seconds * length / lap.distanceMeters) : format.speed(lap.distanceMeters / seconds);
      }
      const cells = [
        String(index + 1),
        lap.distanceMeters != null ? format.distance(lap.distanceMeters) : '–',
        seconds != null ? format.duration(seconds) : '–',
        rate,
        lap.ascentMeters != null ? format.elevation(lap.ascentMeters) : '–',
        lap.averageHeartRate != null ? String(Math.round(lap.averageHeartRate)) : '–',
        lap.averagePowerWatts != null ? String(Math.round(lap.averagePowerWatts)) : '–',
      ];
      const row = document.createElement('tr');
      cells.forEach((text, column) => {
        const cell = document.createElement(column === 0 ? 'th' : 'td');
        if (column === 0) cell.scope = 'row';
        cell.textContent = text;
        row.append(cell);
      });
      body.append(row);
    });
  }

  /** The track's best efforts, those that were records when ridden marked "PR" or "2nd best". */
  renderEfforts(efforts) {
    const section = $('track-efforts-section');
    const list = $('track-efforts');
    list.replaceChildren();
    section.hidden = !efforts || !efforts.length;
    if (!efforts) return;
    // The records first, then the rest.
    const ordered = [...efforts].sort((a, b) => (a.label ? 0 : 1) - (b.label ? 0 : 1));
    for (const effort of ordered) {
      const item = document.createElement('li');
      item.textContent = `${EFFORT_NAMES[effort.key] || effort.key}: ${effortValue(effort)}`;
      const mark = badge(effort.label);
      if (mark) item.append(mark);
      list.append(item);
    }
  }

  renderStats(stats, timed = true, kind = 'ride') {
    const list = $('track-stats');
    list.replaceChildren();
    if (!stats) return;
    // Without times there is no duration or speed to show: "–", not 0:00 and 0 km/h.
    const untimed = 'no time recorded';
    const rows = [
      ['Distance', format.distance(stats.distanceMeters)],
      ['Moving time', timed ? format.duration(stats.movingSeconds) : untimed],
      ['Elapsed time', timed ? format.duration(stats.elapsedSeconds) : untimed],
      ['Average speed', timed ? format.speed(stats.averageSpeedMetersPerSecond) : '–'],
      ['Maximum speed', timed ? format.speed(stats.maxSpeedMetersPerSecond) : '–'],
      ['Climb', format.elevation(stats.ascentMeters)],
      ['Descent', format.elevation(stats.descentMeters)],
    ];
    // Runners read pace: minutes per kilometre (or mile) while moving, beside the speeds.
    if (kind === 'run') rows.splice(3, 0, ['Average pace', timed ? format.pace(stats.averageSpeedMetersPerSecond) : '–']);
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

/** "(time zone: UTC+01:00, from the start's longitude)" when the zone is a guess, nothing when the file said it. */
function zoneNote(track) {
  const local = track.localStartTime || '';
  const offset = local.endsWith('Z') ? '+00:00' : local.slice(-6);
  if (track.timeZoneSource === 'zone') return ` (${track.timeZone || 'local time'}, UTC${offset}, where it started)`;
  if (track.timeZoneSource === 'utc') return ' (UTC)';
  return '';
}

const KIND_NAMES = { ride: 'ride', run: 'run', walk: 'walk', route: 'route' };

/** A small picture of the kind (a bicycle, a runner, a walker, a flag), named for a screen reader. */
function kindIcon(kind) {
  const paths = {
    ride: '<circle cx="6" cy="16" r="4.5"/><circle cx="18" cy="16" r="4.5"/><path d="M6 16l4-8h6l2 8M10 8l4 8M14 5h3"/>',
    run: '<circle cx="14" cy="4" r="2"/><path d="M8 21l3-6 3 2 1 4M11 15l1-6 4 3 3-1M12 9l-4 1-2 3"/>',
    walk: '<circle cx="12" cy="4" r="2"/><path d="M9 21l2-6 3 3v3M11 15l1-6 3 4 2 1M12 9l-3 2-1 3"/>',
    route: '<path d="M6 21V4M6 4h11l-3 4 3 4H6"/>',
  };
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', `kind-icon kind-${kind in paths ? kind : 'ride'}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', KIND_NAMES[kind] || 'ride');
  svg.innerHTML = `<title>${KIND_NAMES[kind] || 'ride'}</title>${paths[kind] || paths.ride}`;
  return svg;
}

const MEDIA_TYPES = { gpx: 'application/gpx+xml', gpx436: 'application/json', geojson: 'application/geo+json', json: 'application/json' };

/** POST /api/tracks with upload progress (fetch cannot report it); rejects with an ApiError-like error. */
function upload(file, onProgress, { waypointsAsPlaces = false } = {}) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    const extension = file.name.split('.').pop().toLowerCase();
    request.open('POST', `/api/tracks?name=${encodeURIComponent(file.name)}${waypointsAsPlaces ? '&waypointsAsPlaces=1' : ''}`);
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
