// When to speak a cue, and which arrow shows it: pure functions of the server's `navigation.nextCue`, the speed
// and what was said already, so that a browser test can call them directly (no DOM, no speech here).

/** Say "prepare" no farther than this many seconds ahead (at the current speed)… */
export const PREPARE_MAX_SECONDS = 30;
/** …and no later than this many seconds ahead: closer than that, only the "turn" announcement is left. */
export const PREPARE_MIN_SECONDS = 15;
/** Slow or unknown speed: "prepare" still comes within this distance. */
export const PREPARE_MIN_METERS = 150;
/** "Turn" when the cue is this close in time… */
export const TURN_SECONDS = 8;
/** …or in distance, whichever comes first. */
export const TURN_METERS = 40;

/** A cue's identity across answers: its position (the text changes with the distance, the position does not). */
export function cueKey(cue) {
  return `${Number(cue.latitude).toFixed(6)},${Number(cue.longitude).toFixed(6)}`;
}

/**
 * What to say now about `cue` (`{text, distanceMeters, latitude, longitude}`), riding at `speed` m/s (null or 0
 * when unknown), given the keys already said (`spoken`, a Set the caller keeps and this function never changes):
 * `{kind: 'prepare'|'turn', key, text}`, or null. Each kind is said at most once per cue, and "prepare" not at
 * all once "turn" has been said or when the cue first comes up closer than PREPARE_MIN_SECONDS.
 */
export function announcement(cue, speed, spoken) {
  if (!cue || !Number.isFinite(cue.distanceMeters)) return null;
  const v = Number.isFinite(speed) && speed > 0 ? speed : 0;
  const d = cue.distanceMeters;
  const key = cueKey(cue);
  const turnKey = `${key}:turn`, prepareKey = `${key}:prepare`;
  if (spoken.has(turnKey)) return null;
  if (d <= Math.max(TURN_METERS, TURN_SECONDS * v)) return { kind: 'turn', key: turnKey, text: cue.text };
  if (spoken.has(prepareKey)) return null;
  const farthest = Math.max(PREPARE_MIN_METERS, PREPARE_MAX_SECONDS * v);
  const nearest = PREPARE_MIN_SECONDS * v;
  if (d <= farthest && d >= nearest) return { kind: 'prepare', key: prepareKey, text: cue.text };
  return null;
}

/** The arrow for a cue's `direction` (left|right) and `severity` (slight|turn|sharp|uturn). */
export function arrow(direction, severity) {
  const right = direction === 'right';
  switch (severity) {
    case 'slight': return right ? '↗' : '↖';
    case 'sharp': return right ? '↘' : '↙';
    case 'uturn': return right ? '↻' : '↺';
    default: return right ? '→' : '←';
  }
}

/** Compass bearing in degrees (0 = north, clockwise) from `a` to `b`, each `[latitude, longitude]`. */
export function bearing(a, b) {
  const rad = Math.PI / 180;
  const phi1 = a[0] * rad, phi2 = b[0] * rad, dLambda = (b[1] - a[1]) * rad;
  const y = Math.sin(dLambda) * Math.cos(phi2);
  const x = Math.cos(phi1) * Math.sin(phi2) - Math.sin(phi1) * Math.cos(phi2) * Math.cos(dLambda);
  return (Math.atan2(y, x) / rad + 360) % 360;
}
