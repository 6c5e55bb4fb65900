// The Live tab: each device's position, its line of the last 24 hours, when it was last seen and its battery,
// updated from GET /api/live (server-sent events) as fixes arrive. The browser's EventSource reconnects by
// itself after a network loss and sends Last-Event-ID, so the server resends what was missed. Below, the family:
// users of this server who share their position with me (GET /api/family, read again every 15 s).

import { api } from './api.js';
import { escapeHTML, loadLeaflet } from './map.js';
import { date } from './format.js';

const $ = (id) => document.getElementById(id);
const COLOURS = ['#c62828', '#1565c0', '#2e7d32', '#6a1b9a', '#ef6c00', '#00838f'];

export class LiveView {
  constructor(config) {
    this.config = config;
    this.devices = new Map();   // id → { name, lastFix, line, marker, polyline, colour }
    this.source = null;
    this.map = null;
  }

  async show() {
    const data = await api.liveDevices();
    if (await loadLeaflet() && !this.map) {
      this.map = L.map($('live-map'));
      L.tileLayer(this.config.standard.url, { attribution: escapeHTML(this.config.standard.attribution || ''), maxZoom: 19 }).addTo(this.map);
      this.map.setView([0, 0], 2);
    }
    for (const device of data.devices) {
      const entry = this.entry(device.id, device.name);
      entry.lastSeenAt = device.lastSeenAt;
      entry.lastFix = device.lastFix;
      entry.line = device.line;
      this.draw(entry);
    }
    this.render();
    await this.refreshFamily();
    this.fit();
    this.listen(data.lastEventId);
    // Family members' positions are read again every 15 s while the tab is shown (the server answers from the
    // database: a revoked or expired share disappears at the next refresh).
    if (this.familyTimer) clearInterval(this.familyTimer);
    this.familyTimer = setInterval(() => { this.refreshFamily().catch(() => {}); }, 15000);
  }

  hidden() {
    if (this.source) { this.source.close(); this.source = null; }
    if (this.familyTimer) { clearInterval(this.familyTimer); this.familyTimer = null; }
  }

  /** The users who share their live position with me: their latest position (or "hidden near a private place"). */
  async refreshFamily() {
    let data;
    try { data = await api.family(); } catch { return; }
    const section = $('live-family');
    const members = (data && data.available && data.sharedWithMe) || [];
    // A single-user server has no one to share with: no Family section.
    section.hidden = !(data && data.available);
    this.renderSharing((data && data.sharing) || []);
    this.bindFamilyForm();
    this.family = this.family || new Map();   // name → marker
    const seen = new Set();
    const list = $('live-family-list');
    list.replaceChildren(...members.map((member) => {
      seen.add(member.user);
      const item = document.createElement('li');
      item.className = 'live-device live-family-member';
      item.dataset.user = member.user;
      const dot = document.createElement('span');
      dot.className = 'live-family-dot';
      dot.setAttribute('aria-hidden', 'true');
      const name = document.createElement('strong');
      name.textContent = member.user;
      const where = document.createElement('span');
      where.className = 'live-position';
      const seenAt = document.createElement('span');
      seenAt.className = 'live-seen';
      if (member.position) {
        where.textContent = `${member.position.latitude.toFixed(5)}, ${member.position.longitude.toFixed(5)}`;
        seenAt.append('Position at: ');
        const time = document.createElement('time');
        time.dateTime = member.position.time;
        time.textContent = date(member.position.time);
        seenAt.append(time);
      } else {
        where.className = 'live-position live-family-hidden';
        where.textContent = member.hidden ? 'hidden near a private place' : 'no position yet';
      }
      item.append(dot, name, where);
      if (member.position) item.append(seenAt);
      this.drawFamily(member);
      return item;
    }));
    if (members.length === 0) {
      const empty = document.createElement('li');
      empty.textContent = 'No one shares their position with you yet.';
      list.replaceChildren(empty);
    }
    for (const [user, marker] of this.family) {
      if (!seen.has(user) || !members.find((m) => m.user === user && m.position)) { marker.remove(); this.family.delete(user); }
    }
  }

  /** Whom I share my position with, each with when it ends and a Stop button. */
  renderSharing(sharing) {
    $('family-sharing').replaceChildren(...sharing.map((share) => {
      const item = document.createElement('li');
      item.dataset.user = share.user;
      const text = document.createElement('span');
      text.textContent = `${share.user} sees my position ${share.expiresAt ? `until ${date(share.expiresAt)}` : 'until I stop'}`;
      const stop = document.createElement('button');
      stop.type = 'button';
      stop.textContent = 'Stop sharing';
      stop.setAttribute('aria-label', `Stop sharing with ${share.user}`);
      stop.addEventListener('click', async () => {
        try {
          await api.stopFamily(share.user);
          $('family-message').textContent = `${share.user} no longer sees your position.`;
        } catch (error) {
          $('family-message').textContent = error.message;
        }
        await this.refreshFamily();
      });
      item.append(text, stop);
      return item;
    }));
  }

  bindFamilyForm() {
    const form = $('family-share-form');
    if (form.dataset.bound) return;
    form.dataset.bound = 'true';
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const user = $('family-user').value.trim();
      const hours = $('family-hours').value === '' ? null : Number($('family-hours').value);
      try {
        await api.shareFamily(user, hours);
        $('family-message').textContent = `${user} now sees your position in their Live tab and OwnTracks.`;
        $('family-user').value = '';
      } catch (error) {
        $('family-message').textContent = error.message;
      }
      await this.refreshFamily();
    });
  }

  drawFamily(member) {
    if (!this.map || !member.position) return;
    const position = [member.position.latitude, member.position.longitude];
    let marker = this.family.get(member.user);
    if (!marker) {
      marker = L.circleMarker(position, { radius: 8, color: '#6a1b9a', weight: 3, fillColor: '#fff', fillOpacity: 1 })
        .bindTooltip(escapeHTML(member.user)).addTo(this.map);
      this.family.set(member.user, marker);
    } else {
      marker.setLatLng(position);
    }
  }

  entry(id, name) {
    if (!this.devices.has(id)) {
      this.devices.set(id, { id, name: name || id, line: [], lastFix: null, colour: COLOURS[this.devices.size % COLOURS.length] });
    }
    return this.devices.get(id);
  }

  listen(lastEventId) {
    if (this.source) this.source.close();
    this.source = new EventSource(`/api/live?lastEventId=${encodeURIComponent(lastEventId)}`);
    this.source.addEventListener('fix', (event) => {
      const fix = JSON.parse(event.data);
      const entry = this.entry(fix.deviceId);
      entry.lastFix = fix;
      entry.lastSeenAt = new Date().toISOString();
      entry.line.push([fix.latitude, fix.longitude]);
      this.draw(entry);
      this.render();
    });
    this.source.addEventListener('open', () => { $('live-status').textContent = 'Connected: positions appear as they arrive.'; });
    this.source.addEventListener('error', () => { $('live-status').textContent = 'Reconnecting…'; });
  }

  draw(entry) {
    if (!this.map || !entry.lastFix) return;
    const position = [entry.lastFix.latitude, entry.lastFix.longitude];
    if (!entry.polyline) entry.polyline = L.polyline(entry.line, { color: entry.colour, weight: 4 }).addTo(this.map);
    else entry.polyline.setLatLngs(entry.line);
    if (!entry.marker) {
      entry.marker = L.circleMarker(position, { radius: 8, color: '#fff', weight: 2, fillColor: entry.colour, fillOpacity: 1 })
        .bindTooltip(escapeHTML(entry.name)).addTo(this.map);
    } else {
      entry.marker.setLatLng(position);
    }
  }

  fit() {
    if (!this.map) return;
    // Each device's position and its line of the day.
    const points = [...this.devices.values()].flatMap((d) => (d.lastFix ? [[d.lastFix.latitude, d.lastFix.longitude], ...d.line] : d.line))
      .concat([...(this.family || new Map()).values()].map((marker) => { const p = marker.getLatLng(); return [p.lat, p.lng]; }));
    if (points.length) this.map.fitBounds(L.latLngBounds(points).pad(0.2), { maxZoom: 16 });
  }

  render() {
    const list = $('live-devices');
    const items = [...this.devices.values()].map((device) => {
      const fix = device.lastFix;
      const battery = fix && fix.batteryPercent != null ? `${Math.round(fix.batteryPercent)} %` : '–';
      const where = fix ? `${fix.latitude.toFixed(5)}, ${fix.longitude.toFixed(5)}` : 'no position yet';
      return `<li class="live-device" data-device="${escapeHTML(device.id)}">
        <span class="live-dot" style="background:${device.colour}" aria-hidden="true"></span>
        <strong>${escapeHTML(device.name)}</strong>
        <span class="live-position">${escapeHTML(where)}</span>
        <span class="live-seen">Last seen: <time>${fix ? escapeHTML(date(fix.time)) : 'never'}</time></span>
        <span class="live-battery">Battery: ${escapeHTML(battery)}</span>
      </li>`;
    });
    list.innerHTML = items.join('') || '<li>No devices yet: add one in Settings → Devices.</li>';
  }
}
