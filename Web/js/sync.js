// The Record tab's outbox sync: sends the device's queue (outbox.js) to the server, oldest first, in batches,
// retries with a growing delay while the server cannot be reached, and hands each answer to the ride
// (`applyRecording`, `applyUpdate`, `finish`, `savedLater`, `forget`, `detachStopped`: ride.js and record.js).
//
// Positions from the browser go into the outbox (IndexedDB) with sequence numbers; the server answers each batch
// with what to draw (the line, the breadcrumbs, the camera region, the figures, the route guidance). Offline the
// ride goes on and the outbox waits.

import { api, ApiError, NetworkError } from './api.js';
import * as outbox from './outbox.js';

const BATCH_LIMIT = 500;           // fixes per request: a few minutes of riding after a gap, well under the server's limit
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30000;

/** The layer under the ride (ride.js) and the view (record.js): the sending of the outbox. */
export class OutboxSync {
  constructor() {
    this.flushing = false;
    this.retryDelay = RETRY_MIN_MS;
    this.retryTimer = null;
    this.isolating = 0;          // fixes still to send one by one after a refused batch
    this.offline = false;        // the last attempt to reach the server failed
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
              this.navigation.answeredRecording(answer, answer.lastSequence ?? null);
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
        } else if (first.kind === 'lap') {
          // A lap is its time: sent again after a lost answer, the server keeps it once.
          await this.send(first, () => api.addLap(first.recordingId, first.time), async () => { await outbox.remove([first.key]); });
        } else {
          // After a refused batch its fixes go one by one, so that only the bad one is dropped.
          const limit = this.isolating > 0 ? 1 : BATCH_LIMIT;
          // One altitude reference a batch: a fix measured from another one starts the next batch.
          const batch = [];
          let altitudeReference = null;
          for (const entry of entries) {
            if (batch.length >= limit || entry.kind !== 'fix' || entry.recordingId !== first.recordingId) break;
            if (entry.altitudeReference) {
              if (altitudeReference && entry.altitudeReference !== altitudeReference) break;
              altitudeReference = entry.altitudeReference;
            }
            batch.push(entry);
          }
          try {
            await this.send(first, () => api.sendFixes(first.recordingId, batch.map((entry) => entry.fix), altitudeReference), async (answer) => {
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
}
