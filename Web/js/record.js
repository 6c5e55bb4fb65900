// The Record tab: location permission, the blue dot, following, Start/Pause/Resume/Stop, and the fix queue.
//
// Positions from the browser go into the device's outbox (IndexedDB) with sequence numbers, and the outbox is
// sent to the server in order, in batches; the server answers each batch with what to draw (the line, the
// breadcrumbs, the camera region, the figures). Offline the ride goes on and the outbox waits.

import { api, ApiError, NetworkError } from './api.js';
import * as outbox from './outbox.js';
import * as format from './format.js';
import { openRideMap } from './map.js';
import { breadcrumbsEnabled } from './settings.js';
import { Navigation } from './navigation.js';
import { bearing } from './announce.js';

const BATCH_LIMIT = 500;           // fixes per request: a few minutes of riding after a gap, well under the server's limit
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30000;

const $ = (id) => document.getElementById(id);

export class RecordView {
  constructor(config) {
    this.config = config;
    this.radiusMeters = config.cameraRadiusMeters || 300;
    this.map = null;
    this.following = true;
    this.recording = null;        // {id, state, nextSequence, startedAt} as kept in the outbox's meta
    this.lastPosition = null;
    this.stats = null;
    this.statsReceivedAt = 0;
    this.flushing = false;
    this.retryDelay = RETRY_MIN_MS;
    this.retryTimer = null;
    this.watchId = null;
    this.lastCamera = null;
    this.isolating = 0;          // fixes still to send one by one after a refused batch
    this.headingUp = false;
    this.previousPosition = null;
  }

  async mount() {
    // Leaflet's map, or without Leaflet the line alone: the rest of the tab works the same either way.
    this.map = await openRideMap($('record-map'), this.config);
    this.map.obstruction = document.querySelector('.record-panel');
    this.map.setBreadcrumbsVisible(breadcrumbsEnabled());
    this.map.onUserMove(() => this.setFollowing(false));
    $('follow-button').addEventListener('click', () => this.setFollowing(!this.following));
    $('compass-button').addEventListener('click', () => this.setHeadingUp(!this.headingUp));
    // Heading-up's enlarged map is sized from the view: a turned phone needs it sized again.
    window.addEventListener('resize', () => { if (this.headingUp) this.map.setHeadingUp(true); });
    this.navigation = new Navigation({
      map: this.map,
      recordingId: () => (this.recording ? this.recording.id : null),
      speed: () => this.currentSpeed(),
      setStatus: (text) => this.setStatus(text),
    });
    this.navigation.drawRoute();
    for (const input of document.querySelectorAll('input[name="map-type"]')) {
      input.addEventListener('change', () => { if (input.checked) this.map.setMapType(input.value); });
    }
    $('location-allow').addEventListener('click', () => this.startWatching());
    $('start-button').addEventListener('click', () => this.start());
    $('pause-button').addEventListener('click', () => this.command('pause', 'paused'));
    $('resume-button').addEventListener('click', () => this.command('resume', 'recording'));
    $('stop-button').addEventListener('click', () => this.command('stop', 'stopping'));
    window.addEventListener('online', () => this.flushSoon(0));
    setInterval(() => this.tick(), 1000);

    await this.restore();
    await this.askForLocation();
    this.renderButtons();
    this.flushSoon(0);
  }

  shown() { if (this.map) this.map.invalidateSize(); }

  /** Units or breadcrumbs changed in Settings. */
  settingsChanged() {
    if (this.map) this.map.setBreadcrumbsVisible(breadcrumbsEnabled());
    this.renderStats();
  }

  // MARK: location

  async askForLocation() {
    const simulate = /[?&]simulate=(\d+(?:\.\d+)?)/.exec(location.hash);
    const track = /[?&]track=([^&]+)/.exec(location.hash);
    if (simulate) return this.simulate(Number(simulate[1]), track ? decodeURIComponent(track[1]) : null);
    if (!('geolocation' in navigator)) {
      return this.showLocationMessage(window.isSecureContext
        ? 'This browser cannot tell your location.'
        : 'Your location is only available over a secure connection: open bikeride with https:// (see the README).');
    }
    let state = 'prompt';
    try {
      state = (await navigator.permissions.query({ name: 'geolocation' })).state;
    } catch { /* no Permissions API: ask directly */ }
    if (state === 'granted') return this.startWatching();
    if (state === 'denied') return this.showDenied();
    $('location-prompt').hidden = false;
  }

  startWatching() {
    $('location-prompt').hidden = true;
    if (this.watchId !== null) return;
    this.watchId = navigator.geolocation.watchPosition(
      (position) => this.onPosition(position),
      (error) => this.onPositionError(error),
      { enableHighAccuracy: true, maximumAge: 0, timeout: 30000 },
    );
  }

  /**
   * Demo mode (`#/record?simulate=18`, or `&track=ID` along a saved track): the server's simulated ride
   * (around Cupertino, or along that track) at that speed in km/h
   * takes the place of the GPS, one fix a second, through the same path as real positions.
   */
  async simulate(speedKmh, trackId = null) {
    let simulation;
    try {
      simulation = await api.simulation(speedKmh, trackId);
    } catch (error) {
      return this.showLocationMessage(`Cannot simulate this ride: ${error.message}`);
    }
    this.setStatus(`Simulated ride: ${simulation.name}`);
    const started = Date.now();
    let index = 0;
    const next = () => {
      const fix = simulation.fixes[index % simulation.fixes.length];
      index += 1;
      const coords = {
        latitude: fix.latitude, longitude: fix.longitude, accuracy: fix.accuracy, altitude: fix.altitude,
        altitudeAccuracy: null, speed: fix.speed, heading: fix.heading,
      };
      this.onPosition({ coords, timestamp: started + index * 1000 });
    };
    next();
    setInterval(next, 1000);
  }

  onPositionError(error) {
    if (error.code === error.PERMISSION_DENIED) {
      navigator.geolocation.clearWatch(this.watchId);
      this.watchId = null;
      this.showDenied();
    } else if (error.code === error.POSITION_UNAVAILABLE) {
      this.showLocationMessage('Your position is unavailable right now (no GPS signal?). bikeride keeps trying.');
    }
    // TIMEOUT: the watch goes on; nothing to tell.
  }

  showDenied() {
    this.showLocationMessage('Location access is blocked, so bikeride cannot show or record where you are. Allow location for this site in your browser’s settings, then reload.');
  }

  showLocationMessage(text) {
    $('location-prompt').hidden = true;
    const message = $('location-message');
    message.textContent = text;
    message.hidden = false;
  }

  async onPosition(position) {
    const c = position.coords;
    $('location-message').hidden = true;
    this.trackHeading(position);
    this.lastPosition = position;
    this.map.showPosition(c.latitude, c.longitude, c.accuracy);
    if (this.following && this.headingUp) {
      this.map.centreOn(c.latitude, c.longitude);
    } else if (this.following && !(this.recording && this.recording.state === 'recording' && this.lastCamera)) {
      this.map.showAround(c.latitude, c.longitude, this.radiusMeters);
    }
    if (this.recording && this.recording.state === 'recording') {
      if ((await outbox.enqueueFix(fixFrom(position))) !== null) this.map.addPending(c.latitude, c.longitude);
      this.flushSoon(0);
    }
  }

  // MARK: follow mode, heading

  /**
   * The direction of travel: the fix's own course when it has one and the rider moves, else the bearing from
   * the last position at least 5 m away (closer ones turn with the GPS's noise).
   */
  trackHeading(position) {
    const c = position.coords;
    let heading = null;
    if (Number.isFinite(c.heading) && Number.isFinite(c.speed) && c.speed > 1) heading = c.heading;
    else if (this.previousPosition) {
      const from = [this.previousPosition.latitude, this.previousPosition.longitude], to = [c.latitude, c.longitude];
      if (metersBetween(from, to) >= 5) heading = bearing(from, to);
    }
    if (!this.previousPosition || heading !== null) this.previousPosition = { latitude: c.latitude, longitude: c.longitude };
    if (heading !== null) {
      this.heading = heading;
      this.map.setHeading(heading);
    }
  }

  setHeadingUp(on) {
    this.headingUp = on;
    $('compass-button').setAttribute('aria-pressed', String(on));
    $('compass-button').title = on ? 'Heading up (tap for north up)' : 'North up (tap for heading up)';
    this.map.setHeadingUp(on);
    if (this.following) this.setFollowing(true);
  }

  /** The rider's speed in m/s: the last fix's, else the server's current speed; null when unknown. */
  currentSpeed() {
    const speed = this.lastPosition ? this.lastPosition.coords.speed : null;
    if (Number.isFinite(speed)) return speed;
    return this.stats ? this.stats.currentSpeedMetersPerSecond ?? null : null;
  }

  setFollowing(on) {
    this.following = on;
    $('follow-button').setAttribute('aria-pressed', String(on));
    $('record-map').dataset.following = String(on);
    if (on) {
      if (this.headingUp && this.lastPosition) this.map.centreOn(this.lastPosition.coords.latitude, this.lastPosition.coords.longitude);
      else if (this.lastCamera && this.recording) this.map.showBounds(this.lastCamera.bounds);
      else if (this.lastPosition) {
        const c = this.lastPosition.coords;
        this.map.showAround(c.latitude, c.longitude, this.radiusMeters);
      }
    }
  }

  // MARK: recording

  async restore() {
    const saved = await outbox.current();
    if (!saved) return;
    this.recording = saved;
    if (await outbox.startQueued(saved.id)) {
      // Started offline and not sent yet: the server does not know it; the outbox sends the Start first.
      const view = await outbox.loadView();
      if (view && view.id === saved.id) this.applyRecording(view);
      return;
    }
    try {
      const answer = await api.recording(saved.id);
      this.applyRecording(answer);
      if (answer.state === 'stopped') {
        // Stopped already (the answer to Stop came before a reload, or another tab stopped it).
        await outbox.dropRecording(saved.id);
        await this.finish(answer);
      }
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return this.forget('The server no longer knows the ride in progress (was it restarted?); it was not saved.');
      this.setStatus('Offline: the ride goes on and is sent when the server is reachable.');
      // Redraw what the server last answered, kept on the device.
      const view = await outbox.loadView();
      if (view && view.id === saved.id) this.applyRecording(view);
    }
  }

  /**
   * Start needs no network: the device names the ride (a UUID) and queues its Start ahead of the fixes; the
   * server creates the recording under that name when the Start reaches it, and takes it only once.
   */
  async start() {
    // A second tap while the first is being queued must not start a second ride.
    if (this.recording) return;
    const id = newRecordingId();
    const startedAt = new Date().toISOString();
    this.recording = { id, state: 'recording', nextSequence: 1, startedAt };
    // The route goes with the Start, in the outbox: chosen before Start, it works offline too.
    await outbox.begin(this.recording, { units: format.units(), breadcrumbs: breadcrumbsEnabled(), startedAt, ...this.navigation.startOptions() });
    this.map.clearRide();
    this.lastCamera = null;
    this.view = { id, path: [], breadcrumbs: [], stats: null };
    this.renderButtons();
    if (this.lastPosition) {
      const c = this.lastPosition.coords;
      if ((await outbox.enqueueFix(fixFrom(this.lastPosition))) !== null) this.map.addPending(c.latitude, c.longitude);
    }
    this.flushSoon(0);
  }

  async command(command, state) {
    if (!this.recording) return;
    await outbox.enqueueCommand(command, state);
    this.recording.state = state;
    this.renderButtons();
    this.flushSoon(0);
  }

  /** Sends the outbox, oldest first, until it is empty or the server cannot be reached. */
  async flush() {
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (;;) {
        const entries = await outbox.peek(BATCH_LIMIT);
        if (!entries.length) break;
        const first = entries[0];
        if (first.kind === 'start') {
          const startAs = async () => {
            try {
              return await api.startRecordingAs(first.recordingId, first.body);
            } catch (error) {
              // A start refused for its time must not lose the ride (dropping it would drop every fix behind it):
              // start it as of now instead.
              if (error instanceof ApiError && error.status === 400 && first.body && first.body.startedAt) {
                const { startedAt, ...rest } = first.body;
                return api.startRecordingAs(first.recordingId, rest);
              }
              // Nor a route that is gone (404) or has no length (422): the ride starts without it.
              if (error instanceof ApiError && (error.status === 404 || error.status === 422) && first.body && first.body.routeTrackId) {
                const { routeTrackId, ...rest } = first.body;
                this.setStatus(`The route could not be followed (${error.message}); recording without it.`);
                return api.startRecordingAs(first.recordingId, rest);
              }
              throw error;
            }
          };
          await this.send(first, startAs, async (answer) => {
            await outbox.remove([first.key]);
            if (!(this.recording && this.recording.id === first.recordingId)) return;
            // A new recording has nothing to draw yet: keep the pending line of the fixes queued behind it.
            if ((answer.path || []).some((path) => path.points.length)) this.applyRecording(answer);
            else {
              this.view = { id: first.recordingId, path: [], breadcrumbs: [], stats: answer.stats };
              this.showStats(answer.stats);
              this.navigation.update(answer.navigation);
            }
          });
        } else if (first.kind === 'command') {
          await this.send(first, () => api.command(first.recordingId, first.command), async (answer) => {
            await outbox.remove([first.key]);
            this.applyRecording(answer);
            if (first.command === 'stop') await this.finish(answer);
          });
        } else {
          // After a refused batch its fixes go one by one, so that only the bad one is dropped.
          const limit = this.isolating > 0 ? 1 : BATCH_LIMIT;
          const batch = [];
          for (const entry of entries) {
            if (batch.length >= limit || entry.kind !== 'fix' || entry.recordingId !== first.recordingId) break;
            batch.push(entry);
          }
          try {
            await this.send(first, () => api.sendFixes(first.recordingId, batch.map((entry) => entry.fix)), async (answer) => {
              const acknowledged = answer.recording.lastSequence;
              await outbox.remove(batch.filter((entry) => acknowledged !== null && entry.fix.sequence <= acknowledged).map((entry) => entry.key));
              if (this.recording && this.recording.id === first.recordingId) this.applyUpdate(answer);
            }, batch.length);
          } finally {
            if (this.isolating > 0 && batch.length === 1) this.isolating -= 1;
          }
        }
      }
      this.retryDelay = RETRY_MIN_MS;
      this.setStatus('');
    } catch (error) {
      if (error instanceof NetworkError || (error instanceof ApiError && error.status >= 500)) {
        const waiting = await outbox.size();
        this.setStatus(`Offline: ${waiting} ${waiting === 1 ? 'update' : 'updates'} waiting to be sent.`);
        this.flushSoon(this.retryDelay);
        this.retryDelay = Math.min(RETRY_MAX_MS, this.retryDelay * 2);
      } else {
        console.error(error);
      }
    } finally {
      this.flushing = false;
    }
    // Fixes that arrived while the last request was out.
    if ((await outbox.size()) > 0 && !this.retryTimer) this.flushSoon(0);
  }

  /**
   * One request; an answer the server will never accept is dropped so that it cannot block the queue. A
   * refused batch of several fixes (`batchSize` > 1) is not dropped: its fixes are sent again one by one.
   */
  async send(entry, request, onSuccess, batchSize = 1) {
    try {
      await onSuccess(await request());
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      if (batchSize > 1 && error.status === 400) {
        this.isolating = batchSize;
        return;
      }
      if (error.status === 404) {
        await outbox.dropRecording(entry.recordingId);
        if (this.recording && this.recording.id === entry.recordingId) {
          await this.forget('The server no longer knows this ride (was it restarted?); it could not be saved.');
        }
      } else {
        // 400 (a fix the server refuses), 409 (a command that no longer applies): drop it, keep the rest.
        console.warn('dropped an update the server refused', error.code, error.message);
        await outbox.remove([entry.key]);
      }
    }
  }

  flushSoon(delay) {
    if (this.retryTimer) {
      if (delay > 0) return;
      clearTimeout(this.retryTimer);
    }
    this.retryTimer = setTimeout(() => { this.retryTimer = null; this.flush(); }, delay);
  }

  applyRecording(answer) {
    this.view = { id: recordingKey(answer), path: (answer.path || []).map((path) => ({ segment: path.segment, points: [...path.points] })),
      breadcrumbs: [...(answer.breadcrumbs || [])], stats: answer.stats };
    this.saveView();
    this.map.clearRide();
    this.map.extendPath(answer.path || []);
    this.map.addBreadcrumbs(answer.breadcrumbs || []);
    this.showStats(answer.stats);
    this.navigation.update(answer.navigation);
    this.renderButtons();
  }

  applyUpdate(answer) {
    if (this.view && this.view.id === recordingKey(answer.recording)) {
      for (const path of answer.path) {
        const segment = this.view.path.find((known) => known.segment === path.segment);
        if (segment) segment.points.push(...path.points);
        else this.view.path.push({ segment: path.segment, points: path.from ? [path.from, ...path.points] : [...path.points] });
      }
      this.view.breadcrumbs.push(...answer.breadcrumbs);
      this.view.stats = answer.stats;
      this.saveView();
    }
    this.map.extendPath(answer.path);
    this.map.addBreadcrumbs(answer.breadcrumbs);
    this.map.acknowledgePending(answer.path.reduce((count, path) => count + path.points.length, 0) + answer.skipped + answer.duplicates);
    this.showStats(answer.stats);
    this.navigation.update(answer.navigation);
    if (answer.camera) {
      this.lastCamera = answer.camera;
      if (this.following && !this.headingUp) this.map.showBounds(answer.camera.bounds);
    }
    $('record-map').dataset.pathPoints = String(this.map.pathPointCount());
  }

  /** Keeps the drawn ride on the device (at most once a second), for a reload without network. */
  saveView() {
    if (this.viewTimer) return;
    this.viewTimer = setTimeout(() => {
      this.viewTimer = null;
      outbox.saveView(this.recording ? this.view : null).catch(() => undefined);
    }, 1000);
  }

  async finish(answer) {
    sessionStorage.setItem('bikeride.lastStopped', JSON.stringify(answer));
    this.recording = null;
    this.lastCamera = null;
    this.view = null;
    this.navigation.update(null);
    await outbox.setCurrent(null);
    await outbox.saveView(null);
    this.renderButtons();
    if (answer.trackId) location.hash = `#/tracks/${encodeURIComponent(answer.trackId)}`;
  }

  async forget(message) {
    this.recording = null;
    await outbox.setCurrent(null);
    this.renderButtons();
    this.setStatus(message);
  }

  // MARK: view

  showStats(stats) {
    if (!stats) return;
    this.stats = stats;
    this.statsReceivedAt = Date.now();
    this.renderStats();
  }

  tick() {
    if (this.recording && this.recording.state === 'recording') this.renderStats();
  }

  renderStats() {
    const stats = this.stats;
    if (!stats) return;
    let elapsed = stats.elapsedSeconds;
    // Between answers the clock runs on, from the last fix's time (the server's figures are per fix).
    if (this.recording && this.recording.state === 'recording' && stats.lastFixTime) {
      elapsed += Math.max(0, (Date.now() - Date.parse(stats.lastFixTime)) / 1000);
    }
    $('stat-distance').textContent = format.distance(stats.distanceMeters);
    $('stat-time').textContent = format.duration(elapsed);
    $('stat-speed').textContent = format.speed(stats.currentSpeedMetersPerSecond ?? stats.averageSpeedMetersPerSecond);
    $('stat-climb').textContent = format.elevation(stats.ascentMeters);
    $('stat-distance').dataset.meters = String(stats.distanceMeters);
  }

  renderButtons() {
    const state = this.recording ? this.recording.state : 'idle';
    $('start-button').hidden = state !== 'idle';
    $('pause-button').hidden = state !== 'recording';
    $('resume-button').hidden = state !== 'paused';
    $('stop-button').hidden = !(state === 'recording' || state === 'paused');
    document.body.dataset.recordingState = state;
    if (state === 'stopping') this.setStatus('Saving the ride…');
  }

  setStatus(text) {
    $('sync-status').textContent = text;
  }
}

/** The name the device knows a recording by: its own id when it started it, else the server's. */
function recordingKey(recording) {
  return recording.clientId || recording.id;
}

/** Metres between two `[latitude, longitude]` (equirectangular: plenty for a few metres' step). */
function metersBetween(a, b) {
  const rad = Math.PI / 180;
  const x = (b[1] - a[1]) * rad * Math.cos(((a[0] + b[0]) / 2) * rad), y = (b[0] - a[0]) * rad;
  return Math.hypot(x, y) * 6_371_000;
}

/** A new UUID (version 4) naming a ride started on this device. */
function newRecordingId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A browser position as the API's fix (sequence numbers are given by the outbox). */
function fixFrom(position) {
  const c = position.coords;
  const finite = (value) => (value === null || value === undefined || !Number.isFinite(value) ? undefined : value);
  return {
    latitude: c.latitude,
    longitude: c.longitude,
    altitude: finite(c.altitude),
    accuracy: finite(c.accuracy),
    altitudeAccuracy: finite(c.altitudeAccuracy),
    speed: finite(c.speed),
    heading: finite(c.heading),
    time: new Date(position.timestamp).toISOString(),
  };
}
