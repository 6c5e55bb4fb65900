// Following a route on the Record tab: the Route control (which saved track to follow, remembered for the next
// ride), the next-cue banner and the off-route alert drawn from the server's `navigation` answers, and spoken cues.
// The server does the geometry (docs/server.md, "Following a route"); between its answers (offline) guidance.js
// follows the route on the device from the fixes not answered yet, and the server's next answer replaces that.

import { api, NetworkError } from './api.js';
import * as format from './format.js';
import * as outbox from './outbox.js';
import { announcement, arrow } from './announce.js';
import { ProvisionalGuidance, instruction } from './guidance.js';
import { speechEnabled } from './settings.js';

const $ = (id) => document.getElementById(id);
const STORAGE_KEY = 'bikeride.route';
const ARRIVED_METERS = 20;  // this close to the route's end (along it), past its last cue: arrived
const ROUTE_CHOICES = 50;   // the newest routes and tracks matching the search

/** The route chosen for the next ride (or the one in progress): `{id, name}` or null. */
export function chosenRoute() {
  try {
    const route = JSON.parse(localStorage.getItem(STORAGE_KEY));
    return route && typeof route.id === 'string' ? route : null;
  } catch {
    return null;
  }
}

function remember(route) {
  if (route) localStorage.setItem(STORAGE_KEY, JSON.stringify({ id: route.id, name: route.name }));
  else localStorage.removeItem(STORAGE_KEY);
}

export class Navigation {
  /**
   * @param {object} host the Record tab: `map` (to draw the route), `recordingId()` (the ride in progress, or
   *   null), `speed()` (m/s or null), `setStatus(text)`.
   */
  constructor(host) {
    this.host = host;
    this.route = chosenRoute();
    this.spoken = new Set();
    this.wasOffRoute = false;
    this.sheet = null;       // {id, units, sheet}: the route's cue sheet with its line (GET …/cues?line=1)
    this.guidance = null;    // ProvisionalGuidance for the ride in progress, when the sheet is there
    this.lastCue = null;     // the last next cue shown, shown greyed while off route
    this.arrived = false;
    $('route-button').addEventListener('click', () => this.togglePicker());
    let searching = null;
    $('route-search').addEventListener('input', () => {
      clearTimeout(searching);
      searching = setTimeout(() => this.listRoutes($('route-search').value), 200);
    });
    document.addEventListener('keydown', (event) => { if (event.key === 'Escape' && !$('route-picker').hidden) this.closePicker(); });
    this.renderButton();
  }

  /** Draws the remembered route (at mount, and after a reload mid-ride). */
  async drawRoute() {
    const map = this.host.map;
    if (!this.route) { map.setRoute([]); return; }
    const element = $('record-map');
    // Three times the map's size: the line stays smooth when the rider zooms in a little.
    const width = element.clientWidth * 3, height = element.clientHeight * 3;
    try {
      const track = await api.track(this.route.id, width > 0 && height > 0 ? { fit: `${width}x${height}` } : undefined);
      if (this.route && this.route.id === track.id) map.setRoute(track.segments || []);
    } catch (error) {
      if (!(error instanceof NetworkError)) {
        // Deleted since it was chosen, say: the rider learns why no route is drawn (offline, it comes at the next mount).
        this.host.setStatus(`The route “${this.route.name}” could not be loaded: ${error.message}`);
      }
    }
  }

  // MARK: the Route control

  async togglePicker() {
    if (!$('route-picker').hidden) { this.closePicker(); return; }
    $('route-search').value = '';
    $('route-picker').hidden = false;
    $('route-button').setAttribute('aria-expanded', 'true');
    await this.listRoutes('');
    ($('route-options').querySelector('button[aria-current="true"]') || $('route-search')).focus();
  }

  /** The picker's list: "No route", then the routes (kind route), then the other tracks, matching `text`. */
  async listRoutes(text) {
    const asked = (this.listing = (this.listing || 0) + 1);
    const list = $('route-options');
    const items = [this.option(null, 'No route')];
    const q = text.trim() ? { q: text.trim() } : {};
    try {
      const [routes, tracks] = await Promise.all([
        api.tracks({ limit: ROUTE_CHOICES, kind: 'route', ...q }), api.tracks({ limit: ROUTE_CHOICES, ...q })]);
      if (asked !== this.listing) return;  // a later search answered first: it is the one shown
      const others = (tracks.tracks || []).filter((track) => track.kind !== 'route');
      if ((routes.tracks || []).length) items.push(this.heading('Routes'));
      for (const track of routes.tracks || []) items.push(this.option(track, track.name));
      if (others.length) items.push(this.heading('Tracks'));
      for (const track of others) items.push(this.option(track, track.name));
      if (!(routes.tracks || []).length && !others.length && q.q) items.push(this.heading(`Nothing matches “${q.q}”.`));
    } catch (error) {
      if (asked !== this.listing) return;
      items.push(this.heading(error instanceof NetworkError ? 'Offline: the saved tracks cannot be listed.' : error.message));
    }
    list.replaceChildren(...items);
  }

  heading(text) {
    const item = document.createElement('li');
    item.className = 'route-note';
    item.textContent = text;
    return item;
  }

  closePicker() {
    $('route-picker').hidden = true;
    $('route-button').setAttribute('aria-expanded', 'false');
  }

  option(track, label) {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = label;
    const current = (this.route ? this.route.id : null) === (track ? track.id : null);
    if (current) button.setAttribute('aria-current', 'true');
    button.addEventListener('click', () => this.choose(track ? { id: track.id, name: track.name } : null));
    item.append(button);
    return item;
  }

  /**
   * Before Start the choice goes with the Start (queued in the outbox: it works offline). During a ride it is a
   * PATCH, which needs the server: offline it fails, and the rider is told so and keeps the old route.
   */
  async choose(route) {
    this.closePicker();
    const recordingId = this.host.recordingId();
    let answer = null;
    if (recordingId) {
      try {
        answer = await api.changeRoute(recordingId, route ? route.id : null);
        this.host.setStatus('');
      } catch (error) {
        this.host.setStatus(error instanceof NetworkError
          ? 'Offline: the route cannot be changed during a ride without the server. Try again when connected.'
          : `The route could not be changed: ${error.message}`);
        return;
      }
    }
    this.route = route;
    remember(route);
    this.spoken.clear();
    this.renderButton();
    // Drawn at once; the line and cues for guidance come beside it.
    const drawn = this.drawRoute();
    await this.loadGuide();
    if (!route) this.update(undefined);
    else if (answer) {
      this.beginRide();
      this.update(answer.navigation);
    }
    await drawn;
  }

  /** What the Start carries: the route's id, or nothing. */
  startOptions() {
    return this.route ? { routeTrackId: this.route.id } : {};
  }

  renderButton() {
    $('route-button').textContent = this.route ? `Route: ${this.route.name}` : 'Route: none';
    $('route-button').dataset.routeId = this.route ? this.route.id : '';
  }

  // MARK: the route's line and cues on the device, for guidance without the server (guidance.js)

  /** Loads the route's cue sheet with its line (kept on the device, so that a reload offline still has it). */
  async loadGuide() {
    const route = this.route;
    if (!route) { this.sheet = null; return; }
    const units = format.units();
    if (this.sheet && this.sheet.id === route.id && this.sheet.units === units) return;
    try {
      const sheet = await api.routeGuide(route.id, units);
      this.sheet = { id: route.id, units, sheet };
      await outbox.saveRouteGuide(this.sheet).catch(() => undefined);
    } catch (error) {
      const saved = await outbox.loadRouteGuide().catch(() => null);
      this.sheet = saved && saved.id === route.id ? saved : null;
      if (!(error instanceof NetworkError)) console.warn('no route guide', error);
    }
  }

  /** A ride starts (or is opened again after a reload): guidance from the route's start, until the server answers. */
  beginRide() {
    const sheet = this.sheet && this.route && this.sheet.id === this.route.id ? this.sheet : null;
    this.guidance = sheet ? new ProvisionalGuidance(sheet.sheet, sheet.units) : null;
    this.spoken.clear();
    this.wasOffRoute = false;
    this.arrived = false;
  }

  /** A fix queued for the server (`{sequence, latitude, longitude, accuracy, time}`, time in ms): guidance moves on. */
  addFix(fix) {
    if (!this.guidance) return;
    this.guidance.add(fix);
    this.show(this.guidance.navigation());
  }

  // MARK: the banner, the alert, speech

  /**
   * The server's `navigation` with every fix up to `lastSequence` in it (undefined or null: no route followed,
   * and both banners go). Fixes still on the device are followed on from it.
   */
  update(navigation, lastSequence = null) {
    if (!navigation) {
      this.guidance = null;
      this.show(null);
      return;
    }
    if (this.guidance) {
      this.guidance.answered(navigation, lastSequence);
      this.show(this.guidance.navigation());
    } else {
      this.show(navigation);
    }
  }

  /**
   * A whole recording's answer (Start, Pause, Resume, a reload): its `navigation` when it has one; when it has
   * none, guidance stops only if the server follows no route (no `routeTrackId`): a Start's answer has no
   * position to say anything about yet, and the device's guidance goes on.
   */
  answeredRecording(answer, lastSequence = null) {
    if (answer.navigation) this.update(answer.navigation, lastSequence);
    else if (!answer.routeTrackId) this.update(null);
  }

  /** The first cue beyond `progress` metres along the route, as the sheet lists it (the one ahead while off route). */
  cueBeyond(progress) {
    const cues = this.guidance ? this.guidance.guide.cues : [];
    return cues.find((cue) => cue.distanceMeters > progress) || null;
  }

  show(navigation) {
    this.render(navigation);
    // What floats below the stack (the map's tools, the sync status) moves with its height.
    const stack = $('guidance-stack');
    $('record-view').style.setProperty('--guidance-height', `${stack.offsetHeight}px`);
  }

  render(navigation) {
    const banner = $('cue-banner');
    const alert = $('off-route');
    const view = $('record-view');
    if (!navigation) {
      banner.hidden = true;
      alert.hidden = true;
      delete view.dataset.navigating;
      delete view.dataset.offRoute;
      this.wasOffRoute = false;
      return;
    }
    view.dataset.navigating = 'true';
    banner.dataset.provisional = String(Boolean(navigation.provisional));
    const joined = !navigation.state || navigation.state.hasJoined;
    if (navigation.offRoute) {
      const away = navigation.distanceFromRouteMeters;
      $('off-route-text').textContent = Number.isFinite(away) ? `Off route — ${format.distance(away)} from the route` : 'Off route';
      this.showWayBack();
      alert.hidden = false;
      view.dataset.offRoute = 'true';
      // The next cue stays in view, greyed: where the route goes on once the rider is back on it.
      // (Without the route's line on the device, the last cue the server gave.)
      const ahead = this.guidance ? this.cueBeyond(navigation.progressMeters) : this.lastCue;
      if (ahead) {
        $('cue-arrow').textContent = arrow(ahead.direction, ahead.severity);
        $('cue-text').textContent = `Then: ${instruction(ahead.direction, ahead.severity)}`;
        banner.dataset.direction = ahead.direction;
        banner.hidden = false;
      } else {
        banner.hidden = true;
      }
      if (!this.wasOffRoute && joined) {
        // A buzz and the words once, when the rider leaves the route (not on every answer while off it).
        if ('vibrate' in navigator) navigator.vibrate([200, 100, 200]);
        this.say('Off route');
      }
      this.wasOffRoute = joined;
      return;
    }
    if (this.wasOffRoute) this.say('Back on route');
    this.wasOffRoute = false;
    alert.hidden = true;
    delete view.dataset.offRoute;
    const cue = navigation.nextCue;
    this.lastCue = cue || null;
    if (cue) {
      $('cue-arrow').textContent = arrow(cue.direction, cue.severity);
      $('cue-text').textContent = cue.text;
      banner.dataset.direction = cue.direction;
    } else if (Number.isFinite(navigation.remainingMeters) && navigation.remainingMeters <= ARRIVED_METERS && joined) {
      $('cue-arrow').textContent = '⚑';
      $('cue-text').textContent = 'Arrived';
      delete banner.dataset.direction;
      if (!this.arrived) this.say('Arrived');
      this.arrived = true;
    } else {
      $('cue-arrow').textContent = '↑';
      $('cue-text').textContent = Number.isFinite(navigation.remainingMeters)
        ? `Follow the route — ${format.distance(navigation.remainingMeters)} to go` : 'Follow the route';
      delete banner.dataset.direction;
    }
    banner.hidden = false;
    this.speak(cue);
  }

  /** The way back while off route: an arrow towards the nearest point of the route, turned as the screen is. */
  showWayBack() {
    const element = $('way-back-arrow');
    const position = this.host.position ? this.host.position() : null;
    const way = this.guidance && position ? this.guidance.guide.wayBack(position) : null;
    if (!way) { element.hidden = true; return; }
    const turn = way.bearing - (this.host.screenHeading ? this.host.screenHeading() : 0);
    element.style.transform = `rotate(${turn.toFixed(1)}deg)`;
    element.dataset.bearing = way.bearing.toFixed(1);
    element.hidden = false;
  }

  speak(cue) {
    const said = announcement(cue, this.host.speed(), this.spoken);
    if (!said) return;
    this.spoken.add(said.key);
    this.say(said.text);
  }

  say(text) {
    if (!speechEnabled() || !('speechSynthesis' in window)) return;
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = document.documentElement.lang || 'en';
    window.speechSynthesis.speak(utterance);
  }
}
