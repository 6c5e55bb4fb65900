// Settings → Privacy zones and Shared links (issue 23): circles placed by tapping a map, with a radius slider;
// the metres hidden at each end of every ride; the list of everything shared (places, live links, rides), each
// with Revoke. And the track page's Share action. The server applies the zones; this page only edits them.

import { api } from './api.js';
import { loadLeaflet, RideMap } from './map.js';

const $ = (id) => document.getElementById(id);
const KIND_NAMES = { place: 'Place', live: 'Live position', ride: 'Ride' };

export class PrivacyView {
  constructor(config) {
    this.config = config;
    this.map = null;
    this.draft = null;       // {latitude, longitude} of a zone being placed
    this.draftCircle = null;
    this.zoneLayer = null;
    const radius = $('privacy-radius');
    radius.addEventListener('input', () => {
      $('privacy-radius-value').textContent = `${radius.value} m`;
      if (this.draftCircle) this.draftCircle.setRadius(Number(radius.value));
    });
    $('privacy-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!this.draft) return;
      try {
        await api.addPrivacyZone({
          latitude: this.draft.latitude, longitude: this.draft.longitude, radiusMeters: Number(radius.value),
          name: $('privacy-name').value.trim() || null,
        });
        this.say('Zone added.');
        this.clearDraft();
        $('privacy-name').value = '';
        await this.refresh();
      } catch (error) {
        this.say(error.message || 'The zone could not be added.');
      }
    });
    const ends = $('privacy-ends');
    ends.addEventListener('input', () => { $('privacy-ends-value').textContent = `${ends.value} m`; });
    ends.addEventListener('change', async () => {
      try {
        await api.setHiddenEnds(Number(ends.value));
        this.say(`The first and last ${ends.value} m of shared rides are hidden.`);
      } catch (error) {
        this.say(error.message || 'Not saved.');
      }
    });
  }

  say(text) { $('privacy-message').textContent = text; }

  async show() {
    if (!this.map && await loadLeaflet()) {
      const element = $('privacy-map');
      this.map = L.map(element, { zoomControl: true, attributionControl: true, worldCopyJump: true });
      this.map.setView([37.3318, -122.0312], 12);
      RideMap.prototype.makeLayers.call(this, this.config).standard.forEach((layer) => layer.addTo(this.map));
      this.zoneLayer = L.layerGroup().addTo(this.map);
      this.map.on('click', (event) => this.place(event.latlng.wrap()));
    }
    await this.refresh();
    if (this.map) setTimeout(() => this.map.invalidateSize(), 0);
  }

  /** A tap on the map: the centre of a new zone, shown as a dashed circle until added. */
  place(at) {
    this.draft = { latitude: at.lat, longitude: at.lng };
    const radius = Number($('privacy-radius').value);
    if (this.draftCircle) this.draftCircle.remove();
    this.draftCircle = L.circle(at, { radius, color: '#1565c0', dashArray: '6 4', weight: 2 }).addTo(this.map);
    $('privacy-add').disabled = false;
    this.say(`New zone at ${at.lat.toFixed(5)}, ${at.lng.toFixed(5)}: choose its radius, then Add zone.`);
  }

  clearDraft() {
    this.draft = null;
    if (this.draftCircle) this.draftCircle.remove();
    this.draftCircle = null;
    $('privacy-add').disabled = true;
  }

  async refresh() {
    const settings = await api.privacyZones();
    const list = $('privacy-zones');
    list.replaceChildren();
    if (this.zoneLayer) this.zoneLayer.clearLayers();
    const circles = [];
    for (const zone of settings.zones) {
      const item = document.createElement('li');
      const label = document.createElement('span');
      label.textContent = `${zone.name || 'Zone'} · ${zone.latitude.toFixed(4)}, ${zone.longitude.toFixed(4)} · ${Math.round(zone.radiusMeters)} m`;
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.textContent = 'Remove';
      remove.setAttribute('aria-label', `Remove zone ${zone.name || ''}`.trim());
      remove.addEventListener('click', async () => {
        await api.deletePrivacyZone(zone.id);
        await this.refresh();
      });
      item.append(label, ' ', remove);
      list.append(item);
      if (this.zoneLayer) {
        const circle = L.circle([zone.latitude, zone.longitude], { radius: zone.radiusMeters, color: '#c62828', weight: 2, fillOpacity: 0.15 });
        circle.addTo(this.zoneLayer);
        circles.push(circle);
      }
    }
    if (!settings.zones.length) {
      const item = document.createElement('li');
      item.className = 'hint';
      item.textContent = 'No privacy zones yet.';
      list.append(item);
    }
    if (this.map && circles.length && !this.draft) this.map.fitBounds(L.featureGroup(circles).getBounds(), { padding: [20, 20] });
    $('privacy-ends').value = String(settings.hideEndsMeters);
    $('privacy-ends-value').textContent = `${Math.round(settings.hideEndsMeters)} m`;
    await this.refreshShares();
  }

  async refreshShares() {
    const { shares } = await api.shares();
    const list = $('shared-links');
    list.replaceChildren();
    for (const share of shares) {
      const item = document.createElement('li');
      // Tokens are kept hashed: the link was shown once, when made; here each is named and can be revoked.
      const link = document.createElement('span');
      link.textContent = `${KIND_NAMES[share.kind] || share.kind}: ${share.name || share.targetId}`;
      const when = document.createElement('span');
      when.className = 'hint';
      when.textContent = share.expiresAt ? ` until ${new Date(share.expiresAt).toLocaleString()}` : ' until revoked';
      const revoke = document.createElement('button');
      revoke.type = 'button';
      revoke.textContent = 'Revoke';
      revoke.setAttribute('aria-label', `Revoke ${link.textContent}`);
      revoke.addEventListener('click', async () => {
        await api.revokeShare(share.id);
        await this.refreshShares();
      });
      item.append(link, when, ' ', revoke);
      list.append(item);
    }
    if (!shares.length) {
      const item = document.createElement('li');
      item.className = 'hint';
      item.textContent = 'Nothing shared.';
      list.append(item);
    }
  }
}

/** The track page's Share action: the options, then the link (read-only, through the privacy zones). */
export function setUpTrackShare(currentTrackId) {
  const form = $('track-share-form');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const result = $('track-share-result');
    const days = form.elements.expiresInDays.value;
    const options = {
      hideStartTime: form.elements.hideStartTime.checked,
      hideHeartRate: form.elements.hideHeartRate.checked,
      hidePower: form.elements.hidePower.checked,
    };
    if (days) options.expiresInDays = Number(days);
    try {
      const share = await api.shareTrack(currentTrackId(), options);
      const url = new URL(share.url, location.origin).href;
      const link = document.createElement('a');
      link.id = 'track-share-link';
      link.href = url;
      link.target = '_blank';
      link.rel = 'noopener';
      link.textContent = url;
      result.replaceChildren('Anyone with this link sees the ride; nothing inside your privacy zones is shown: ', link);
    } catch (error) {
      result.textContent = error.message || 'The link could not be made.';
    }
    result.hidden = false;
  });
}
