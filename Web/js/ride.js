// The ride's state machine on the Record tab: Start (offline too: the device names the ride), Pause/Resume
// (by hand or by auto-pause), the finish step (Save / Discard with Undo / Resume), a reload in the middle of a
// ride, and the fixes queued for the server. It sits on the outbox sync (sync.js); the view (record.js) sits on
// it and draws (`renderButtons`, `renderStats`, `applyRecording`, the map, the screen lock).

import { api, ApiError } from './api.js';
import * as outbox from './outbox.js';
import * as format from './format.js';
import { activity as chosenActivity, breadcrumbsEnabled } from './settings.js';
import { AutoPause, GAP_SECONDS, Provisional, isGap } from './provisional.js';
import { OutboxSync } from './sync.js';

const $ = (id) => document.getElementById(id);
export const NO_FIX_MESSAGE = 'No position was recorded (location blocked, or no GPS signal yet), so there is nothing to save.';
const OFFLINE_SAVE_MESSAGE = 'Stopped. The ride will be saved when you are back online; you can start a new one.';

/** Seconds without a fix after which the line breaks (a setting for tests: `bikeride.gapSeconds`). */
function gapSeconds() {
  const value = Number(localStorage.getItem('bikeride.gapSeconds'));
  return value > 0 ? value : GAP_SECONDS;
}

export class Ride extends OutboxSync {
  constructor() {
    super();
    this.recording = null;        // {id, state, nextSequence, startedAt} as kept in the outbox's meta
    this.live = new Provisional();     // the server's figures plus the fixes it has not answered (provisional.js)
    this.autoPause = new AutoPause();
    this.lastFixTime = null;           // time of the last fix queued, for the gap rule
    this.finishing = false;            // the Save / Discard / Resume step is open
  }

  /** A ride is recorded or paused (not idle, not being saved). */
  running() {
    return Boolean(this.recording && (this.recording.state === 'recording' || this.recording.state === 'paused'));
  }

  /** Queues a fix; after a gap without fixes, a break first, so that the line does not cross the gap. */
  async queueFix(position, local = localFix(position)) {
    if (isGap(this.lastFixTime, local.time, gapSeconds()) && (await outbox.enqueueBreak())) {
      this.live.breakLine();
      this.map.breakPending();
    }
    const fix = fixFrom(position);
    // A simulated ride replays heights above sea level (from the server); a GPS's are the platform's.
    const reference = fix.altitude === undefined ? null : (this.simulating ? 'seaLevel' : altitudeReference());
    const sequence = await outbox.enqueueFix(fix, reference);
    if (sequence === null) return;
    this.lastFixTime = local.time;
    this.lastFixText = fix.time;
    this.live.add({ ...local, sequence });
    // The time as the server reads it (milliseconds of the text sent), so that both follow the route alike.
    this.navigation.addFix({ ...local, sequence, time: Date.parse(fix.time) });
    this.map.addPending(local.latitude, local.longitude);
    this.renderStats();
    this.flushSoon(0);
  }

  /**
   * Lap: a mark at the latest fix, queued like the fixes (it survives going offline and a reload) and identified by
   * that fix's time, so that a retry does not double it. The laps' figures come from the server, on the track page.
   */
  async lap() {
    if (!this.lastFixText || this.lastFixText === this.lastLapText) {
      $('record-notice').textContent = 'A lap needs a new position since the last one.';
      return;
    }
    // The number comes from the outbox, which keeps it with the recording: a reload mid-ride goes on counting.
    const lap = await outbox.enqueueLap(this.lastFixText);
    if (lap === null) return;
    this.lastLapText = this.lastFixText;
    $('record-notice').textContent = `Lap ${lap} started.`;
    this.flushSoon(0);
  }

  // MARK: recording

  async restore() {
    const saved = await outbox.current();
    if (!saved) return;
    this.recording = saved;
    // A lap needs a new position after the last mark, after a reload too.
    this.lastLapText = saved.lastLapTime || null;
    // A simulated ride stays marked (the server says so too, when it answers).
    this.showSimulated(Boolean(saved.simulated));
    this.live = new Provisional({ activity: saved.activity || 'ride' });
    this.autoPause = new AutoPause(saved.activity || 'ride');
    this.navigation.beginRide();
    // The fixes still on the device count provisionally, as before the reload.
    for (const entry of await outbox.peek(Number.MAX_SAFE_INTEGER)) {
      if (entry.recordingId === saved.id && entry.kind === 'fix') {
        this.live.add({ ...entry.fix, time: Date.parse(entry.fix.time) });
        this.navigation.addFix({ ...entry.fix, time: Date.parse(entry.fix.time) });
      }
      else if (entry.recordingId === saved.id && entry.kind === 'command' && entry.command === 'pause') this.live.breakLine();
    }
    if (this.running()) this.holdScreen();
    if (await outbox.startQueued(saved.id)) {
      // Started offline and not sent yet: the server does not know it; the outbox sends the Start first.
      const view = await outbox.loadView();
      if (view && view.id === saved.id) this.applyRecording(view, false);
      this.renderButtons();
      return;
    }
    try {
      const answer = await api.recording(saved.id);
      if (answer.simulated) this.showSimulated(true);
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
      if (view && view.id === saved.id) this.applyRecording(view, false);
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
    this.recording = { id, state: 'recording', nextSequence: 1, startedAt, activity, lapCount: 1, ...(this.simulating ? { simulated: true } : {}) };
    this.lastLapText = null;
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
    this.navigation.beginRide();
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
    this.showSimulated(false);
    this.releaseScreen();
    await outbox.setCurrent(null);
    await outbox.saveView(null);
    this.map.clearRide();
    $('record-map').dataset.pathPoints = '0';
    this.renderButtons();
    this.renderStats();
  }
  /** A saved ride: its page opens if the rider is still on the Record tab; a rider who went elsewhere meanwhile
   * (the answer to Save can come late, or twice: its own and the outbox's) stays there, with a link. */
  async finish(answer) {
    sessionStorage.setItem('bikeride.lastStopped', JSON.stringify(answer));
    await this.clearCurrent();
    if (!answer.trackId) return;
    if ((location.hash || '#/record').startsWith('#/record')) {
      location.hash = `#/tracks/${encodeURIComponent(answer.trackId)}`;
    } else if (!location.hash.startsWith(`#/tracks/${encodeURIComponent(answer.trackId)}`)) {
      this.savedLater(answer);
    }
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
}

/** The name the device knows a recording by: its own id when it started it, else the server's. */
export function recordingKey(recording) {
  return recording.clientId || recording.id;
}
/**
 * What this browser's altitudes are measured from. Apple's platforms give heights above sea level (Core Location; every
 * iOS and iPadOS browser is WebKit on it, and iPadOS names itself "Macintosh"); the others follow the W3C Geolocation
 * definition, heights above the WGS-84 ellipsoid (Android), which the server turns into sea level (EGM96).
 */
export function altitudeReference(userAgent = navigator.userAgent) {
  return /iPhone|iPad|iPod|Macintosh/.test(userAgent) ? 'seaLevel' : 'ellipsoid';
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
export function localFix(position) {
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

