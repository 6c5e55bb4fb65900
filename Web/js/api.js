// The server's JSON API. Every call either returns the parsed answer or throws:
// an ApiError for an answer with an error status, a NetworkError when the server could not be reached.

/** An error answer: `{"error": {"code", "message"}}` with its HTTP status. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** The server could not be reached (offline, or it is down). */
export class NetworkError extends Error {
  constructor(cause) {
    super('The server cannot be reached.');
    this.name = 'NetworkError';
    this.cause = cause;
  }
}

// `rawType`: the body is bytes (a Blob) sent as they are with that type, not JSON.
async function call(method, path, body, rawType) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': rawType || 'application/json' },
      body: body === undefined || rawType ? body : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (error) {
    throw new NetworkError(error);
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (response.status === 401 && path !== '/api/login' && location.pathname !== '/login.html') {
    // Accounts are on and the session ended: the login page, then back here.
    location.assign('/login.html?next=' + encodeURIComponent(location.pathname + location.hash));
  }
  if (!response.ok) {
    const detail = data && data.error ? data.error : {};
    throw new ApiError(response.status, detail.code || 'http_' + response.status, detail.message || response.statusText);
  }
  return data;
}

/**
 * `?name=value&…` with every value percent-encoded (`%20` for a space: URLSearchParams writes `+`, which the
 * server reads as a plus, so a search for two words found nothing).
 */
function query(params) {
  const parts = Object.entries(params || {}).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export const api = {
  config: () => call('GET', '/api/config'),
  startRecording: (options) => call('POST', '/api/recordings', options || {}),
  /** Start under the device's own id (a UUID): works when queued offline and sent late, and sent twice. */
  startRecordingAs: (clientId, options) => call('PUT', `/api/recordings/${encodeURIComponent(clientId)}`, options || {}),
  recording: (id) => call('GET', `/api/recordings/${encodeURIComponent(id)}`),
  addLap: (id, time) => call('POST', `/api/recordings/${encodeURIComponent(id)}/laps`, { time }),
  // `altitudeReference`: what the batch's altitudes are measured from ('ellipsoid' or 'seaLevel'; none: sea level).
  sendFixes: (id, fixes, altitudeReference = null) => call('POST', `/api/recordings/${encodeURIComponent(id)}/fixes`, altitudeReference ? { fixes, altitudeReference } : { fixes }),
  /** Chooses (an id), changes or drops (null) the route of the ride in progress. */
  changeRoute: (id, routeTrackId) => call('PATCH', `/api/recordings/${encodeURIComponent(id)}`, { routeTrackId }),
  cues: (id, units) => call('GET', `/api/tracks/${encodeURIComponent(id)}/cues` + query({ units })),
  /** The cue sheet with the route's line and the follower's thresholds: what guidance needs offline (guidance.js). */
  routeGuide: (id, units) => call('GET', `/api/tracks/${encodeURIComponent(id)}/cues` + query({ units, line: 1 })),
  command: (id, command) => call('POST', `/api/recordings/${encodeURIComponent(id)}/${command}`),
  tracks: (params) => call('GET', '/api/tracks' + query(params)),
  /** An archive import running on the server: how far it is (filesDone of filesTotal) and, once done, what it made. */
  importJob: (id) => call('GET', `/api/imports/${encodeURIComponent(id)}`),
  track: (id, params) => call('GET', `/api/tracks/${encodeURIComponent(id)}` + query(params)),
  profile: (id) => call('GET', `/api/tracks/${encodeURIComponent(id)}/profile`),
  updateTrack: (id, changes) => call('PATCH', `/api/tracks/${encodeURIComponent(id)}`, changes),
  deleteTrack: (id) => call('DELETE', `/api/tracks/${encodeURIComponent(id)}`),
  restoreTrack: (id) => call('POST', `/api/tracks/${encodeURIComponent(id)}/restore`),
  /** Explorer tiles (zoom 14) of the tracks of a kind and year (empty for all), their largest square and cluster. */
  explorer: (filter) => call('GET', '/api/explorer' + query(Object.fromEntries(Object.entries(filter || {}).filter(([, v]) => v)))),
  /** This week, month and year; `offset` is the rider's zone in minutes east of UTC. */
  trackTotals: (offset) => call('GET', '/api/tracks/totals' + query({ offset })),
  /** A year at a glance (totals, calendar, this year against last, goals, Eddington); `offset` as above. */
  overview: (year, offset, kind) => call('GET', '/api/overview' + query(kind ? { year, offset, kind } : { year, offset })),
  /** The best and second best of each effort over the tracks of a kind. */
  records: (kind) => call('GET', '/api/records' + query({ kind })),
  /** Sets (or, with target null, removes) the weekly goal of a kind. */
  setGoal: (kind, measure, target) => call('PUT', '/api/settings/goal', { kind, measure, target }),
  simulation: (speedKmh, trackId = null) => call('GET', `/api/simulation?speedKmh=${speedKmh}${trackId ? `&trackId=${encodeURIComponent(trackId)}` : ''}`),
  places: (params) => call('GET', '/api/places' + query(params)),
  place: (id) => call('GET', `/api/places/${encodeURIComponent(id)}`),
  createPlace: (place) => call('POST', '/api/places', place),
  updatePlace: (id, changes) => call('PATCH', `/api/places/${encodeURIComponent(id)}`, changes),
  deletePlace: (id) => call('DELETE', `/api/places/${encodeURIComponent(id)}`),
  /** Undoes a delete (the server keeps a deleted place 30 days). */
  restorePlace: (id) => call('POST', `/api/places/${encodeURIComponent(id)}/restore`),
  addNote: (placeId, body) => call('POST', `/api/places/${encodeURIComponent(placeId)}/notes`, { body }),
  updateNote: (placeId, noteId, body) => call('PATCH', `/api/places/${encodeURIComponent(placeId)}/notes/${encodeURIComponent(noteId)}`, { body }),
  deleteNote: (placeId, noteId) => call('DELETE', `/api/places/${encodeURIComponent(placeId)}/notes/${encodeURIComponent(noteId)}`),
  /** The photo's bytes are the body, sent with the file's own type (the server checks its signature). */
  addPhoto: (placeId, noteId, file) => call('POST', `/api/places/${encodeURIComponent(placeId)}/notes/${encodeURIComponent(noteId)}/photos`, file, file.type),
  /** A small copy the browser made (a Blob, JPEG) for a photo the server has no thumbnail of. */
  putThumbnail: (photo, blob) => call('PUT', photo.thumbnailUrl, blob, blob.type),
  /** Search: the user's places and tracks, the geocoder's addresses (when configured), the offline towns; `bbox` the
   *  visible region (`WEST,SOUTH,EAST,NORTH`), searched first. */
  geocode: (q, bbox) => call('GET', '/api/geocode' + query(bbox ? { q, bbox } : { q })),
  reverseGeocode: (latitude, longitude) => call('GET', '/api/geocode/reverse' + query({ lat: latitude, lon: longitude })),
  sharePlace: (id) => call('POST', `/api/places/${encodeURIComponent(id)}/share`),
  labels: () => call('GET', '/api/labels'),
  createLabel: (name, colour) => call('POST', '/api/labels', { name, colour }),
  session: () => call('GET', '/api/session'),
  logout: () => call('POST', '/api/logout'),
  devices: () => call('GET', '/api/devices'),
  createDevice: (name) => call('POST', '/api/devices', { name }),
  rotateDevice: (id) => call('POST', `/api/devices/${encodeURIComponent(id)}/token`),
  deleteDevice: (id) => call('DELETE', `/api/devices/${encodeURIComponent(id)}`),
  liveDevices: () => call('GET', '/api/live/devices'),
  /** Who shares their live position with me (latest shown position each), and whom I share with. */
  family: () => call('GET', '/api/family'),
  /** Share my live position with another user of this server, for `hours` (null: until I stop). */
  shareFamily: (user, hours) => call('POST', '/api/family', { user, hours }),
  stopFamily: (user) => call('DELETE', `/api/family/${encodeURIComponent(user)}`),
  shareDevice: (id, options) => call('POST', `/api/devices/${encodeURIComponent(id)}/share`, options || {}),
  revokeShare: (token) => call('DELETE', `/api/shares/${encodeURIComponent(token)}`),
  /** Everything shared that still works: places, live links, rides. */
  shares: () => call('GET', '/api/shares'),
  shareTrack: (id, options) => call('POST', `/api/tracks/${encodeURIComponent(id)}/share`, options || {}),
  privacyZones: () => call('GET', '/api/privacy-zones'),
  addPrivacyZone: (zone) => call('POST', '/api/privacy-zones', zone),
  deletePrivacyZone: (id) => call('DELETE', `/api/privacy-zones/${encodeURIComponent(id)}`),
  setHiddenEnds: (meters) => call('PATCH', '/api/privacy-zones', { hideEndsMeters: meters }),
};
