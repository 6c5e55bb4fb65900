// The Places tab: a map of the user's pins, the list (sorted, filtered, searched), and a place's page with its
// labels, notes and photos, directions and share link.
//
// A delete is sent at once; Undo asks the server to restore the place (it keeps deleted places 30 days), so
// nothing waits in the page and a closed tab loses nothing. The last list is kept in localStorage and shown when
// the server cannot be reached. The map's search box finds the user's places and tracks and towns (the server's
// offline gazetteer) as the user types, the visible region first; with a geocoder on the server (`config.geocoder`)
// it finds addresses too (on Find only: the service takes one request a second) and a new pin's address is looked up.

import { api, NetworkError } from './api.js';
import * as format from './format.js';
import { openPlacesMap } from './map.js';
import { makeSwipeable } from './swipe.js';

const $ = (id) => document.getElementById(id);
const UNDO_MS = 5000;
const LIST_CACHE = 'bikeride.places';
const LIST_LIMIT = 1000;
const SEARCH_DELAY_MS = 250;     // search as you type, without a request for every key
const THUMBNAIL_EDGE_PX = 256;   // the longer side of a thumbnail the browser makes (the list shows 5 rem)
// A pin without a label: dark slate, never the blue of the rider's own dot.
const UNLABELLED_PIN_COLOUR = '#37474f';
const LABEL_COLOURS = ['#e53935', '#3949ab', '#43a047', '#fb8c00', '#8e24aa', '#00897b', '#6d4c41'];

/** What a failed change says: offline is said plainly, and that nothing was saved. */
function notSaved(error, what) {
  if (error instanceof NetworkError) return `Not saved: the server cannot be reached (offline). ${what} was not changed.`;
  return `Not saved: ${error.message}`;
}

function coordinates(place) {
  return `${place.latitude.toFixed(6)}, ${place.longitude.toFixed(6)}`;
}

export class PlacesView {
  constructor(config) {
    this.config = config;
    this.map = null;
    this.mapOpening = null;
    this.position = null;     // {latitude, longitude} when the device said
    this.labels = [];
    this.places = [];
    this.listCalls = 0;          // loadList calls so far: only the latest one draws
    this.hiddenIds = new Set();  // deleted here, until the server's list no longer has them
    this.pendingDelete = null;   // {place, timer}: the last delete, which Undo restores
    this.place = null;        // the place shown on its page
    this.draft = null;        // {latitude, longitude} of the pin being named
    this.searchTimer = null;
    this.findTimer = null;
    this.findSequence = 0;     // answers to older searches are dropped

    $('place-add').addEventListener('click', () => {
      const at = this.map ? this.map.centre() : this.position;
      if (at) this.startNew(at.latitude, at.longitude);
      else this.say('places-message', 'Without the map or your position there is no centre to place a pin at.');
    });
    $('place-new').addEventListener('submit', (event) => { event.preventDefault(); this.saveNew(); });
    $('place-new-cancel').addEventListener('click', () => this.closeNew());
    $('place-query').addEventListener('input', () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = setTimeout(() => this.loadList(), SEARCH_DELAY_MS);
    });
    $('place-sort').addEventListener('change', () => this.loadList());
    $('place-label').addEventListener('change', () => this.loadList());
    $('place-undo-button').addEventListener('click', () => this.undoDelete());
    $('place-search').addEventListener('submit', (event) => { event.preventDefault(); this.searchAddress(); });
    // Without a geocoder every search is the server's own (towns, places, tracks): search as the user types.
    $('place-search-query').addEventListener('input', () => {
      if (config.geocoder) return;
      clearTimeout(this.findTimer);
      this.findTimer = setTimeout(() => this.searchAddress(), SEARCH_DELAY_MS);
    });

    $('place-edit').addEventListener('submit', (event) => { event.preventDefault(); this.saveFields(); });
    $('place-labels').addEventListener('change', () => this.saveLabels());
    $('place-copy').addEventListener('click', () => this.copy(coordinates(this.place), 'Coordinates copied.'));
    $('place-share').addEventListener('click', () => this.share());
    $('place-send').addEventListener('click', () => {
      navigator.share({ title: this.place.name, url: $('place-share-link').value }).catch(() => { /* the user closed it */ });
    });
    $('note-add').addEventListener('submit', (event) => { event.preventDefault(); this.addNote(); });
    $('place-delete').addEventListener('click', () => {
      const place = this.place;
      location.hash = '#/places';
      this.deleteWithUndo(place);
    });
  }

  say(id, text) { $(id).textContent = text; }

  /** Asks the device once where it is; the answer sorts the list and centres the map. */
  locate() {
    if (this.locating) return this.locating;
    this.locating = new Promise((resolve) => {
      if (!navigator.geolocation) { resolve(null); return; }
      navigator.geolocation.getCurrentPosition(
        (fix) => {
          this.position = { latitude: fix.coords.latitude, longitude: fix.coords.longitude };
          resolve(this.position);
        },
        () => resolve(null),
        { enableHighAccuracy: false, timeout: 10000, maximumAge: 60000 });
    });
    return this.locating;
  }

  async showList() {
    if (!this.mapOpening) {
      this.mapOpening = openPlacesMap($('places-map'), this.config, {
        onPlace: (latitude, longitude) => this.startNew(latitude, longitude),
        onPin: (id) => { location.hash = `#/places/${encodeURIComponent(id)}`; },
      }).then((map) => {
        this.map = map;
        if (map) map.setPins(this.places.filter((place) => !this.hiddenIds.has(place.id)));
        this.locate().then((at) => { if (at && map) map.showMe(at.latitude, at.longitude, 15); });
        return map;
      });
    }
    // The list does not wait for the map library, which may take its whole time limit not to come.
    this.mapOpening.then((map) => { if (map) map.resized(); });
    await Promise.all([this.loadLabels(), this.locate()]);
    await this.loadList();
  }

  async loadLabels() {
    try {
      this.labels = (await api.labels()).labels;
      // The new-label box suggests the labels there are (typing one's name picks that label).
      $('place-label-names').replaceChildren(...this.labels.map((label) => new Option(label.name)));
    } catch {
      return;  // the list says whether the server is there
    }
    const filter = $('place-label');
    const chosen = filter.value;
    filter.replaceChildren(new Option('All labels', ''), ...this.labels.map((label) => new Option(label.name, label.id)));
    filter.value = this.labels.some((label) => label.id === chosen) ? chosen : '';
  }

  async loadList() {
    // Only the latest call draws: a search typed on while an earlier one is answered, or a list loaded again after an
    // undo, is not drawn over by an answer that comes later for an older call.
    const call = ++this.listCalls;
    const params = { limit: LIST_LIMIT };
    let sort = $('place-sort').value;
    if (sort === 'distance' && !this.position) sort = 'created';
    params.sort = sort;
    if (this.position) params.near = `${this.position.latitude},${this.position.longitude}`;
    if ($('place-label').value) params.label = $('place-label').value;
    const q = $('place-query').value.trim();
    if (q) params.q = q;
    try {
      const places = (await api.places(params)).places;
      if (call !== this.listCalls) return;
      this.places = places;
      localStorage.setItem(LIST_CACHE, JSON.stringify({ places: this.places, savedAt: new Date().toISOString() }));
      this.say('places-message', $('place-sort').value === 'distance' && !this.position
        ? 'Your position is not known: sorted by date.' : (this.places.length ? '' : 'No places yet.'));
    } catch (error) {
      if (call !== this.listCalls) return;
      if (!(error instanceof NetworkError)) { this.say('places-message', `Could not load the places: ${error.message}`); return; }
      let cached = null;
      try { cached = JSON.parse(localStorage.getItem(LIST_CACHE) || 'null'); } catch { cached = null; }
      this.places = cached ? cached.places : [];
      this.say('places-message', cached ? 'offline — showing the last list' : 'offline — and no list was saved on this device yet');
    }
    this.render();
  }

  render() {
    const visible = this.places.filter((place) => !this.hiddenIds.has(place.id));
    $('place-list').replaceChildren(...visible.map((place) => this.row(place)));
    if (this.map) this.map.setPins(visible);
  }

  row(place) {
    const item = document.createElement('li');
    item.dataset.placeId = place.id;
    const reveal = document.createElement('div');
    reveal.className = 'swipe-reveal';
    reveal.setAttribute('aria-hidden', 'true');
    reveal.textContent = 'Delete';
    const content = document.createElement('div');
    content.className = 'track-row';
    const dot = document.createElement('span');
    dot.className = 'place-dot';
    dot.style.background = place.labels && place.labels.length ? place.labels[0].colour : UNLABELLED_PIN_COLOUR;
    const link = document.createElement('a');
    link.href = `#/places/${encodeURIComponent(place.id)}`;
    const name = document.createElement('strong');
    name.textContent = place.name;
    const details = document.createElement('span');
    const parts = [];
    if (place.distanceMeters !== undefined) parts.push(format.distance(place.distanceMeters));
    if (place.labels && place.labels.length) parts.push(place.labels.map((label) => label.name).join(', '));
    if (place.address) parts.push(place.address);
    details.textContent = parts.join(' · ');
    link.append(name, document.createElement('br'), details);
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'delete';
    remove.textContent = 'Delete';
    remove.setAttribute('aria-label', `Delete ${place.name}`);
    remove.addEventListener('click', () => this.deleteWithUndo(place));
    content.append(dot, link, remove);
    item.append(reveal, content);
    makeSwipeable(item, content, () => this.deleteWithUndo(place));
    return item;
  }

  /** Deletes on the server at once; the bar offers Undo (a server restore) for a while. */
  async deleteWithUndo(place) {
    const row = document.querySelector(`#place-list li[data-place-id="${CSS.escape(place.id)}"]`);
    const hadFocus = row && row.contains(document.activeElement);
    this.hiddenIds.add(place.id);
    this.render();
    try {
      await api.deletePlace(place.id);
    } catch (error) {
      this.hiddenIds.delete(place.id);
      this.render();
      this.say('places-message', error instanceof NetworkError
        ? `Not deleted: the server cannot be reached (offline). ${place.name} is still there.`
        : `Could not delete ${place.name}: ${error.message}`);
      return;
    }
    this.places = this.places.filter((other) => other.id !== place.id);
    this.hiddenIds.delete(place.id);
    this.render();
    if (this.pendingDelete) clearTimeout(this.pendingDelete.timer);
    $('place-undo-text').textContent = `Deleted ${place.name}.`;
    $('place-undo-bar').hidden = false;
    if (hadFocus) $('place-undo-button').focus();
    this.pendingDelete = { place, timer: setTimeout(() => this.endUndo(), UNDO_MS) };
  }

  endUndo() {
    if (this.pendingDelete) clearTimeout(this.pendingDelete.timer);
    this.pendingDelete = null;
    $('place-undo-bar').hidden = true;
  }

  async undoDelete() {
    const pending = this.pendingDelete;
    if (!pending) return;
    this.endUndo();
    try {
      await api.restorePlace(pending.place.id);
    } catch (error) {
      this.say('places-message', error instanceof NetworkError
        ? `Not restored: the server cannot be reached (offline). ${pending.place.name} stays deleted for now.`
        : `Could not restore ${pending.place.name}: ${error.message}`);
      return;
    }
    await this.loadList();
    this.say('places-message', `Restored ${pending.place.name}.`);
  }

  /**
   * Search: the results are buttons. A town or one of the user's places moves the map there; a track fits the map
   * to it; an address (the geocoder's) moves the map and starts a pin there.
   */
  async searchAddress() {
    const q = $('place-search-query').value.trim();
    const sequence = ++this.findSequence;
    if (!q) {
      $('place-search-results').replaceChildren();
      this.say('place-search-message', '');
      this.say('place-search-attribution', '');
      return;
    }
    this.say('place-search-message', 'Searching…');
    let answer;
    try {
      answer = await api.geocode(q, this.map ? this.map.visibleBox() : null);
    } catch (error) {
      if (sequence !== this.findSequence) return;
      this.say('place-search-message', error instanceof NetworkError ? 'Search needs the server (offline).' : `Search failed: ${error.message}`);
      return;
    }
    if (sequence !== this.findSequence) return;
    const results = answer.results;
    this.say('place-search-message', results.length
      ? (answer.geocoderError ? `Addresses: ${answer.geocoderError}` : '')
      : `Nothing found for “${q}”.`);
    this.say('place-search-attribution', answer.attribution || '');
    $('place-search-results').replaceChildren(...results.map((result) => {
      const item = document.createElement('li');
      const choose = document.createElement('button');
      choose.type = 'button';
      choose.className = `place-search-${result.kind || 'address'}`;
      const what = { place: 'Your place', track: 'Your track', town: 'Town', address: 'Address' }[result.kind] || 'Address';
      const kind = document.createElement('span');
      kind.className = 'place-search-kind';
      kind.textContent = `${what}: `;
      const label = result.kind === 'town' && result.name && !result.address.startsWith(result.name)
        ? `${result.name}, ${result.address.split(', ').slice(1).join(', ')}`
        : (result.kind === 'place' && result.address !== result.name ? `${result.name}, ${result.address}` : result.address);
      choose.append(kind, label);
      choose.addEventListener('click', () => {
        $('place-search-results').replaceChildren();
        this.say('place-search-attribution', '');
        if (result.kind === 'town') {
          if (this.map) this.map.goTo(result.latitude, result.longitude, 13);
        } else if (result.kind === 'place') {
          if (this.map) this.map.goTo(result.latitude, result.longitude, 17);
        } else if (result.kind === 'track') {
          if (this.map && result.bounds) this.map.goToBounds(result.bounds);
        } else {
          if (this.map) this.map.goTo(result.latitude, result.longitude, 17);
          this.startNew(result.latitude, result.longitude, { name: result.name || '', address: result.address });
        }
      });
      item.append(choose);
      return item;
    }));
  }

  /** Fills the new pin's address from the geocoder, unless the user typed one meanwhile. */
  async lookUpAddress(draft) {
    if (!this.config.geocoder) return;
    let answer;
    try { answer = await api.reverseGeocode(draft.latitude, draft.longitude); } catch { return; }
    if (this.draft !== draft || !answer.result || $('place-new-address').value.trim()) return;
    $('place-new-address').value = answer.result.address;
  }

  labelChoices(fieldset, chosenIds) {
    const legend = fieldset.querySelector('legend');
    const choices = this.labels.map((label) => {
      const wrapper = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.value = label.id;
      box.checked = chosenIds.includes(label.id);
      const swatch = document.createElement('span');
      swatch.className = 'place-dot';
      swatch.style.background = label.colour;
      wrapper.append(box, swatch, ` ${label.name}`);
      return wrapper;
    });
    fieldset.replaceChildren(legend, ...choices);
    if (!choices.length) fieldset.append('No labels yet.');
  }

  chosenLabels(fieldset) {
    return [...fieldset.querySelectorAll('input:checked')].map((box) => box.value);
  }

  startNew(latitude, longitude, found) {
    this.draft = { latitude, longitude };
    if (this.map) this.map.setDraft(latitude, longitude);
    $('place-new').reset();
    this.labelChoices($('place-new-labels'), []);
    if (found) {
      $('place-new-name').value = found.name;
      $('place-new-address').value = found.address;
    } else {
      this.lookUpAddress(this.draft);
    }
    $('place-new-position').textContent = coordinates(this.draft);
    this.say('place-new-message', '');
    $('place-new').hidden = false;
    $('place-new').scrollIntoView({ block: 'nearest' });
    $('place-new-name').focus();
  }

  closeNew() {
    this.draft = null;
    if (this.map) this.map.setDraft();
    $('place-new').reset();
    $('place-new').hidden = true;
  }

  async saveNew() {
    const body = { name: $('place-new-name').value.trim(), latitude: this.draft.latitude, longitude: this.draft.longitude };
    const address = $('place-new-address').value.trim();
    if (address) body.address = address;
    try {
      const labels = this.chosenLabels($('place-new-labels'));
      const newLabel = $('place-new-label').value.trim();
      if (newLabel) {
        // A name that is already a label's (in any case, spaces aside) is that label, not a second one.
        const key = newLabel.replace(/\s+/g, ' ').toLocaleLowerCase();
        const known = this.labels.find((label) => label.name.replace(/\s+/g, ' ').trim().toLocaleLowerCase() === key);
        const label = known || await api.createLabel(newLabel, LABEL_COLOURS[this.labels.length % LABEL_COLOURS.length]);
        if (!labels.includes(label.id)) labels.push(label.id);
      }
      if (labels.length) body.labels = labels;
      const place = await api.createPlace(body);
      this.closeNew();
      location.hash = `#/places/${encodeURIComponent(place.id)}`;
    } catch (error) {
      this.say('place-new-message', notSaved(error, 'The place'));
    }
  }

  async showPlace(id) {
    this.say('place-message', '');
    $('place-share-link').hidden = true;
    $('place-send').hidden = true;
    this.locate();
    let place;
    try {
      [place] = await Promise.all([api.place(id), this.loadLabels()]);
    } catch (error) {
      place = this.places.find((candidate) => candidate.id === id) || this.cachedPlace(id);
      if (!place) { this.say('place-message', `Could not load the place: ${error.message}`); return; }
      this.say('place-message', error instanceof NetworkError ? 'offline — showing what this device last saw' : error.message);
    }
    this.place = place;
    this.showFields();
    this.showNotes();
  }

  cachedPlace(id) {
    try { return (JSON.parse(localStorage.getItem(LIST_CACHE) || 'null') || { places: [] }).places.find((place) => place.id === id); } catch { return null; }
  }

  showFields() {
    const place = this.place;
    $('place-heading').textContent = place.name;
    $('place-name').value = place.name;
    $('place-address').value = place.address || '';
    this.labelChoices($('place-labels'), (place.labels || []).map((label) => label.id));
    $('place-coordinates').textContent = coordinates(place);
    const to = `${place.latitude},${place.longitude}`;
    $('place-geo').href = `geo:${to}`;
    $('place-osm').href = `https://www.openstreetmap.org/directions?to=${encodeURIComponent(to)}`;
    $('place-osm-from').hidden = !this.position;
    if (this.position) {
      $('place-osm-from').href = `https://www.openstreetmap.org/directions?from=${encodeURIComponent(`${this.position.latitude},${this.position.longitude}`)}&to=${encodeURIComponent(to)}`;
    }
    // This place only (the list's own download has them all).
    $('place-gpx').href = `/api/places.gpx?place=${encodeURIComponent(place.id)}`;
    $('place-gpx').download = `${place.name.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_').slice(0, 80) || 'place'}.gpx`;
  }

  async change(what, request) {
    try {
      const place = await request();
      this.say('place-message', '');
      return place;
    } catch (error) {
      this.say('place-message', notSaved(error, what));
      return null;
    }
  }

  async saveFields() {
    const place = await this.change('The place', () => api.updatePlace(this.place.id, { name: $('place-name').value.trim(), address: $('place-address').value.trim() }));
    if (place) { this.place = { ...this.place, ...place }; this.showFields(); }
  }

  async saveLabels() {
    const place = await this.change('The labels', () => api.updatePlace(this.place.id, { labels: this.chosenLabels($('place-labels')) }));
    if (place) this.place = { ...this.place, labels: place.labels };
    this.showFields();
  }

  async copy(text, done) {
    try {
      await navigator.clipboard.writeText(text);
      this.say('place-message', done);
    } catch {
      this.say('place-message', `Copy this: ${text}`);
    }
  }

  async share() {
    const answer = await this.change('The share link', () => api.sharePlace(this.place.id));
    if (!answer) return;
    const link = new URL(answer.url, location.origin).href;
    $('place-share-link').value = link;
    $('place-share-link').hidden = false;
    $('place-send').hidden = typeof navigator.share !== 'function';
    await this.copy(link, 'Share link copied.');
  }

  showNotes() {
    const notes = this.place.notes || [];
    $('place-notes').replaceChildren(...notes.map((note) => this.noteItem(note)));
  }

  noteItem(note) {
    const item = document.createElement('li');
    item.className = 'place-note';
    const body = document.createElement('p');
    body.className = 'note-body';
    body.textContent = note.body;
    const buttons = document.createElement('div');
    const edit = document.createElement('button');
    edit.type = 'button';
    edit.textContent = 'Edit';
    edit.addEventListener('click', () => this.editNote(note, item));
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = 'Delete';
    remove.setAttribute('aria-label', 'Delete note');
    remove.addEventListener('click', async () => {
      if (await this.change('The note', () => api.deleteNote(this.place.id, note.id).then(() => true))) {
        this.place.notes = this.place.notes.filter((other) => other.id !== note.id);
        this.showNotes();
      }
    });
    const photoLabel = document.createElement('label');
    photoLabel.className = 'photo-add';
    photoLabel.textContent = 'Add photo';
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = 'image/jpeg,image/png,image/webp';  // an iPhone then sends a JPEG, not a HEIC (refused: its metadata cannot be removed)
    input.multiple = true;  // several from the files at once (a phone's camera gives one)
    input.setAttribute('capture', '');
    input.className = 'visually-hidden';
    input.addEventListener('change', () => {
      const files = [...input.files];
      input.value = '';
      this.addPhotos(note, files);
    });
    photoLabel.append(input);
    buttons.append(edit, remove, photoLabel);
    const photos = document.createElement('div');
    photos.className = 'note-photos';
    for (const photo of note.photos || []) {
      const open = document.createElement('button');
      open.type = 'button';
      open.className = 'thumbnail';
      const image = document.createElement('img');
      image.src = photo.thumbnailUrl || photo.url;
      image.alt = 'Photo';
      image.loading = 'lazy';
      open.append(image);
      open.addEventListener('click', () => {
        $('photo-large').src = photo.url;
        $('photo-dialog').showModal();
      });
      photos.append(open);
    }
    item.append(body, photos, buttons);
    return item;
  }

  editNote(note, item) {
    const form = document.createElement('form');
    const area = document.createElement('textarea');
    area.value = note.body;
    area.rows = 3;
    area.required = true;
    area.setAttribute('aria-label', 'Note');
    const save = document.createElement('button');
    save.textContent = 'Save note';
    form.append(area, save);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const changed = await this.change('The note', () => api.updateNote(this.place.id, note.id, area.value));
      if (changed) { Object.assign(note, changed); this.showNotes(); }
    });
    item.querySelector('.note-body').replaceWith(form);
    area.focus();
  }

  async addNote() {
    const note = await this.change('The note', () => api.addNote(this.place.id, $('note-body').value));
    if (!note) return;
    $('note-body').value = '';
    this.place.notes = [...(this.place.notes || []), { photos: [], ...note }];
    this.showNotes();
  }

  async addPhotos(note, files) {
    for (const file of files) {
      let photo = await this.change('The photo', () => api.addPhoto(this.place.id, note.id, file));
      if (!photo) continue;
      // No EXIF thumbnail in the file: the browser makes one (a canvas) and gives it to the server.
      if (!photo.hasThumbnail) photo = (await this.sendThumbnail(photo, file)) || photo;
      note.photos = [...(note.photos || []), photo];
    }
    this.showNotes();
  }

  /** A JPEG at most THUMBNAIL_EDGE_PX on its longer side, PUT to the photo's thumbnailUrl; null when the browser cannot draw the file. */
  async sendThumbnail(photo, file) {
    try {
      const bitmap = await createImageBitmap(file);
      const scale = Math.min(1, THUMBNAIL_EDGE_PX / Math.max(bitmap.width, bitmap.height));
      const canvas = document.createElement('canvas');
      canvas.width = Math.max(1, Math.round(bitmap.width * scale));
      canvas.height = Math.max(1, Math.round(bitmap.height * scale));
      canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      bitmap.close();
      const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.8));
      if (!blob) return null;
      return await api.putThumbnail(photo, blob);
    } catch {
      return null;  // e.g. HEIC, which this browser cannot decode: the list shows the photo itself
    }
  }
}
