// Figures for people, in the user's units. Only presentation: every figure is computed by the server.

const MILE = 1609.344;
const FOOT = 0.3048;

export function units() {
  return localStorage.getItem('bikeride.units') === 'imperial' ? 'imperial' : 'metric';
}

export function distance(meters, system = units()) {
  if (meters == null || !Number.isFinite(meters)) return '–';
  if (system === 'imperial') {
    const miles = meters / MILE;
    return miles < 0.1 ? `${Math.round(meters / FOOT)} ft` : `${miles.toFixed(2)} mi`;
  }
  return meters < 1000 ? `${Math.round(meters)} m` : `${(meters / 1000).toFixed(2)} km`;
}

export function elevation(meters, system = units()) {
  if (meters == null || !Number.isFinite(meters)) return '–';
  return system === 'imperial' ? `${Math.round(meters / FOOT)} ft` : `${Math.round(meters)} m`;
}

export function speed(metersPerSecond, system = units()) {
  if (metersPerSecond == null || !Number.isFinite(metersPerSecond)) return '–';
  return system === 'imperial'
    ? `${(metersPerSecond * 3600 / MILE).toFixed(1)} mph`
    : `${(metersPerSecond * 3.6).toFixed(1)} km/h`;
}

/** Pace for runners: minutes per kilometre or per mile, "5:12 /km"; '–' without a speed. */
export function pace(metersPerSecond, system = units()) {
  if (!(metersPerSecond > 0) || !Number.isFinite(metersPerSecond)) return '–';
  const length = system === 'imperial' ? MILE : 1000;
  return `${duration(length / metersPerSecond)} /${system === 'imperial' ? 'mi' : 'km'}`;
}

export function duration(seconds) {
  if (seconds == null || !Number.isFinite(seconds)) return '–';
  const total = Math.max(0, Math.round(seconds));  // to the nearest second, as the CLI (UnitSystem) writes it
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(2, '0');
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${m}:${ss}`;
}

/**
 * An instant (milliseconds since 1970) as RFC 3339 with this device's UTC offset, "2024-05-01T09:00:00.000+02:00":
 * a recorded fix keeps the rider's own time zone, so the track's date is the day it was ridden where it was ridden.
 */
export function timeWithOffset(milliseconds) {
  const offsetMinutes = -new Date(milliseconds).getTimezoneOffset();
  const clock = new Date(milliseconds + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const size = Math.abs(offsetMinutes);
  const two = (value) => String(value).padStart(2, '0');
  return `${clock}${offsetMinutes < 0 ? '-' : '+'}${two(Math.floor(size / 60))}:${two(size % 60)}`;
}

export function date(iso) {
  if (!iso) return '';
  const value = new Date(iso);
  return Number.isNaN(value.getTime()) ? iso : value.toLocaleString();
}

/**
 * A time as written with its offset ("2024-05-01T09:00:00+01:00"), shown as the clock read there: the
 * ride's own time of day, whatever the zone of the browser. `weekday` adds the day of the week.
 */
export function localDateTime(text, { weekday = false } = {}) {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(text || '');
  if (!match) return date(text);
  const [, y, mo, d, h, mi] = match.map(Number);
  const wall = new Date(Date.UTC(y, mo - 1, d, h, mi));
  if (Number.isNaN(wall.getTime())) return text;
  const options = { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' };
  if (weekday) options.weekday = 'short';
  return wall.toLocaleString(undefined, options);
}
