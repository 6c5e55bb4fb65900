// Settings → Devices: the phone apps that post positions. Adding one (or a new token) shows, once, the token
// and for each app the exact URL and settings to paste; Revoke removes a device. Also: who is logged in, Log out.

import { api } from './api.js';
import { escapeHTML } from './map.js';

const $ = (id) => document.getElementById(id);
const APPS = { owntracks: 'OwnTracks (HTTP mode)', overland: 'Overland', osmand: 'Traccar Client / OsmAnd', gpslogger: 'GPSLogger (custom URL)' };

/** A figure with the QR code (an SVG document) as an image and a caption, built as elements, not markup. */
function qrFigure(svg, label, caption) {
  const figure = document.createElement('figure');
  figure.className = 'qr';
  const image = document.createElement('img');
  image.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg);
  image.alt = label;
  image.width = 180;
  image.height = 180;
  const text = document.createElement('figcaption');
  text.className = 'hint';
  text.textContent = caption;
  figure.append(image, text);
  return figure;
}

export class DevicesView {
  constructor() {
    $('device-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      const name = $('device-name').value.trim();
      if (!name) return;
      const device = await api.createDevice(name);
      $('device-name').value = '';
      this.showSetup(device);
      await this.refresh();
    });
    $('logout-button').addEventListener('click', async () => {
      await api.logout();
      location.assign('/login.html');
    });
  }

  async show() {
    try {
      const session = await api.session();
      $('account-name').textContent = session.user ? session.user.name : '';
      $('account').hidden = !session.accounts;
    } catch { /* offline: the rest still shows */ }
    await this.refresh();
  }

  async refresh() {
    const { devices } = await api.devices();
    const list = $('device-list');
    list.innerHTML = devices.map((device) => `<li data-device="${escapeHTML(device.id)}">
      <strong>${escapeHTML(device.name)}</strong>
      <span class="hint">${device.lastSeenAt ? 'last seen ' + escapeHTML(new Date(device.lastSeenAt).toLocaleString()) : 'never seen'}</span>
      <button type="button" data-action="share">Share live (4 h)</button>
      <button type="button" data-action="rotate">New token</button>
      <button type="button" data-action="revoke">Revoke</button>
    </li>`).join('') || '<li class="hint">No devices yet.</li>';
    for (const button of list.querySelectorAll('button')) {
      button.addEventListener('click', async () => {
        const id = button.closest('li').dataset.device;
        if (button.dataset.action === 'revoke') {
          await api.deleteDevice(id);
          $('device-setup').hidden = true;
        } else if (button.dataset.action === 'share') {
          this.showShare(await api.shareDevice(id, { hours: 4 }));
          return;
        } else {
          this.showSetup(await api.rotateDevice(id));
        }
        await this.refresh();
      });
    }
  }

  /** A live link for family: read-only, expires, revocable here. */
  showShare(share) {
    const url = new URL(share.url, location.origin).href;
    const setup = $('device-setup');
    setup.innerHTML = `<h3>Live link</h3><p><a id="live-share-link" href="${escapeHTML(url)}" target="_blank" rel="noopener">${escapeHTML(url)}</a></p>
      <p class="hint">Anyone with this link sees the position and path until ${escapeHTML(new Date(share.expiresAt).toLocaleString())}.</p>
      <button type="button" id="live-share-revoke">Stop sharing</button>`;
    setup.hidden = false;
    $('live-share-revoke').addEventListener('click', async () => {
      await api.revokeShare(share.token);
      setup.hidden = true;
    });
  }

  showSetup(device) {
    const rows = Object.entries(APPS).map(([key, title]) => {
      const app = device.setup[key];
      const settings = Object.entries(app.settings).map(([name, value]) =>
        `<dt>${escapeHTML(name)}</dt><dd><code>${escapeHTML(value)}</code> <button type="button" class="copy" data-copy="${escapeHTML(value)}" aria-label="Copy ${escapeHTML(title)} ${escapeHTML(name)}">Copy</button></dd>`).join('');
      return `<section data-app="${escapeHTML(key)}"><h4>${escapeHTML(title)}</h4><dl>${settings}</dl></section>`;
    }).join('');
    // A phone cannot reach the loopback address the browser used: say what to do instead of letting it fail quietly.
    const urls = Object.values(device.setup).flatMap((app) => Object.values(app.settings)).filter((value) => /^https?:\/\//.test(value));
    const loopback = urls.some((value) => {
      try { return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(value).hostname); } catch { return false; }
    });
    const warning = loopback
      ? `<p class="record-warning" id="device-loopback">A phone cannot reach this server at ${escapeHTML(new URL(urls[0]).host)}: start it with <code>--host 0.0.0.0</code> and <code>--public-url</code> set to the address the phone uses (see the README, “Phones”).</p>`
      : '';
    $('device-setup').innerHTML = `<h3>Set up ${escapeHTML(device.name)}</h3>${warning}
      <p>Token (shown only now): <code id="device-token">${escapeHTML(device.token)}</code> <button type="button" class="copy" data-copy="${escapeHTML(device.token)}" aria-label="Copy the token">Copy</button></p>${rows}`;
    // Each app's URL as a QR code the phone's camera reads (the server draws it: RideKit's QRCode). An SVG in an
    // <img> runs nothing; the URL it holds is text the server made.
    for (const section of $('device-setup').querySelectorAll('section[data-app]')) {
      const app = device.setup[section.dataset.app];
      if (app && app.qrSVG) section.append(qrFigure(app.qrSVG, `QR code of the ${APPS[section.dataset.app]} URL`, 'Scan with the phone to open or copy the URL.'));
    }
    if (device.tokenQRSVG) $('device-token').parentElement.after(qrFigure(device.tokenQRSVG, 'QR code of the token', 'The token, to scan where an app asks for it.'));
    for (const button of $('device-setup').querySelectorAll('button.copy')) {
      button.addEventListener('click', async () => {
        try {
          await navigator.clipboard.writeText(button.dataset.copy);
          button.textContent = 'Copied';
        } catch {
          button.textContent = 'Select and copy';
        }
        setTimeout(() => { button.textContent = 'Copy'; }, 2000);
      });
    }
    $('device-setup').hidden = false;
  }
}
