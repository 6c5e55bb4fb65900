// The Record tab: location permission, the blue dot, following, Start/Pause/Resume/Stop, and the fix queue.
//
// Positions from the browser go into the device's outbox (IndexedDB) with sequence numbers, and the outbox is
// sent to the server in order, in batches; the server answers each batch with what to draw (the line, the
// breadcrumbs, the camera region, the figures). Offline the ride goes on and the outbox waits.

import { api, ApiError, NetworkError } from './api.js';
import * as outbox from './outbox.js';
import * as format from './format.js';
import { openRideMap } from './map.js';
import { activity as chosenActivity, autoPauseEnabled, breadcrumbsEnabled, wakeLockEnabled } from './settings.js';
import { AutoPause, GAP_SECONDS, Provisional, SteadyFigures, isGap } from './provisional.js';
import { Navigation } from './navigation.js';
import { bearing } from './announce.js';

const BATCH_LIMIT = 500;           // fixes per request: a few minutes of riding after a gap, well under the server's limit
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30000;

const $ = (id) => document.getElementById(id);
const NO_FIX_MESSAGE = 'No position was recorded (location blocked, or no GPS signal yet), so there is nothing to save.';
const OFFLINE_SAVE_MESSAGE = 'Stopped. The ride will be saved when you are back online; you can start a new one.';
const HIDDEN_WARNING_SECONDS = 5;  // back from the background after longer than this: say positions may have stopped

/** Seconds without a fix after which the line breaks (a setting for tests: `bikeride.gapSeconds`). */
function gapSeconds() {
  const value = Number(localStorage.getItem('bikeride.gapSeconds'));
  return value > 0 ? value : GAP_SECONDS;
}

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
    this.live = new Provisional();     // the server's figures plus the fixes it has not answered (provisional.js)
    this.autoPause = new AutoPause();
    this.lastFixTime = null;           // time of the last fix queued, for the gap rule
    this.finishing = false;            // the Save / Discard / Resume step is open
    this.offline = false;              // the last attempt to reach the server failed
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
    });
    this.navigation.drawRoute();
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

  /** A ride is recorded or paused (not idle, not being saved). */
  running() {
    return Boolean(this.recording && (this.recording.state === 'recording' || this.recording.state === 'paused'));
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

  /** Queues a fix; after a gap without fixes, a break first, so that the line does not cross the gap. */
  async queueFix(position, local = localFix(position)) {
    if (isGap(this.lastFixTime, local.time, gapSeconds()) && (await outbox.enqueueBreak())) {
      this.live.breakLine();
      this.map.breakPending();
    }
    const sequence = await outbox.enqueueFix(fixFrom(position));
    if (sequence === null) return;
    this.lastFixTime = local.time;
    this.live.add({ ...local, sequence });
    this.map.addPending(local.latitude, local.longitude);
    this.renderStats();
    this.flushSoon(0);
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

  // MARK: recording

  async restore() {
    const saved = await outbox.current();
    if (!saved) return;
    this.recording = saved;
    this.live = new Provisional({ activity: saved.activity || 'ride' });
    this.autoPause = new AutoPause(saved.activity || 'ride');
    // The fixes still on the device count provisionally, as before the reload.
    for (const entry of await outbox.peek(Number.MAX_SAFE_INTEGER)) {
      if (entry.recordingId === saved.id && entry.kind === 'fix') this.live.add({ ...entry.fix, time: Date.parse(entry.fix.time) });
      else if (entry.recordingId === saved.id && entry.kind === 'command' && entry.command === 'pause') this.live.breakLine();
    }
    if (this.running()) this.holdScreen();
    if (await outbox.startQueued(saved.id)) {
      // Started offline and not sent yet: the server does not know it; the outbox sends the Start first.
      const view = await outbox.loadView();
      if (view && view.id === saved.id) this.applyRecording(view);
      this.renderButtons();
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
      this.offline = true;
      // Saved just before the reload, and still offline: the ride waits on the device, a new one can start.
      if (saved.state === 'stopping') return this.detachStopped();
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
    // With location blocked there would be a ride without a single position: say what to do instead.
    if (this.locationDenied) {
      this.showDenied(true);
      return;
    }
    // Not asked yet: Start asks (the ride starts; without an answer it has no fix, and is not saved empty).
    if (this.watchId === null && !this.simulating && 'geolocation' in navigator) this.startWatching();
    const id = newRecordingId();
    // With the phone's own offset: the server names the ride in the rider's local time from it.
    const startMillis = Date.now();
    const startedAt = format.timeWithOffset(startMillis);
    const activity = chosenActivity();
    this.recording = { id, state: 'recording', nextSequence: 1, startedAt, activity };
    this.live = new Provisional({ activity });
    this.autoPause = new AutoPause(activity);
    this.lastFixTime = null;
    $('record-notice').replaceChildren();
    this.discarded = null;
    // The route goes with the Start, in the outbox: chosen before Start, it works offline too.
    // A simulated ride is saved as one (source "simulation"), and left out of the totals.
    const simulated = this.simulating ? { simulated: true } : {};
    await outbox.begin(this.recording, {
      activity, units: format.units(), breadcrumbs: breadcrumbsEnabled(), startedAt, ...simulated, ...this.navigation.startOptions(),
    });
    this.map.clearRide();
    this.lastCamera = null;
    this.view = { id, path: [], breadcrumbs: [], stats: null };
    this.renderButtons();
    this.renderStats();
    this.holdScreen();
    // Where the rider stood at Start, taken at Start: a position kept from 45 s on the Record tab is not 45 s of ride
    // (elapsed time counts from Start, not from the last fix before it).
    if (this.lastPosition) {
      const atStart = { coords: this.lastPosition.coords, timestamp: Math.max(this.lastPosition.timestamp, startMillis) };
      await this.queueFix(atStart);
    }
    // The gap rule counts from Start: a position kept from before it is not a gap in the ride.
    this.lastFixTime = Date.now();
    this.flushSoon(0);
  }

  /** Pause or Resume (`auto`: a pause made by the auto-pause rule, which it may end by itself). */
  async command(command, state, { auto = false } = {}) {
    if (!this.recording) return;
    const autoPaused = command === 'pause' && auto;
    await outbox.enqueueCommand(command, state, { recording: { autoPaused } });
    this.recording.state = state;
    this.recording.autoPaused = autoPaused;
    if (command === 'pause') {
      // The next fix after Resume starts a new segment: nothing joins across the pause.
      this.live.breakLine();
      this.map.breakPending();
      this.lastFixTime = null;
    } else {
      this.autoPause.reset();
    }
    this.renderButtons();
    this.renderStats();
    this.flushSoon(0);
  }

  // MARK: the finish step: Stop asks Save / Discard / Resume

  /** Stop: the ride pauses (the clocks stop) and the rider chooses. */
  async askToFinish() {
    if (!this.running()) return;
    if (this.recording.state === 'recording') await this.command('pause', 'paused');
    this.finishing = true;
    this.renderButtons();
    (this.live.pointCount > 0 ? $('save-button') : $('discard-button')).focus();
  }

  async resumeFromFinish() {
    if (!this.finishing) return;
    this.finishing = false;
    if (this.recording && this.recording.state === 'paused') await this.command('resume', 'recording');
    else this.renderButtons();
    $('pause-button').focus();
  }

  /** Save: Stop is queued; the answer opens the track. Offline, the device keeps it and a new ride can start. */
  async save() {
    if (!this.recording || !this.finishing) return;
    if (this.live.pointCount === 0) return this.discard(`${NO_FIX_MESSAGE} The ride was discarded.`);
    this.finishing = false;
    await outbox.enqueueCommand('stop', 'stopping');
    this.recording.state = 'stopping';
    this.releaseScreen();
    this.renderButtons();
    if (this.offline || navigator.onLine === false) await this.detachStopped();
    this.flushSoon(0);
  }

  /**
   * Discard: the ride is not kept. A Start the server never saw is dropped from the device with everything
   * behind it; otherwise Stop is queued marked `discard`, and the track it makes is deleted when it answers
   * (the server has no "discard a recording": see the report in docs/server.md).
   */
  async discard(reason = 'Ride discarded.') {
    const recording = this.recording;
    if (!recording) return;
    this.finishing = false;
    // Without a single position there is nothing to bring back: a Start the server never saw just goes.
    const empty = this.live.pointCount === 0;
    if (empty && !this.flushing && (await outbox.startQueued(recording.id))) await outbox.dropRecording(recording.id);
    else await outbox.enqueueCommand('stop', 'stopping', { entry: { discard: true } });
    await this.clearCurrent();
    const notice = $('record-notice');
    notice.replaceChildren(reason);
    this.discarded = empty ? null : { recordingId: recording.id, trackId: null, name: null, undoRequested: false };
    if (this.discarded) {
      // Discard is one tap: so is Undo.
      const undo = document.createElement('button');
      undo.type = 'button';
      undo.className = 'notice-action';
      undo.textContent = 'Undo';
      undo.addEventListener('click', () => this.undoDiscard());
      notice.append(' ', undo);
    }
    this.flushSoon(0);
  }

  /**
   * Undo of a Discard: a Stop still queued saves the ride after all; a track already deleted is restored; a Stop
   * on its way is restored by the flush when its answer comes (`undoRequested`).
   */
  async undoDiscard() {
    const discarded = this.discarded;
    if (!discarded || discarded.undoRequested) return;
    discarded.undoRequested = true;
    if (await outbox.keepDiscarded(discarded.recordingId)) {
      $('record-notice').textContent = 'Kept: the ride is saved when it reaches the server.';
      this.flushSoon(0);
    } else if (discarded.trackId) {
      try {
        await api.restoreTrack(discarded.trackId);
        this.discarded = null;
        this.savedLater({ trackId: discarded.trackId, name: discarded.name });
      } catch (error) {
        discarded.undoRequested = false;
        $('record-notice').textContent = `The ride could not be brought back (${error.message}); try Undo again when online.`;
        const again = document.createElement('button');
        again.type = 'button';
        again.className = 'notice-action';
        again.textContent = 'Undo';
        again.addEventListener('click', () => this.undoDiscard());
        $('record-notice').append(' ', again);
      }
    }
  }

  /** A Save that cannot reach the server: the ride waits in the outbox, and the Record tab is free again. */
  async detachStopped() {
    if (!this.recording || this.recording.state !== 'stopping') return;
    await this.clearCurrent();
    $('record-notice').textContent = OFFLINE_SAVE_MESSAGE;
  }

  /** No ride in progress on this device any more (its queued entries, if any, still go out). */
  async clearCurrent() {
    this.recording = null;
    this.finishing = false;
    this.lastCamera = null;
    this.view = null;
    this.lastFixTime = null;
    this.live = new Provisional();
    this.navigation.update(null);
    this.releaseScreen();
    await outbox.setCurrent(null);
    await outbox.saveView(null);
    this.map.clearRide();
    $('record-map').dataset.pathPoints = '0';
    this.renderButtons();
    this.renderStats();
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

  /** Sends the outbox, oldest first, until it is empty or the server cannot be reached. */
  async flush() {
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (;;) {
        const entries = await outbox.peek(BATCH_LIMIT);
        if (!entries.length) break;
        const first = entries[0];
        const current = () => Boolean(this.recording && this.recording.id === first.recordingId);
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
            if (!current()) return;
            // A new recording has nothing to draw yet: keep the pending line of the fixes queued behind it.
            if ((answer.path || []).some((path) => path.points.length)) this.applyRecording(answer);
            else {
              this.view = { id: first.recordingId, path: [], breadcrumbs: [], stats: answer.stats };
              this.showStats(answer.stats);
              this.navigation.update(answer.navigation);
            }
          });
        } else if (first.kind === 'command') {
          const request = async () => {
            const answer = await api.command(first.recordingId, first.command);
            // Discarded: the track the Stop made goes (a Stop sent again answers the same track, so a retry is safe),
            // unless Undo came meanwhile; an Undo during the deletion restores it at once.
            const discarded = this.discarded && this.discarded.recordingId === first.recordingId ? this.discarded : null;
            if (first.discard && answer.trackId && !(discarded && discarded.undoRequested)) {
              try {
                await api.deleteTrack(answer.trackId);
              } catch (error) {
                if (!(error instanceof ApiError && error.status === 404)) throw error;
              }
              if (discarded) Object.assign(discarded, { trackId: answer.trackId, name: answer.name });
              if (discarded && discarded.undoRequested) {
                await api.restoreTrack(answer.trackId);
                this.discarded = null;
              } else {
                answer.discarded = true;
              }
            }
            return answer;
          };
          await this.send(first, request, async (answer) => {
            await outbox.remove([first.key]);
            if (first.command === 'stop') {
              if (answer.discarded) return;
              if (current()) {
                this.applyRecording(answer);
                await this.finish(answer);
              } else {
                this.savedLater(answer);
              }
            } else if (current()) {
              this.applyRecording(answer);
            }
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
              if (current()) this.applyUpdate(answer);
            }, batch.length);
          } finally {
            if (this.isolating > 0 && batch.length === 1) this.isolating -= 1;
          }
        }
      }
      this.retryDelay = RETRY_MIN_MS;
      this.offline = false;
      this.setStatus('');
    } catch (error) {
      if (error instanceof NetworkError || (error instanceof ApiError && error.status >= 500)) {
        this.offline = true;
        // A Save that cannot reach the server: the device keeps the ride, and a new one can start.
        if (this.recording && this.recording.state === 'stopping') await this.detachStopped();
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
    if (answer.lastSequence !== undefined) this.live.answered(answer.stats, answer.lastSequence);
    // Fixes still queued on the device stay drawn (dashed) after the server's line.
    for (const fix of this.live.pending) {
      if (!fix.joined) this.map.breakPending();
      this.map.addPending(fix.latitude, fix.longitude);
    }
    if (this.live.joinNext === false) this.map.breakPending();
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
    this.live.answered(answer.stats, answer.recording.lastSequence);
    this.showStats(answer.stats);
    this.navigation.update(answer.navigation);
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

  async finish(answer) {
    sessionStorage.setItem('bikeride.lastStopped', JSON.stringify(answer));
    await this.clearCurrent();
    if (answer.trackId) location.hash = `#/tracks/${encodeURIComponent(answer.trackId)}`;
  }

  /** A ride saved offline reached the server while the tab shows something else (or a new ride). */
  savedLater(answer) {
    const notice = $('record-notice');
    notice.replaceChildren(`Saved: `);
    if (answer.trackId) {
      const link = document.createElement('a');
      link.href = `#/tracks/${encodeURIComponent(answer.trackId)}`;
      link.textContent = answer.name || 'your ride';
      notice.append(link, '.');
    } else {
      notice.append(`${answer.name || 'your ride'}.`);
    }
  }

  async forget(message) {
    await this.clearCurrent();
    this.setStatus(message);
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

/** A browser position as provisional.js takes it: time in milliseconds. */
function localFix(position) {
  const c = position.coords;
  return {
    latitude: c.latitude, longitude: c.longitude, altitude: c.altitude ?? null, accuracy: c.accuracy ?? null,
    speed: c.speed ?? null, time: position.timestamp,
  };
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
    time: format.timeWithOffset(position.timestamp),
  };
}

