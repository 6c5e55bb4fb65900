// Provisional route guidance: the next cue, the distance to it and off-route, computed on the device from the
// fixes the server has not answered yet, so that guidance keeps going offline (issue 24). No DOM: the browser
// tests import this module in a page and check it against the server's answers on the same ride
// (Tests/browser/test_guidance.py).
//
// The server stays the truth, as for the figures (provisional.js): every server answer carries the follower's
// state, guidance starts from it and adds only the fixes beyond it. `RouteGuide` is RideKit's `RouteFollower`
// (Sources/RideKit/Navigation/RouteFollower.swift) step for step, fed with the line, the distances along it and
// the thresholds the server gives (`GET /api/tracks/{id}/cues?line=1`), so that both answer alike on the same
// fixes; `cueText` is RideKit's `CueText`. A change to one is a change to the other: the test compares them.

const A = 6378137.0;               // WGS-84, as RideKit's WGS84 defines it
const F = 1 / 298.257223563;
const E2 = F * (2 - F);
const MEAN_RADIUS = (2 * A + A * (1 - F)) / 3;
const RAD = Math.PI / 180;
const FOOT = 0.3048;
const MILE = 1609.344;

/** RideKit's LocalScale: metres per radian north and east at a latitude (degrees). */
function localScale(latitude) {
  const sine = Math.sin(latitude * RAD), cosine = Math.cos(latitude * RAD);
  const w = 1 - E2 * sine * sine;
  const normal = A / Math.sqrt(w);
  return { north: (normal * (1 - E2)) / w, east: normal * cosine };
}

/** `to − from` in radians, brought into −π…π (the antimeridian). */
function longitudeDifference(from, to) {
  let difference = to - from;
  if (difference > 180) difference -= 360; else if (difference < -180) difference += 360;
  return difference * RAD;
}

/** Metres between two `{latitude, longitude}` a few kilometres apart at most (the local ellipsoid formula). */
function meters(a, b) {
  const scale = localScale((a.latitude + b.latitude) / 2);
  return Math.hypot((b.latitude - a.latitude) * RAD * scale.north, longitudeDifference(a.longitude, b.longitude) * scale.east);
}

/** Initial bearing, degrees 0…360, from `a` to `b`. */
function bearing(a, b) {
  const phi1 = a.latitude * RAD, phi2 = b.latitude * RAD, dLambda = longitudeDifference(a.longitude, b.longitude);
  const y = Math.sin(dLambda) * Math.cos(phi2);
  const x = Math.cos(phi1) * Math.sin(phi2) - Math.sin(phi1) * Math.cos(phi2) * Math.cos(dLambda);
  if (x === 0 && y === 0) return 0;
  const value = (Math.atan2(y, x) / RAD) % 360;
  return value < 0 ? value + 360 : value;
}

/** The signed turn from one bearing to another, degrees in (−180, 180]: positive to the right. */
export function signedTurn(from, to) {
  let difference = (to - from) % 360;
  if (difference > 180) difference -= 360; else if (difference <= -180) difference += 360;
  return difference;
}

function unitVector(latitude, longitude) {
  const phi = latitude * RAD, lambda = longitude * RAD, c = Math.cos(phi);
  return [c * Math.cos(lambda), c * Math.sin(lambda), Math.sin(phi)];
}
const dot = (u, v) => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
const cross = (u, v) => [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
const norm = (u) => Math.sqrt(dot(u, u));
const scaled = (u, f) => [u[0] * f, u[1] * f, u[2] * f];

function validCoordinate(latitude, longitude) {
  return Number.isFinite(latitude) && Number.isFinite(longitude) && latitude >= -90 && latitude <= 90
    && longitude >= -180 && longitude <= 180;
}

/**
 * The distance to a cue as spoken, in `units` ('metric' | 'imperial'), or null when it rounds to nothing
 * (RideKit's CueDistance): "50 feet", "0.3 miles", "1 mile", "70 m", "250 m", "1.2 km".
 */
export function spokenDistance(distance, units) {
  if (!Number.isFinite(distance) || distance < 0) return null;
  const m = Math.min(distance, 400_000_000);
  const tenthsText = (tenths) => {
    const whole = Math.trunc(tenths / 10), fraction = Math.trunc(tenths) % 10;
    return fraction === 0 ? `${whole}` : `${whole}.${fraction}`;
  };
  // Swift's rounded() rounds halves away from zero; Math.round rounds them up: the same for these positive values.
  if (units === 'imperial') {
    const roundedFeet = Math.round(m / FOOT / 50) * 50;
    if (roundedFeet < 528) return roundedFeet === 0 ? null : `${roundedFeet} feet`;
    const tenths = Math.max(1, Math.round((m / MILE) * 10));
    return tenthsText(tenths) + (tenths === 10 ? ' mile' : ' miles');
  }
  if (m < 95) {
    const rounded = Math.round(m / 10) * 10;
    return rounded === 0 ? null : `${rounded} m`;
  }
  if (m < 975) return `${Math.max(100, Math.round(m / 50) * 50)} m`;
  return `${tenthsText(Math.max(10, Math.round(m / 100)))} km`;
}

/** "Turn right", "Slight left", "Sharp right", "Make a U-turn" (RideKit's CueText.instruction). */
export function instruction(direction, severity) {
  const side = direction === 'left' ? 'left' : 'right';
  switch (severity) {
    case 'slight': return `Slight ${side}`;
    case 'sharp': return `Sharp ${side}`;
    case 'uturn': return 'Make a U-turn';
    default: return `Turn ${side}`;
  }
}

/** "Turn right in 50 feet", or the instruction alone at the cue (RideKit's CueText.text). */
export function cueText(direction, severity, distance, units) {
  const said = spokenDistance(distance, units);
  return said ? `${instruction(direction, severity)} in ${said}` : instruction(direction, severity);
}

/** A follower's state before any fix (RouteFollower.State). */
export function initialState() {
  return { progressMeters: 0, hasJoined: false, offRoute: true, distanceFromRouteMeters: null,
    lastFixTime: null, lastFixLatitude: null, lastFixLongitude: null };
}

/**
 * RideKit's RouteFollower on the device: `sheet` is the answer of `GET /api/tracks/{id}/cues?line=1`.
 *
 *     const guide = new RouteGuide(sheet, 'metric');
 *     guide.update({ latitude, longitude, accuracy, time });   // time in milliseconds
 *     guide.navigation();   // {nextCue: {text, direction, severity, distanceMeters, latitude, longitude} | null, offRoute, …}
 */
export class RouteGuide {
  constructor(sheet, units = 'metric') {
    const guide = sheet.guide;
    this.units = units;
    this.configuration = guide;
    this.latitudes = guide.line.map((point) => point[0]);
    this.longitudes = guide.line.map((point) => point[1]);
    this.along = guide.line.map((point) => point[2]);
    this.units3 = guide.line.map((point) => unitVector(point[0], point[1]));
    this.lengthMeters = this.along.length ? this.along[this.along.length - 1] : 0;
    this.cues = [...sheet.cues].sort((a, b) => a.distanceMeters - b.distanceMeters);
    this.state = initialState();
  }

  get segmentCount() { return Math.max(0, this.along.length - 1); }

  /** Goes on from a state the server gave (`navigation.state`), or from the start. */
  reset(state) {
    this.state = { ...initialState(), ...(state || {}) };
    if (!Number.isFinite(this.state.progressMeters)) this.state.progressMeters = 0;
    this.state.progressMeters = Math.min(Math.max(0, this.state.progressMeters), this.lengthMeters);
  }

  /** What to tell the rider from the state alone, as the server's `navigation` answer. */
  navigation() {
    const progress = this.state.progressMeters;
    let low = 0, high = this.cues.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.cues[middle].distanceMeters > progress) high = middle; else low = middle + 1;
    }
    let nextCue = null;
    if (!this.state.offRoute && low < this.cues.length) {
      const cue = this.cues[low];
      const distance = cue.distanceMeters - progress;
      nextCue = { text: cueText(cue.direction, cue.severity, distance, this.units), direction: cue.direction,
        severity: cue.severity, distanceMeters: distance, latitude: cue.latitude, longitude: cue.longitude };
    }
    return { nextCue, offRoute: this.state.offRoute, distanceFromRouteMeters: this.state.distanceFromRouteMeters,
      remainingMeters: Math.max(0, this.lengthMeters - progress), progressMeters: progress, state: { ...this.state } };
  }

  /** The next cue whatever the state (while off route: the one the rider was heading for), or null. */
  cueAhead() {
    const progress = this.state.progressMeters;
    const cue = this.cues.find((candidate) => candidate.distanceMeters > progress);
    return cue ? { ...cue, text: instruction(cue.direction, cue.severity), distanceMeters: cue.distanceMeters - progress } : null;
  }

  /** One fix `{latitude, longitude, accuracy?, time}` (time in ms); answers `navigation()`. */
  update(fix) {
    const state = this.state;
    if (!validCoordinate(fix.latitude, fix.longitude)) return this.navigation();
    const accuracy = Number.isFinite(fix.accuracy) && fix.accuracy >= 0 ? fix.accuracy : 0;
    const c = this.configuration;
    if (accuracy > c.uselessAccuracyMeters) return this.navigation();
    if (state.lastFixTime !== null && fix.time < state.lastFixTime) return this.navigation();
    const elapsed = state.lastFixTime !== null ? (fix.time - state.lastFixTime) / 1000 : 0;
    const position = { latitude: fix.latitude, longitude: fix.longitude };
    let travelBearing = null;
    if (state.lastFixLatitude !== null && state.lastFixLongitude !== null) {
      const last = { latitude: state.lastFixLatitude, longitude: state.lastFixLongitude };
      if (meters(last, position) >= 3) travelBearing = bearing(last, position);
    }
    state.lastFixTime = fix.time;
    state.lastFixLatitude = fix.latitude;
    state.lastFixLongitude = fix.longitude;

    const threshold = c.offRouteMeters + (accuracy > c.poorAccuracyMeters ? accuracy : 0);
    const scale = localScale(fix.latitude);
    if (state.hasJoined && !state.offRoute) {
      const ahead = Math.min(Math.max(c.lookAheadMeters, elapsed * c.maximumSpeedMetersPerSecond), 50_000);
      const nearest = this.nearestInWindow(position, ahead, elapsed, travelBearing, scale);
      if (nearest && nearest.distanceMeters <= threshold) {
        state.progressMeters = nearest.alongMeters;
        state.distanceFromRouteMeters = nearest.distanceMeters;
        return this.navigation();
      }
    }
    const radius = state.hasJoined ? c.rejoinFraction * threshold : threshold;
    const search = this.searchWholeRoute(position, radius, scale);
    if (search.pass) {
      state.progressMeters = search.pass.alongMeters;
      state.distanceFromRouteMeters = search.pass.distanceMeters;
      state.offRoute = false;
      state.hasJoined = true;
    } else {
      state.offRoute = true;
      state.distanceFromRouteMeters = search.nearestMeters;
    }
    return this.navigation();
  }

  /** The nearest point of the whole route to `position`: `{latitude, longitude, distanceMeters, bearing}` (the way back). */
  wayBack(position) {
    let best = null;
    const scale = localScale(position.latitude);
    const unit = unitVector(position.latitude, position.longitude);
    for (let index = 0; index < this.segmentCount; index += 1) {
      if (best && this.lowerBound(unit, index) > best.distanceMeters) continue;
      const projection = this.project(position, index, scale, unit);
      if (!best || projection.distanceMeters < best.distanceMeters) best = projection;
    }
    if (!best) return null;
    const point = this.coordinateAt(best.alongMeters, best.segment);
    return { ...point, distanceMeters: best.distanceMeters, bearing: bearing(position, point) };
  }

  coordinateAt(distance, index) {
    const start = this.along[index], length = this.along[index + 1] - start;
    const f = Math.min(1, Math.max(0, (distance - start) / length));
    return { latitude: this.latitudes[index] + f * (this.latitudes[index + 1] - this.latitudes[index]),
      longitude: this.longitudes[index] + f * longitudeDifference(this.longitudes[index], this.longitudes[index + 1]) / RAD };
  }

  segmentIndex(distance) {
    if (this.segmentCount === 0) return 0;
    let low = 0, high = this.segmentCount - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.along[middle] <= distance) low = middle; else high = middle - 1;
    }
    return low;
  }

  /** RoutePolyline.project: on the plane tangent at the position, or on the sphere for far or long segments. */
  project(position, index, scale, unit = null) {
    const start = this.along[index], length = this.along[index + 1] - start;
    const aNorth = (this.latitudes[index] - position.latitude) * RAD, bNorth = (this.latitudes[index + 1] - position.latitude) * RAD;
    const aEast = longitudeDifference(position.longitude, this.longitudes[index]);
    const bEast = longitudeDifference(position.longitude, this.longitudes[index + 1]);
    if (Math.max(Math.abs(aNorth), Math.abs(bNorth), Math.abs(aEast), Math.abs(bEast)) > 0.003) {
      return this.projectOnSphere(unit || unitVector(position.latitude, position.longitude), index);
    }
    const ax = aEast * scale.east, ay = aNorth * scale.north;
    const dx = bEast * scale.east - ax, dy = bNorth * scale.north - ay;
    const squared = dx * dx + dy * dy;
    const fraction = squared > 0 ? Math.min(1, Math.max(0, -(ax * dx + ay * dy) / squared)) : 0;
    const x = ax + fraction * dx, y = ay + fraction * dy;
    return { segment: index, alongMeters: start + fraction * length, distanceMeters: Math.sqrt(x * x + y * y) };
  }

  projectOnSphere(p, index) {
    const a = this.units3[index], b = this.units3[index + 1];
    const start = this.along[index], length = this.along[index + 1] - start;
    const result = (fraction, point) => ({ segment: index, alongMeters: start + fraction * length,
      distanceMeters: Math.atan2(norm(cross(p, point)), dot(p, point)) * MEAN_RADIUS });
    const normal = cross(a, b);
    const normalLength = norm(normal);
    if (!(normalLength > 1e-15)) return result(0, a);
    const n = scaled(normal, 1 / normalLength);
    const along = dot(p, n);
    const foot = [p[0] - n[0] * along, p[1] - n[1] * along, p[2] - n[2] * along];
    if (!(norm(foot) > 1e-15)) return result(0, a);
    const onCircle = scaled(foot, 1 / norm(foot));
    if (dot(cross(a, onCircle), n) < 0) return result(0, a);
    if (dot(cross(onCircle, b), n) < 0) return result(1, b);
    const fraction = Math.atan2(norm(cross(a, onCircle)), dot(a, onCircle)) / Math.atan2(normalLength, dot(a, b));
    return result(Math.min(1, Math.max(0, fraction)), onCircle);
  }

  lowerBound(unit, index) {
    const v = this.units3[index];
    const dx = unit[0] - v[0], dy = unit[1] - v[1], dz = unit[2] - v[2];
    return Math.sqrt(dx * dx + dy * dy + dz * dz) * 6_330_000 - (this.along[index + 1] - this.along[index]);
  }

  nearestInWindow(position, ahead, elapsed, travelBearing, scale) {
    const c = this.configuration;
    const progress = this.state.progressMeters;
    const first = this.segmentIndex(progress - c.lookBackMeters);
    const last = this.segmentIndex(progress + ahead);
    let best = null, bestCost = Infinity;
    const alongWeight = 0.05 + 0.25 / Math.max(1, elapsed);
    for (let index = first; index <= last; index += 1) {
      const projection = this.project(position, index, scale);
      projection.alongMeters = Math.min(Math.max(projection.alongMeters, progress - c.lookBackMeters), progress + ahead);
      let cost = projection.distanceMeters + alongWeight * Math.abs(projection.alongMeters - progress);
      if (travelBearing !== null) {
        const segmentBearing = bearing({ latitude: this.latitudes[index], longitude: this.longitudes[index] },
          { latitude: this.latitudes[index + 1], longitude: this.longitudes[index + 1] });
        if (Math.abs(signedTurn(travelBearing, segmentBearing)) > 90) cost += 25;
      }
      if (cost < bestCost) { bestCost = cost; best = projection; }
    }
    return best;
  }

  searchWholeRoute(position, radius, scale) {
    const c = this.configuration;
    const from = this.state.hasJoined ? this.state.progressMeters - c.lookBackMeters : -Infinity;
    let nearest = Infinity, current = null, lastBehind = null;
    const unit = unitVector(position.latitude, position.longitude);
    for (let index = 0; index < this.segmentCount; index += 1) {
      if (this.lowerBound(unit, index) > Math.max(radius, nearest)) {
        if (current) {
          if (current.alongMeters >= from) return { pass: current, nearestMeters: current.distanceMeters };
          lastBehind = current;
          current = null;
        }
        continue;
      }
      const projection = this.project(position, index, scale, unit);
      nearest = Math.min(nearest, projection.distanceMeters);
      if (projection.distanceMeters <= radius) {
        if (!current || projection.distanceMeters < current.distanceMeters) current = projection;
        continue;
      }
      if (!current) continue;
      if (current.alongMeters >= from) return { pass: current, nearestMeters: current.distanceMeters };
      lastBehind = current;
      current = null;
    }
    if (current && current.alongMeters >= from) return { pass: current, nearestMeters: nearest };
    return { pass: current || lastBehind, nearestMeters: nearest };
  }
}

/**
 * Guidance for a ride in progress: the server's last answer, plus the fixes it has not answered, followed on the
 * device. Fed like provisional.js's `Provisional` (same fixes, same sequence numbers).
 *
 *     const guidance = new ProvisionalGuidance(sheet, 'metric');
 *     guidance.answered(answer.navigation, answer.recording.lastSequence);
 *     guidance.add({ sequence, latitude, longitude, accuracy, time });
 *     guidance.navigation();   // the server's answer, or the provisional one (`provisional: true`)
 */
export class ProvisionalGuidance {
  constructor(sheet, units = 'metric', { maxAccuracyMeters = 100 } = {}) {
    this.guide = new RouteGuide(sheet, units);
    this.maxAccuracyMeters = maxAccuracyMeters;
    this.serverState = null;      // the follower's state in the server's last answer
    this.serverNavigation = null;
    this.pending = [];            // fixes not answered yet, in order
  }

  add(fix) { this.pending.push(fix); }

  /** The server's `navigation` (with its `state`), with every fix up to `lastSequence` in it (null: unknown). */
  answered(navigation, lastSequence) {
    if (navigation && navigation.state) {
      this.serverState = navigation.state;
      this.serverNavigation = navigation;
    }
    this.stale = true;   // the device's part starts again from the server's state
    if (lastSequence === null || lastSequence === undefined) return;
    this.pending = this.pending.filter((fix) => fix.sequence > lastSequence);
  }

  /**
   * What to show now: the server's answer when nothing is pending, else the device's (`provisional: true`).
   * Between two answers each fix is followed once (an hour offline is not followed again at every fix).
   */
  navigation() {
    // The server stores (and so follows) only fixes as accurate as 100 m: the same ones here.
    const counted = this.pending.filter((fix) => !(Number.isFinite(fix.accuracy) && fix.accuracy > this.maxAccuracyMeters));
    if (!counted.length && this.serverNavigation) return { ...this.serverNavigation, provisional: false };
    if (this.stale || this.followed === undefined || this.followed > counted.length) {
      this.guide.reset(this.serverState);
      this.followed = 0;
      this.stale = false;
      this.last = this.guide.navigation();
    }
    for (; this.followed < counted.length; this.followed += 1) this.last = this.guide.update(counted[this.followed]);
    return { ...this.last, provisional: counted.length > 0 };
  }
}
