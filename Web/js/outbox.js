// The device's queue of what the server has not acknowledged yet, in IndexedDB so that it survives a lost
// network and a reload (DESIGN 2.1): Start, fixes with their sequence numbers, and Pause/Resume/Stop, in order.
//
// Stores: `outbox` (autoIncrement key = order of sending), `meta` (the recording in progress).

const DB_NAME = 'bikeride';
const DB_VERSION = 1;
let opening = null;

function open() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const request = indexedDB.open(DB_NAME, DB_VERSION);
      request.onupgradeneeded = () => {
        const db = request.result;
        if (!db.objectStoreNames.contains('outbox')) db.createObjectStore('outbox', { keyPath: 'key', autoIncrement: true });
        if (!db.objectStoreNames.contains('meta')) db.createObjectStore('meta', { keyPath: 'name' });
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }
  return opening;
}

function done(transaction) {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error || new Error('transaction aborted'));
  });
}

function result(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/**
 * Starts a recording on the device: it becomes the current one and its Start is queued first, in one
 * transaction, so that the fixes and commands queued after it reach the server behind it (DESIGN 2.1: a ride
 * can start with no network). `recording.id` is the device's own id for it (a UUID).
 */
export async function begin(recording, startBody) {
  const db = await open();
  const transaction = db.transaction(['meta', 'outbox'], 'readwrite');
  transaction.objectStore('meta').put({ name: 'current', recording });
  transaction.objectStore('outbox').add({ kind: 'start', recordingId: recording.id, body: startBody });
  await done(transaction);
}

/** Whether the Start of a recording is still queued (the server does not know the recording yet). */
export async function startQueued(recordingId) {
  const entries = await peek(Number.MAX_SAFE_INTEGER);
  return entries.some((entry) => entry.kind === 'start' && entry.recordingId === recordingId);
}

/** The recording in progress on this device: `{id, state, nextSequence, startedAt}`, or null. */
export async function current() {
  const db = await open();
  const transaction = db.transaction('meta', 'readonly');
  const value = await result(transaction.objectStore('meta').get('current'));
  return value ? value.recording : null;
}

export async function setCurrent(recording) {
  const db = await open();
  const transaction = db.transaction('meta', 'readwrite');
  if (recording) transaction.objectStore('meta').put({ name: 'current', recording });
  else transaction.objectStore('meta').delete('current');
  await done(transaction);
}

/**
 * Queues a fix for the recording in progress and gives it the next sequence number, in one transaction
 * with the counter, so that no number is used twice even across reloads. Returns the number.
 * `altitudeReference` ('ellipsoid' or 'seaLevel', for a fix with an altitude) goes with the batch that sends it.
 */
export async function enqueueFix(fix, altitudeReference = null) {
  const db = await open();
  const transaction = db.transaction(['meta', 'outbox'], 'readwrite');
  const meta = transaction.objectStore('meta');
  const entry = await result(meta.get('current'));
  if (!entry || entry.recording.state !== 'recording') {
    transaction.abort();
    return null;
  }
  const sequence = entry.recording.nextSequence;
  entry.recording.nextSequence = sequence + 1;
  meta.put(entry);
  const queued = { kind: 'fix', recordingId: entry.recording.id, fix: { ...fix, sequence } };
  if (altitudeReference) queued.altitudeReference = altitudeReference;
  transaction.objectStore('outbox').add(queued);
  await done(transaction);
  return sequence;
}

/**
 * Queues Pause, Resume or Stop behind the fixes already queued, and records the new state. `entry` adds fields to
 * the queued command (`discard: true` on a Stop: the track is deleted once saved); `recording` to the recording
 * kept as current (`autoPaused`).
 */
export async function enqueueCommand(command, state, { entry: fields = {}, recording: changes = {} } = {}) {
  const db = await open();
  const transaction = db.transaction(['meta', 'outbox'], 'readwrite');
  const meta = transaction.objectStore('meta');
  const entry = await result(meta.get('current'));
  if (!entry) {
    transaction.abort();
    return;
  }
  entry.recording = { ...entry.recording, ...changes, state };
  meta.put(entry);
  transaction.objectStore('outbox').add({ ...fields, kind: 'command', recordingId: entry.recording.id, command });
  await done(transaction);
}

/**
 * Queues a lap mark at `time` (the latest fix's RFC 3339 time, which identifies the lap: sent twice, it is kept
 * once) behind the fixes already queued, so that it reaches the server after the fix it marks. The recording keeps
 * the number of its laps and the last mark's time in the same transaction, so that a reload goes on counting.
 * Returns the number of the lap that starts (2 after the first press), or null when no ride is recording.
 */
export async function enqueueLap(time) {
  const db = await open();
  const transaction = db.transaction(['meta', 'outbox'], 'readwrite');
  const meta = transaction.objectStore('meta');
  const entry = await result(meta.get('current'));
  if (!entry || entry.recording.state !== 'recording') {
    transaction.abort();
    return null;
  }
  const lap = (entry.recording.lapCount || 1) + 1;
  entry.recording.lapCount = lap;
  entry.recording.lastLapTime = time;
  meta.put(entry);
  transaction.objectStore('outbox').add({ kind: 'lap', recordingId: entry.recording.id, time });
  await done(transaction);
  return lap;
}

/**
 * A break in the line: Pause and Resume queued together, so that the server starts a new segment with the next
 * fix (a gap in the fixes is drawn as a gap, not a straight line). The recording stays `recording` on the device.
 */
export async function enqueueBreak() {
  const db = await open();
  const transaction = db.transaction(['meta', 'outbox'], 'readwrite');
  const entry = await result(transaction.objectStore('meta').get('current'));
  if (!entry || entry.recording.state !== 'recording') {
    transaction.abort();
    return false;
  }
  const outbox = transaction.objectStore('outbox');
  outbox.add({ kind: 'command', recordingId: entry.recording.id, command: 'pause', gap: true });
  outbox.add({ kind: 'command', recordingId: entry.recording.id, command: 'resume', gap: true });
  await done(transaction);
  return true;
}

/** Undo of a Discard not sent yet: the queued Stop of `recordingId` saves the ride after all. True when found. */
export async function keepDiscarded(recordingId) {
  const db = await open();
  const transaction = db.transaction('outbox', 'readwrite');
  const store = transaction.objectStore('outbox');
  const entries = await result(store.getAll());
  const entry = entries.find((each) => each.recordingId === recordingId && each.kind === 'command' && each.discard);
  if (entry) {
    delete entry.discard;
    store.put(entry);
  }
  await done(transaction);
  return Boolean(entry);
}

/** The oldest `limit` entries, in order. */
export async function peek(limit) {
  const db = await open();
  const transaction = db.transaction('outbox', 'readonly');
  const entries = [];
  await new Promise((resolve, reject) => {
    const request = transaction.objectStore('outbox').openCursor();
    request.onsuccess = () => {
      const cursor = request.result;
      if (!cursor || entries.length >= limit) return resolve();
      entries.push(cursor.value);
      cursor.continue();
    };
    request.onerror = () => reject(request.error);
  });
  return entries;
}

export async function remove(keys) {
  if (!keys.length) return;
  const db = await open();
  const transaction = db.transaction('outbox', 'readwrite');
  const store = transaction.objectStore('outbox');
  for (const key of keys) store.delete(key);
  await done(transaction);
}

/** Drops everything queued for a recording (the server no longer knows it). */
export async function dropRecording(recordingId) {
  const entries = await peek(Number.MAX_SAFE_INTEGER);
  await remove(entries.filter((entry) => entry.recordingId === recordingId).map((entry) => entry.key));
}

export async function size() {
  const db = await open();
  const transaction = db.transaction('outbox', 'readonly');
  return result(transaction.objectStore('outbox').count());
}

/** What the map showed for the recording in progress (path, breadcrumbs, figures), to redraw it offline. */
export async function saveView(view) {
  const db = await open();
  const transaction = db.transaction('meta', 'readwrite');
  if (view) transaction.objectStore('meta').put({ name: 'view', view });
  else transaction.objectStore('meta').delete('view');
  await done(transaction);
}

export async function loadView() {
  const db = await open();
  const transaction = db.transaction('meta', 'readonly');
  const value = await result(transaction.objectStore('meta').get('view'));
  return value ? value.view : null;
}

/** The route followed (`{id, units, sheet}`: guidance.js's cue sheet with its line), kept for guidance offline. */
export async function saveRouteGuide(guide) {
  const db = await open();
  const transaction = db.transaction('meta', 'readwrite');
  if (guide) transaction.objectStore('meta').put({ name: 'routeGuide', guide });
  else transaction.objectStore('meta').delete('routeGuide');
  await done(transaction);
}

export async function loadRouteGuide() {
  const db = await open();
  const transaction = db.transaction('meta', 'readonly');
  const value = await result(transaction.objectStore('meta').get('routeGuide'));
  return value ? value.guide : null;
}
