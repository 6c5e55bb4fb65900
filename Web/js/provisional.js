// Provisional figures for the fixes the server has not answered yet (issue 11, "figures that keep moving
// offline"), the live clocks between answers, and the two client rules that decide when the recording
// pauses or breaks by itself (auto-pause, a gap in the fixes). No DOM: the browser tests import this module
// in a page and check it against known geometry (Tests/browser/test_record_live.py).
//
// The server's figures stay the truth: everything here starts from the last figures the server gave and adds
// only what lies beyond them, and the page marks what it shows from here as provisional (≈). It is the one
// place in the web app that computes figures; the rules mirror the server's where they matter (RideKit's
// TrackStats: distance on the WGS-84 radii for short hops, stopped speeds per activity, a 5 m hysteresis on
// climb, fixes worse than 100 m not counted, no distance across a segment break), simply.

/** Speed below which the rider counts as stopped, m/s, by activity (RideKit's ActivityKind; README). */
export const STOPPED_SPEED = { ride: 1, run: 0.5, walk: 0.3 };
/** Fixes less accurate than this are acknowledged but not counted by the server (Recorder.Options). */
export const MAX_ACCURACY_METERS = 100;
/** A climb counts once the altitude has risen this much (the server smooths, then uses the same threshold). */
export const CLIMB_HYSTERESIS_METERS = 5;
/** No fix for longer than this, and the line breaks: a new segment, not a straight line across the gap. */
export const GAP_SECONDS = 60;
/** Between fixes the moving clock runs on at most this long (a GPS that went quiet is not riding). */
const MOVING_EXTRAPOLATION_SECONDS = 5;
/** The current speed, without one from the device, is measured over the fixes of this many seconds. */
const SPEED_WINDOW_SECONDS = 10;

const A = 6378137.0;             // WGS-84
const E2 = 6.69437999014e-3;

/**
 * Metres between two positions `{latitude, longitude}` (or `[latitude, longitude]`): a local flat earth on the
 * WGS-84 radii of curvature at the middle latitude, as the server measures short hops (a fix a second).
 */
export function metersBetween(a, b) {
  const [lat1, lon1] = Array.isArray(a) ? a : [a.latitude, a.longitude];
  const [lat2, lon2] = Array.isArray(b) ? b : [b.latitude, b.longitude];
  const rad = Math.PI / 180;
  const phi = ((lat1 + lat2) / 2) * rad;
  const w = 1 - E2 * Math.sin(phi) ** 2;
  const meridional = (A * (1 - E2)) / w ** 1.5;
  const normal = A / Math.sqrt(w);
  let dLon = lon2 - lon1;
  if (dLon > 180) dLon -= 360;
  if (dLon < -180) dLon += 360;
  return Math.hypot(dLon * rad * normal * Math.cos(phi), (lat2 - lat1) * rad * meridional);
}

/** The activity's stopped speed (a ride's for an unknown kind). */
export function stoppedSpeed(activity) {
  return STOPPED_SPEED[activity] ?? STOPPED_SPEED.ride;
}

/** Whether the time between two fixes (ms) is a gap that breaks the line. */
export function isGap(previousTime, time, gapSeconds = GAP_SECONDS) {
  return Number.isFinite(previousTime) && Number.isFinite(time) && (time - previousTime) / 1000 > gapSeconds;
}

/** Whether the server counts this fix (its accuracy is known to be worse than 100 m: not counted). */
function counts(fix) {
  return !(Number.isFinite(fix.accuracy) && fix.accuracy > MAX_ACCURACY_METERS);
}

/** How far a fix must be from the last counted one before the step counts: standing still adds nothing. */
function jitterMeters(fix) {
  const accuracy = Number.isFinite(fix.accuracy) ? fix.accuracy : 5;
  return Math.min(20, Math.max(5, accuracy));
}

/**
 * The figures of a ride in progress: the server's last ones, plus what the fixes it has not answered add.
 *
 *     const live = new Provisional({ activity: 'ride' });
 *     live.add({ sequence: 1, latitude, longitude, altitude, accuracy, speed, time: Date.now() });
 *     live.answered(serverStats, lastSequence);   // the server's figures replace the provisional part
 *     live.breakLine();                           // Pause/Resume or a gap: the next fix does not join
 *     live.figures(Date.now(), 'recording');      // {distanceMeters, speedMetersPerSecond, provisional, …}
 *
 * A fix is `{sequence, latitude, longitude, altitude?, accuracy?, speed?, time}` with `time` in milliseconds.
 */
export class Provisional {
  constructor({ activity = 'ride' } = {}) {
    this.activity = activity;
    this.reset();
  }

  reset() {
    this.stats = null;          // the server's last figures
    this.base = null;           // the last fix the server acknowledged (where the pending ones join)
    this.pending = [];          // fixes taken and not acknowledged yet, in order
    this.joinNext = true;       // false after breakLine(): the next fix starts a new stretch
    this.firstTime = null;      // time of the first counted fix, before the server gives a start time
  }

  /** The fixes not answered yet (counted or not). */
  get pendingCount() { return this.pending.length; }

  /** Counted fixes, the server's and the pending ones: 0 means the ride has no position at all. */
  get pointCount() {
    return (this.stats ? this.stats.pointCount || 0 : 0) + this.pending.filter(counts).length;
  }

  add(fix) {
    const entry = { ...fix, joined: this.joinNext };
    this.joinNext = true;
    this.pending.push(entry);
    if (this.firstTime === null && counts(entry)) this.firstTime = entry.time;
  }

  /** The next fix starts a new stretch: no distance, climb or moving time across the break. */
  breakLine() { this.joinNext = false; }

  /** The server's figures `stats` (null: keep the last ones), with every fix up to `lastSequence` in them. */
  answered(stats, lastSequence) {
    if (stats) this.stats = stats;
    if (lastSequence === null || lastSequence === undefined) return;
    let index = 0;
    while (index < this.pending.length && this.pending[index].sequence <= lastSequence) {
      const fix = this.pending[index];
      if (counts(fix)) this.base = fix;
      else if (!fix.joined && this.base) this.base = { ...this.base, brokenAfter: true };
      index += 1;
    }
    this.pending.splice(0, index);
  }

  /**
   * What to show at `now` (ms) in `state` ('recording', 'paused', …): distance, climb, current speed, elapsed
   * and moving time, and whether any of it comes from fixes the server has not answered (`provisional`).
   */
  figures(now, state) {
    const stats = this.stats;
    let distance = stats ? stats.distanceMeters : 0;
    let ascent = stats ? stats.ascentMeters : 0;
    let moving = stats ? stats.movingSeconds : 0;
    const stopped = stoppedSpeed(this.activity);
    let previous = this.base && !this.base.brokenAfter ? this.base : null;
    let anchor = previous;
    let reference = previous && Number.isFinite(previous.altitude) ? previous.altitude : null;
    let counted = 0;
    let last = this.base;
    let stretch = this.base ? [this.base] : [];   // the counted fixes since the last break, for the speed
    for (const fix of this.pending) {
      if (!counts(fix)) { if (!fix.joined) previous = null; continue; }
      counted += 1;
      if (!fix.joined || !previous) {
        previous = anchor = fix;
        reference = Number.isFinite(fix.altitude) ? fix.altitude : null;
        last = fix;
        stretch = [fix];
        continue;
      }
      const seconds = (fix.time - previous.time) / 1000;
      if (seconds > 0 && metersBetween(previous, fix) / seconds >= stopped) moving += seconds;
      const away = metersBetween(anchor, fix);
      if (away >= jitterMeters(fix)) {
        distance += away;
        anchor = fix;
      }
      if (Number.isFinite(fix.altitude)) {
        if (reference === null) reference = fix.altitude;
        else if (fix.altitude - reference >= CLIMB_HYSTERESIS_METERS) { ascent += fix.altitude - reference; reference = fix.altitude; }
        else if (reference - fix.altitude >= CLIMB_HYSTERESIS_METERS) reference = fix.altitude;
      }
      previous = fix;
      last = fix;
      stretch.push(fix);
    }

    // The current speed: the device's own, else over the last seconds of fixes, else the server's.
    let speed = null;
    if (last && counted > 0) {
      if (Number.isFinite(last.speed) && last.speed >= 0) speed = last.speed;
      else {
        const recent = stretch.filter((fix) => last.time - fix.time <= SPEED_WINDOW_SECONDS * 1000);
        const seconds = (last.time - recent[0].time) / 1000;
        if (recent.length > 1 && seconds > 0) {
          let meters = 0;
          for (let i = 1; i < recent.length; i += 1) meters += metersBetween(recent[i - 1], recent[i]);
          speed = meters / seconds;
        }
      }
    } else if (stats) {
      speed = stats.currentSpeedMetersPerSecond ?? null;
    }

    // The clocks. Elapsed is last time − first time on the track page, pauses included: it runs on while paused,
    // so Resume makes no jump. Moving time runs on between fixes while the rider moves, never while paused.
    const startTime = stats && stats.startTime ? Date.parse(stats.startTime) : this.firstTime;
    const running = state === 'recording' || state === 'paused';
    let elapsed = stats ? stats.elapsedSeconds : 0;
    if (running && Number.isFinite(startTime)) elapsed = Math.max(elapsed, (now - startTime) / 1000);
    const lastTime = last ? last.time : (stats && stats.lastFixTime ? Date.parse(stats.lastFixTime) : null);
    const lastSpeed = speed ?? (stats ? stats.currentSpeedMetersPerSecond : null);
    if (state === 'recording' && Number.isFinite(lastTime) && Number.isFinite(lastSpeed) && lastSpeed >= stopped) {
      moving += Math.min(MOVING_EXTRAPOLATION_SECONDS, Math.max(0, (now - lastTime) / 1000));
    }

    return {
      distanceMeters: distance,
      ascentMeters: ascent,
      speedMetersPerSecond: state === 'recording' ? speed : null,
      elapsedSeconds: startTime === null && !stats ? null : elapsed,
      movingSeconds: moving,
      provisional: counted > 0,
    };
  }
}

/**
 * What the Record tab shows: the figures, never less than they were shown (distance, climb, moving and elapsed
 * time). When the connection comes back, the server's figures for the fixes it now has may count a little less
 * than the provisional sum shown offline (it smooths and drops what it judges noise); when auto-pause starts, the
 * moving clock's run-on between fixes ends. A figure that went back would read as lost riding: it holds instead,
 * and moves on once the true figure passes it.
 *
 *     const steady = new SteadyFigures();
 *     steady.show(live.figures(Date.now(), 'recording'));   // the same object, clamped
 */
export class SteadyFigures {
  constructor() { this.floor = null; }

  show(figures) {
    if (!figures) return figures;
    const shown = { ...figures };
    for (const key of STEADY_KEYS) {
      const floor = this.floor ? this.floor[key] : null;
      if (Number.isFinite(floor) && Number.isFinite(shown[key])) shown[key] = Math.max(shown[key], floor);
    }
    this.floor = Object.fromEntries(STEADY_KEYS.map((key) => [key, shown[key]]));
    return shown;
  }
}

const STEADY_KEYS = ['distanceMeters', 'ascentMeters', 'movingSeconds', 'elapsedSeconds'];

/**
 * Auto-pause: the rider has not moved for `stillSeconds` (less than the activity's stopped speed over that time)
 * → 'pause'; after an auto-pause, moved more than `resumeMeters` from where it paused (or a device speed well
 * above the stopped speed) → 'resume'. Fed with every fix, also while paused; a pause the rider made is never
 * resumed here (the caller only asks while auto-paused).
 */
export class AutoPause {
  constructor(activity = 'ride', { stillSeconds = 10, resumeMeters = 15 } = {}) {
    this.stopped = stoppedSpeed(activity);
    this.stillSeconds = stillSeconds;
    this.resumeMeters = resumeMeters;
    this.recent = [];
    this.pausedAt = null;
  }

  reset() {
    this.recent = [];
    this.pausedAt = null;
  }

  /** `fix` as for Provisional; `autoPaused`: whether the ride is paused by this rule. Returns 'pause', 'resume' or null. */
  observe(fix, autoPaused) {
    if (!counts(fix)) return null;
    if (autoPaused) {
      if (!this.pausedAt) this.pausedAt = fix;
      const moved = metersBetween(this.pausedAt, fix);
      const fast = Number.isFinite(fix.speed) && fix.speed >= 2 * this.stopped;
      if (moved >= Math.max(this.resumeMeters, Number.isFinite(fix.accuracy) ? fix.accuracy : 0) || fast) {
        this.reset();
        this.recent = [fix];
        return 'resume';
      }
      return null;
    }
    this.recent.push(fix);
    this.recent = this.recent.filter((old) => fix.time - old.time <= this.stillSeconds * 1000 + 1500);
    const first = this.recent[0];
    if ((fix.time - first.time) / 1000 < this.stillSeconds) return null;
    const limit = this.stopped * this.stillSeconds;
    const still = this.recent.every((old) => metersBetween(first, old) < Math.max(limit, 5))
      && !(Number.isFinite(fix.speed) && fix.speed >= this.stopped);
    if (!still) return null;
    this.pausedAt = fix;
    this.recent = [];
    return 'pause';
  }
}
