// The Record tab's view: location permission, the blue dot, following and heading-up, the figures, the buttons,
// the screen lock, and drawing the server's answers. The ride's state machine is ride.js, the outbox sync
// sync.js (RecordView extends Ride extends OutboxSync: one object, a file per concern); route guidance is
// navigation.js with guidance.js, the provisional figures provisional.js.

import * as outbox from './outbox.js';
import * as format from './format.js';
import { api } from './api.js';
import { openRideMap } from './map.js';
import { activity as chosenActivity, autoPauseEnabled, breadcrumbsEnabled, wakeLockEnabled } from './settings.js';
import { SteadyFigures } from './provisional.js';
import { Navigation } from './navigation.js';
import { bearing } from './announce.js';
import { NO_FIX_MESSAGE, Ride, localFix, recordingKey } from './ride.js';

const $ = (id) => document.getElementById(id);
const HIDDEN_WARNING_SECONDS = 5;  // back from the background after longer than this: say positions may have stopped

export class RecordView extends Ride {
  constructor(config) {
    super();
    this.config = config;
    this.radiusMeters = config.cameraRadiusMeters || 300;
    this.map = null;
    this.following = true;
    this.lastPosition = null;
    this.stats = null;
    this.statsReceivedAt = 0;
    this.watchId = null;
    this.lastCamera = null;
    this.headingUp = false;
    this.previousPosition = null;
    this.locationDenied = false;
    this.wakeLock = null;
    this.hiddenAt = null;
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
      position: () => (this.lastPosition ? { latitude: this.lastPosition.coords.latitude, longitude: this.lastPosition.coords.longitude } : null),
      // Where the top of the screen points: north, or the heading when the map turns with the rider.
      screenHeading: () => (this.headingUp && Number.isFinite(this.heading) ? this.heading : 0),
    });
    this.navigation.drawRoute();
    // The route's line and cues, so that guidance goes on offline (before the ride in progress is restored).
    await this.navigation.loadGuide();
    for (const input of document.querySelectorAll('input[name="map-type"]')) {
      input.addEventListener('change', () => {
        if (!input.checked) return;
        this.map.setMapType(input.value);
        this.setLayersOpen(false, true);
      });
    }
    // The map type sits behind a layers button, not in a panel always open over the map.
    $('layers-button').addEventListener('click', () => this.setLayersOpen($('map-type').hidden));
    document.addEventListener('keydown', (event) => { if (event.key === 'Escape' && !$('map-type').hidden) this.setLayersOpen(false, true); });
    document.addEventListener('pointerdown', (event) => {
      if (!$('map-type').hidden && !event.target.closest('#map-type, #layers-button')) this.setLayersOpen(false);
    });
    $('location-allow').addEventListener('click', () => this.startWatching());
    $('start-button').addEventListener('click', () => this.start());
    $('pause-button').addEventListener('click', () => this.command('pause', 'paused'));
    $('lap-button').addEventListener('click', () => this.lap());
    $('resume-button').addEventListener('click', () => this.command('resume', 'recording'));
    $('stop-button').addEventListener('click', () => this.askToFinish());
    $('save-button').addEventListener('click', () => this.save());
    $('discard-button').addEventListener('click', () => this.discard());
    $('finish-resume-button').addEventListener('click', () => this.resumeFromFinish());
    $('finish-sheet').addEventListener('keydown', (event) => { if (event.key === 'Escape') this.resumeFromFinish(); });
    window.addEventListener('online', () => this.flushSoon(0));
    // A screen lock is released when the page is hidden: taken again when it comes back.
    document.addEventListener('visibilitychange', () => this.visibilityChanged());
    setInterval(() => this.tick(), 1000);

    await this.restore();
    await this.askForLocation();
    this.renderButtons();
    this.flushSoon(0);
  }

  shown() { if (this.map) this.map.invalidateSize(); }

  /** Units, breadcrumbs, the screen lock or the activity changed in Settings. */
  settingsChanged() {
    if (this.map) this.map.setBreadcrumbsVisible(breadcrumbsEnabled());
    if (this.running()) {
      if (wakeLockEnabled()) this.holdScreen(); else this.releaseScreen();
    }
    this.renderButtons();
    this.renderStats();
  }

  setLayersOpen(open, focusButton = false) {
    $('map-type').hidden = !open;
    $('layers-button').setAttribute('aria-expanded', String(open));
    if (open) ($('map-type').querySelector('input:checked') || $('map-type').querySelector('input')).focus();
    else if (focusButton) $('layers-button').focus();
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
    this.simulating = true;
    this.showSimulated(true);
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

  /** The Simulated badge: while the positions are replayed, and for as long as a simulated ride is in progress. */
  showSimulated(simulated) {
    $('simulated-badge').hidden = !(simulated || this.simulating);
  }

  onPositionError(error) {
    if (error.code === error.PERMISSION_DENIED) {
      navigator.geolocation.clearWatch(this.watchId);
      this.watchId = null;
      this.locationDenied = true;
      // A ride started before the answer, with no position at all: nothing to keep, and nothing will come.
      if (this.running() && this.live.pointCount === 0) {
        this.discard('Location access is blocked, so this ride had no position and was discarded rather than saved as an empty track. Allow location for this site in your browser’s settings, then reload and press Start.');
      }
      this.showDenied();
    } else if (error.code === error.POSITION_UNAVAILABLE) {
      this.showLocationMessage('Your position is unavailable right now (no GPS signal?). bikeride keeps trying.');
    }
    // TIMEOUT: the watch goes on; nothing to tell.
  }

  showDenied(atStart = false) {
    this.locationDenied = true;
    this.showLocationMessage(atStart
      ? 'Location access is blocked, so a ride cannot be recorded: it would have no positions. Allow location for this site in your browser’s settings (the icon beside the address), then reload and press Start.'
      : 'Location access is blocked, so bikeride cannot show or record where you are. Allow location for this site in your browser’s settings, then reload.');
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
    this.locationDenied = false;
    this.trackHeading(position);
    this.lastPosition = position;
    this.map.showPosition(c.latitude, c.longitude, c.accuracy);
    const recording = this.recording;
    if (recording && this.running()) {
      const local = localFix(position);
      // Auto-pause (a setting per activity): still for a while → Pause; moving again after it → Resume.
      if (autoPauseEnabled(recording.activity || 'ride') && !this.finishing) {
        const decision = this.autoPause.observe(local, recording.state === 'paused' && recording.autoPaused === true);
        if (decision === 'pause' && recording.state === 'recording') await this.command('pause', 'paused', { auto: true });
        else if (decision === 'resume' && recording.state === 'paused' && recording.autoPaused) await this.command('resume', 'recording');
      }
      if (recording.state === 'recording') await this.queueFix(position, local);
    }
    this.moveCamera();
  }

  /**
   * Following: the server's camera region when it answers; while it does not (offline), the same 300 m region
   * around the latest fix, so that the rider stays in view.
   */
  moveCamera() {
    if (!this.following || !this.lastPosition) return;
    const c = this.lastPosition.coords;
    const serverBehind = this.offline || this.live.pendingCount > 3;
    if (this.headingUp) this.map.centreOn(c.latitude, c.longitude);
    else if (!(this.recording && this.recording.state === 'recording' && this.lastCamera && !serverBehind)) {
      this.map.showAround(c.latitude, c.longitude, this.radiusMeters);
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
    if (this.recording && this.recording.state !== 'recording') return null;
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

  // MARK: the screen stays on

  /** Screen Wake Lock while a ride runs (a setting); says so when the screen may lock and positions stop. */
  async holdScreen() {
    if (!wakeLockEnabled()) {
      this.releaseScreen();
      return this.warn('Screen kept on: off (Settings). A locked screen or another tab in front may stop positions.');
    }
    if (!('wakeLock' in navigator)) {
      return this.warn('This browser cannot keep the screen on: a locked screen or another tab in front may stop positions.');
    }
    if (this.wakeLock || document.visibilityState !== 'visible') return;
    try {
      const lock = await navigator.wakeLock.request('screen');
      if (!this.running()) { lock.release().catch(() => undefined); return; }
      this.wakeLock = lock;
      lock.addEventListener('release', () => { if (this.wakeLock === lock) this.wakeLock = null; });
      this.warn('');
    } catch (error) {
      console.warn('no screen wake lock', error);
      this.warn('The screen could not be kept on: a locked screen or another tab in front may stop positions.');
    }
  }

  releaseScreen() {
    const lock = this.wakeLock;
    this.wakeLock = null;
    if (lock) lock.release().catch(() => undefined);
    if (!this.running()) this.warn('');
  }

  visibilityChanged() {
    if (document.visibilityState === 'hidden') {
      this.hiddenAt = Date.now();
      return;
    }
    const away = this.hiddenAt ? (Date.now() - this.hiddenAt) / 1000 : 0;
    this.hiddenAt = null;
    if (!this.running()) return;
    this.wakeLock = null;  // released by the browser while hidden
    this.holdScreen().then(() => {
      if (away > HIDDEN_WARNING_SECONDS) {
        this.warn(`bikeride was in the background for ${format.duration(away)}: positions may have stopped meanwhile (the line shows a gap).`);
      }
    });
    this.flushSoon(0);
  }

  warn(text) {
    $('record-warning').textContent = text;
    $('record-warning').hidden = !text;
  }

  /** A whole recording: the server's answer, or (`fromServer` false) the view kept on the device. */
  applyRecording(answer, fromServer = true) {
    this.view = { id: recordingKey(answer), path: (answer.path || []).map((path) => ({ segment: path.segment, points: [...path.points] })),
      breadcrumbs: [...(answer.breadcrumbs || [])], stats: answer.stats };
    this.saveView();
    this.map.clearRide();
    this.map.extendPath(answer.path || []);
    this.map.addBreadcrumbs(answer.breadcrumbs || []);
    if (answer.lastSequence !== undefined) this.live.answered(answer.stats, answer.lastSequence);
    // Fixes still queued on the device stay drawn (dashed) after the server's line.
    for (const fix of this.live.pending) {
      if (!fix.joined) this.map.breakPending();
      this.map.addPending(fix.latitude, fix.longitude);
    }
    if (this.live.joinNext === false) this.map.breakPending();
    this.showStats(answer.stats);
    if (fromServer) this.navigation.answeredRecording(answer, answer.lastSequence ?? null);
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
    this.live.answered(answer.stats, answer.recording.lastSequence);
    this.showStats(answer.stats);
    this.navigation.update(answer.navigation, answer.recording.lastSequence);
    if (answer.camera) {
      this.lastCamera = answer.camera;
      if (this.following && !this.headingUp && this.live.pendingCount <= 3) this.map.showBounds(answer.camera.bounds);
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

  // MARK: view

  showStats(stats) {
    if (!stats) return;
    this.stats = stats;
    this.statsReceivedAt = Date.now();
    this.live.answered(stats, null);
    this.renderStats();
  }

  tick() {
    if (this.running()) this.renderStats();
  }

  /** The figures: the server's, and beyond them the provisional ones (marked ≈) for fixes it has not answered. */
  renderStats() {
    const state = this.recording ? this.recording.state : 'idle';
    // Never backwards (SteadyFigures), per ride: a new Provisional is a new ride (or the same one reopened).
    if (this.steadyFor !== this.live) {
      this.steady = new SteadyFigures();
      this.steadyFor = this.live;
    }
    const figures = this.recording ? this.steady.show(this.live.figures(Date.now(), state)) : null;
    const provisional = Boolean(figures && figures.provisional);
    const paused = state === 'paused';
    setFigure('stat-distance', figures ? format.distance(figures.distanceMeters) : '–', provisional);
    setFigure('stat-climb', figures ? format.elevation(figures.ascentMeters) : '–', provisional);
    // A run shows its pace (min/km or min/mi) where a ride shows its speed.
    const running = (this.recording ? this.recording.activity : chosenActivity()) === 'run';
    $('stat-speed-label').textContent = running ? 'Pace' : 'Speed';
    const rate = (metersPerSecond) => (running ? format.pace(metersPerSecond) : format.speed(metersPerSecond));
    setFigure('stat-speed', paused ? '—' : (figures ? rate(figures.speedMetersPerSecond) : '–'), provisional && !paused);
    setFigure('stat-time', figures ? format.duration(figures.elapsedSeconds) : '–', false);
    setFigure('stat-moving', figures ? format.duration(figures.movingSeconds) : '–', provisional);
    $('stat-distance').dataset.meters = figures ? String(figures.distanceMeters) : '';
    $('provisional-note').hidden = !provisional;
  }

  renderButtons() {
    const state = this.recording ? this.recording.state : 'idle';
    const finishing = this.finishing && state === 'paused';
    $('start-button').hidden = state !== 'idle';
    $('start-button').textContent = `Start ${chosenActivity()}`;
    $('pause-button').hidden = state !== 'recording';
    $('lap-button').hidden = state !== 'recording';
    $('resume-button').hidden = state !== 'paused' || finishing;
    $('stop-button').hidden = !(state === 'recording' || state === 'paused') || finishing;
    $('finish-sheet').hidden = !finishing;
    if (finishing) {
      const empty = this.live.pointCount === 0;
      $('save-button').hidden = empty;
      $('finish-message').textContent = empty ? NO_FIX_MESSAGE : 'Save it to your tracks, discard it, or go on riding.';
    }
    const label = { idle: 'Ready', recording: 'Recording', paused: this.recording && this.recording.autoPaused ? 'Paused: not moving' : 'Paused', stopping: 'Saving…' }[state] || state;
    $('record-state').textContent = label;
    document.querySelector('.record-panel').dataset.state = state;
    document.body.dataset.recordingState = state;
    // The other tabs carry a badge while a ride runs; a screen reader hears it with the tab's name.
    for (const link of document.querySelectorAll('.tabs a:not([data-tab="record"])')) {
      if (state === 'recording' || state === 'paused') link.setAttribute('aria-describedby', 'recording-badge-text');
      else link.removeAttribute('aria-describedby');
    }
    if (state === 'stopping') this.setStatus('Saving the ride…');
  }

  setStatus(text) {
    $('sync-status').textContent = text;
  }
}

/** Shows `text` ("12.3 km/h") as a large value and a smaller unit; `provisional` marks it (≈, italic). */
function setFigure(id, text, provisional) {
  const element = $(id);
  const space = text.indexOf(' ');
  const value = document.createElement('span');
  value.className = 'figure-value';
  value.textContent = space > 0 ? text.slice(0, space) : text;
  if (space > 0) {
    const unit = document.createElement('span');
    unit.className = 'figure-unit';
    unit.textContent = text.slice(space + 1);
    element.replaceChildren(value, ' ', unit);
  } else {
    element.replaceChildren(value);
  }
  element.dataset.provisional = String(provisional);
}

/** Metres between two `[latitude, longitude]` (equirectangular: plenty for a few metres' step). */
function metersBetween(a, b) {
  const rad = Math.PI / 180;
  const x = (b[1] - a[1]) * rad * Math.cos(((a[0] + b[0]) / 2) * rad), y = (b[0] - a[0]) * rad;
  return Math.hypot(x, y) * 6_371_000;
}

