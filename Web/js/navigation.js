// Following a route on the Record tab: the Route control (which saved track to follow, remembered for the next
// ride), the next-cue banner and the off-route alert drawn from the server's `navigation` answers, and spoken cues.
// The server does the geometry (docs/server.md, "Following a route"); this module only shows and says it.

import { api, NetworkError } from './api.js';
import * as format from './format.js';
import { announcement, arrow } from './announce.js';
import { speechEnabled } from './settings.js';

const $ = (id) => document.getElementById(id);
const STORAGE_KEY = 'bikeride.route';
const ROUTE_CHOICES = 50;   // the newest tracks; a search box can come when people keep more routes than that

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
    $('route-button').addEventListener('click', () => this.togglePicker());
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
    const list = $('route-options');
    list.replaceChildren(this.option(null, 'No route'));
    $('route-picker').hidden = false;
    $('route-button').setAttribute('aria-expanded', 'true');
    try {
      const page = await api.tracks({ limit: ROUTE_CHOICES });
      for (const track of page.tracks || []) list.append(this.option(track, track.name));
    } catch (error) {
      const item = document.createElement('li');
      item.className = 'route-note';
      item.textContent = error instanceof NetworkError ? 'Offline: the saved tracks cannot be listed.' : error.message;
      list.append(item);
    }
    list.querySelector('button[aria-current="true"]')?.focus();
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
    if (recordingId) {
      try {
        const answer = await api.changeRoute(recordingId, route ? route.id : null);
        this.host.setStatus('');
        this.update(answer.navigation);
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
    if (!route) this.update(undefined);
    await this.drawRoute();
  }

  /** What the Start carries: the route's id, or nothing. */
  startOptions() {
    return this.route ? { routeTrackId: this.route.id } : {};
  }

  renderButton() {
    $('route-button').textContent = this.route ? `Route: ${this.route.name}` : 'Route: none';
    $('route-button').dataset.routeId = this.route ? this.route.id : '';
  }

  // MARK: the banner, the alert, speech

  /** The server's `navigation` (undefined or null: no route followed, and both banners go). */
  update(navigation) {
    const banner = $('cue-banner');
    const alert = $('off-route');
    const view = $('record-view');
    if (!navigation) {
      banner.hidden = true;
      alert.hidden = true;
      delete view.dataset.navigating;
      this.wasOffRoute = false;
      return;
    }
    view.dataset.navigating = 'true';
    if (navigation.offRoute) {
      const away = navigation.distanceFromRouteMeters;
      $('off-route-text').textContent = Number.isFinite(away) ? `Off route — ${format.distance(away)} from the route` : 'Off route';
      alert.hidden = false;
      banner.hidden = true;
      // A buzz once, when the rider leaves the route (not on every answer while off it).
      if (!this.wasOffRoute && 'vibrate' in navigator) navigator.vibrate([200, 100, 200]);
      this.wasOffRoute = true;
      return;
    }
    this.wasOffRoute = false;
    alert.hidden = true;
    const cue = navigation.nextCue;
    if (cue) {
      $('cue-arrow').textContent = arrow(cue.direction, cue.severity);
      $('cue-text').textContent = cue.text;
      banner.dataset.direction = cue.direction;
    } else {
      $('cue-arrow').textContent = '↑';
      $('cue-text').textContent = Number.isFinite(navigation.remainingMeters)
        ? `Follow the route — ${format.distance(navigation.remainingMeters)} to go` : 'Follow the route';
      delete banner.dataset.direction;
    }
    banner.hidden = false;
    this.speak(cue);
  }

  speak(cue) {
    const said = announcement(cue, this.host.speed(), this.spoken);
    if (!said) return;
    this.spoken.add(said.key);
    if (!speechEnabled() || !('speechSynthesis' in window)) return;
    const utterance = new SpeechSynthesisUtterance(said.text);
    utterance.lang = document.documentElement.lang || 'en';
    window.speechSynthesis.speak(utterance);
  }
}
