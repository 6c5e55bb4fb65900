// The maps: the Leaflet map (base layers by map type, the rider's blue dot, the recorded line, breadcrumbs, and
// the difference between moves the app makes (following) and moves the user makes (which stop following)), and
// what stands in for it when Leaflet cannot be loaded: the same line drawn as SVG without tiles, under a message
// that says how to get the map back. This is the only module that touches Leaflet (`L`).

/* global L */

const TRACK_STYLE = { color: '#ff0000', weight: 3, opacity: 1, className: 'ride-path' };  // the brief: red, 3 px
// The route being followed: under the red line, in a colour apart from it and from the blue dot.
const ROUTE_STYLE = { color: '#7b2cbf', weight: 4, opacity: 0.7, className: 'route-path', interactive: false };
const LEAFLET_PATH = '/vendor/leaflet';
const LEAFLET_TIMEOUT_MS = 10000;  // a public copy on a network that swallows requests must not hang the map for ever

/** What the page says in place of the map when Leaflet could not be loaded. */
export const MAP_LIBRARY_MISSING = 'The map library (Leaflet) could not be loaded. On the server: '
  + 'sudo apt-get install libjs-leaflet, or run bash scripts/start.sh, then reload.';

export const MAP_TYPES = ['standard', 'satellite', 'hybrid'];

let leafletLoading = null;

/**
 * Loads Leaflet's stylesheet and script once (the server serves Debian's copy, or redirects to a public one).
 * Resolves to true when Leaflet is there, false when it failed or took longer than LEAFLET_TIMEOUT_MS; never
 * rejects. The app starts without waiting for it: only the maps do.
 */
export function loadLeaflet() {
  if (leafletLoading) return leafletLoading;
  leafletLoading = new Promise((resolve) => {
    if (window.L) { resolve(true); return; }
    const loaded = (element) => new Promise((done) => {
      element.addEventListener('load', done, { once: true });
      element.addEventListener('error', done, { once: true });
    });
    const stylesheet = document.createElement('link');
    stylesheet.rel = 'stylesheet';
    stylesheet.href = `${LEAFLET_PATH}/leaflet.css`;
    // Before the app's stylesheet, which overrides some of Leaflet's rules.
    document.head.insertBefore(stylesheet, document.querySelector('link[rel="stylesheet"]'));
    const script = document.createElement('script');
    script.src = `${LEAFLET_PATH}/leaflet.js`;
    const both = Promise.all([loaded(stylesheet), loaded(script)]);
    document.head.append(script);
    const timeout = new Promise((done) => setTimeout(done, LEAFLET_TIMEOUT_MS));
    Promise.race([both, timeout]).then(() => {
      if (!window.L) console.error(`Leaflet could not be loaded from ${LEAFLET_PATH}/leaflet.js`);
      resolve(Boolean(window.L));
    });
  });
  return leafletLoading;
}

/** The Record tab's map: Leaflet's, or without Leaflet the line alone under the message. */
export async function openRideMap(element, config) {
  return (await loadLeaflet()) ? new RideMap(element, config) : new LineOnlyMap(element);
}

export class RideMap {
  /**
   * @param {HTMLElement} element
   * @param {object} config the server's /api/config
   */
  constructor(element, config) {
    this.element = element;
    this.map = L.map(element, { zoomControl: true, attributionControl: true, worldCopyJump: true });
    this.map.setView([37.3318, -122.0312], 13);
    this.programmaticMove = 0;
    this.obstruction = null;  // an element floating over the map (the record panel)
    this.userMoveListeners = [];
    this.segments = new Map();
    this.pendingPoints = [];      // [{at: [latitude, longitude], breakBefore}] not answered yet
    this.pendingBreak = false;
    this.breadcrumbLayer = L.layerGroup().addTo(this.map);
    // The rider's dot above the breadcrumb pins (markers are at z-index 600, tooltips 650).
    this.map.createPane('rider').style.zIndex = 640;
    this.layers = this.makeLayers(config);
    this.mapType = null;
    this.setMapType('standard');

    // A drag or a zoom the app did not start is the user taking over.
    const userMoved = () => { if (this.programmaticMove === 0) this.userMoveListeners.forEach((listener) => listener()); };
    this.map.on('dragstart', userMoved);
    this.map.on('zoomstart', userMoved);
  }

  makeLayers(config) {
    const layer = (source, options = {}) => L.tileLayer(source.url, {
      attribution: escapeHTML(source.attribution || ''), maxZoom: 20, maxNativeZoom: source.maxZoom || 19, crossOrigin: true, ...options,
    });
    const layers = {
      offline: null,
      standard: [layer(config.standard, { zIndex: 2, className: 'layer-standard' })],
      satellite: [layer(config.satellite, { zIndex: 2, className: 'layer-satellite' })],
      hybrid: [layer(config.satellite, { zIndex: 2, className: 'layer-satellite' }), layer(config.labels, { zIndex: 3, className: 'layer-labels' })],
    };
    if (config.offlineTiles) {
      // The server's own tiles lie under every map type: where the online layer cannot load (no network), they show.
      const offline = config.offlineTiles;
      layers.offline = L.tileLayer(offline.url, {
        attribution: escapeHTML(offline.attribution || ''), minZoom: 0, maxZoom: 20, maxNativeZoom: offline.maxZoom, minNativeZoom: offline.minZoom,
        zIndex: 1, className: 'layer-offline',
      }).addTo(this.map);
    }
    return layers;
  }

  /** standard, satellite or hybrid. */
  setMapType(type) {
    if (!MAP_TYPES.includes(type) || type === this.mapType) return;
    if (this.mapType) this.layers[this.mapType].forEach((layer) => this.map.removeLayer(layer));
    this.layers[type].forEach((layer) => layer.addTo(this.map));
    this.mapType = type;
    this.element.dataset.mapType = type;
  }

  onUserMove(listener) { this.userMoveListeners.push(listener); }

  /** Moves the map without counting as the user's move. */
  moveProgrammatically(move) {
    this.programmaticMove += 1;
    try { move(); } finally { this.programmaticMove -= 1; }
  }

  /**
   * Shows a box `{minLatitude, minLongitude, maxLatitude, maxLongitude}` (the server's camera region) in the
   * part of the map that `obstruction` (the floating panel) leaves visible.
   */
  showBounds(bounds) {
    this.fit(L.latLngBounds([bounds.minLatitude, bounds.minLongitude], [bounds.maxLatitude, bounds.maxLongitude]));
  }

  /** Before recording there is no server region yet: a box of `radiusMeters` around the position. */
  showAround(latitude, longitude, radiusMeters) {
    this.fit(L.latLng(latitude, longitude).toBounds(radiusMeters * 2));
  }

  fit(box) {
    // While the Record tab is hidden the map has no size, and Leaflet cannot fit a box into nothing
    // (it would zoom out without end): keep the box for when the tab is shown.
    if (!this.element.clientWidth || !this.element.clientHeight) {
      this.pendingBox = box;
      return;
    }
    this.pendingBox = null;
    this.map.invalidateSize({ pan: false });
    this.moveProgrammatically(() => this.map.fitBounds(box, { animate: false, ...this.visiblePadding() }));
  }

  /** Padding for fitBounds so that the region is not hidden under a panel across the bottom or the right. */
  visiblePadding() {
    const { right, bottom } = obstructedEdges(this.element, this.obstruction);
    return right || bottom ? { paddingBottomRight: [right, bottom] } : {};
  }

  /** The blue dot with its accuracy circle. */
  showPosition(latitude, longitude, accuracyMeters) {
    const at = [latitude, longitude];
    if (!this.dot) {
      this.accuracy = L.circle(at, {
        radius: accuracyMeters || 0, color: '#1a73e8', weight: 1, fillColor: '#1a73e8', fillOpacity: 0.15, className: 'me-accuracy', interactive: false,
        pane: 'rider',
      }).addTo(this.map);
      this.dot = L.circleMarker(at, {
        radius: 8, color: '#ffffff', weight: 3, fillColor: '#1a73e8', fillOpacity: 1, className: 'me-dot', interactive: false,
        pane: 'rider',
      }).addTo(this.map);
    } else {
      this.dot.setLatLng(at);
      this.accuracy.setLatLng(at);
      this.accuracy.setRadius(accuracyMeters || 0);
    }
    this.dot.bringToFront();
  }

  /** Extends the line with the server's path payloads: `[{segment, from, points}]`. */
  extendPath(paths) {
    for (const path of paths) {
      let line = this.segments.get(path.segment);
      if (!line) {
        line = L.polyline(path.from ? [path.from, ...path.points] : path.points, TRACK_STYLE).addTo(this.map);
        this.segments.set(path.segment, line);
      } else {
        for (const point of path.points) line.addLatLng(point);
      }
    }
    if (this.dot) this.dot.bringToFront();
  }

  /** Number of points drawn, over all segments. */
  pathPointCount() {
    let count = 0;
    for (const line of this.segments.values()) count += line.getLatLngs().length;
    return count;
  }

  /**
   * Fixes taken but not yet answered by the server (offline): a dashed line from the end of the recorded one,
   * so that the rider sees the path go on; the server's answer replaces it with the red line. After a pause or
   * a gap in the fixes (`breakPending`) the dashed line breaks too, as the red one will.
   */
  addPending(latitude, longitude) {
    if (!this.pending) {
      this.pending = L.polyline([], { color: '#ff0000', weight: 3, opacity: 0.6, dashArray: '4 6', className: 'pending-path', interactive: false }).addTo(this.map);
    }
    this.pendingPoints.push({ at: [latitude, longitude], breakBefore: this.pendingBreak });
    this.pendingBreak = false;
    this.drawPending();
  }

  /** The next pending fix starts a new stretch (Pause/Resume, a gap): not joined to the one before. */
  breakPending() { this.pendingBreak = true; }

  /** The server answered `count` of the pending fixes. */
  acknowledgePending(count) {
    this.pendingPoints.splice(0, count);
    this.drawPending();
  }

  drawPending() {
    if (!this.pending) return;
    const last = [...this.segments.values()].pop();
    this.pending.setLatLngs(pendingLines(this.pendingPoints, last && last.getLatLngs().length ? last.getLatLngs().at(-1) : null));
  }

  setBreadcrumbsVisible(visible) {
    if (visible) this.breadcrumbLayer.addTo(this.map);
    else this.map.removeLayer(this.breadcrumbLayer);
  }

  addBreadcrumbs(pins) {
    for (const pin of pins) {
      const marker = L.marker(pin.position, {
        icon: L.divIcon({ className: 'breadcrumb-icon', html: '<span></span>', iconSize: [12, 12] }),
        title: `${pin.title} ${pin.subtitle}`, alt: pin.title, keyboard: true,
      });
      marker.bindPopup(`<strong>${escapeHTML(pin.title)}</strong><br>${escapeHTML(pin.subtitle)}`);
      marker.addTo(this.breadcrumbLayer);
    }
  }

  /** The route followed, `[[[latitude, longitude]]]` (segments), drawn under the ride; empty: none. */
  setRoute(segments) {
    if (this.route) { this.map.removeLayer(this.route); this.route = null; }
    const lines = (segments || []).filter((points) => points.length > 1);
    if (!lines.length) return;
    this.route = L.polyline(lines, ROUTE_STYLE).addTo(this.map);
    this.route.bringToBack();
  }

  /**
   * Heading-up turns the map element itself with a CSS transform. There is no Leaflet rotation plugin packaged
   * in Debian (the server serves Debian's libjs-leaflet, and nothing else), and Leaflet cannot rotate by
   * itself; a CSS rotation needs nothing more. The rider is kept at the element's centre, which is what it turns
   * about; that centre is put at the centre of the part of the view the floating panel leaves visible (not the
   * view's centre, which on a phone is under the panel), and the element is enlarged to a square reaching the
   * view's farthest corner from there, so that no corner shows blank at any angle.
   */
  setHeadingUp(on) {
    this.headingUp = on;
    const style = this.element.style;
    const centre = this.map.getCenter();
    if (on) {
      const parent = this.element.parentElement;
      const width = parent.clientWidth, height = parent.clientHeight;
      const { right, bottom } = obstructedEdges(parent, this.obstruction);
      const x = (width - right) / 2, y = (height - bottom) / 2;
      const half = Math.ceil(Math.max(Math.hypot(x, y), Math.hypot(width - x, y), Math.hypot(x, height - y), Math.hypot(width - x, height - y)));
      Object.assign(style, { inset: 'auto', left: `${x - half}px`, top: `${y - half}px`, width: `${2 * half}px`, height: `${2 * half}px` });
      style.transform = `rotate(${-(this.heading || 0)}deg)`;
      // The panel grows and shrinks (Start, the finish step): the rider's place follows it.
      if (!this.panelObserver && this.obstruction && 'ResizeObserver' in window) {
        let size = null;
        this.panelObserver = new ResizeObserver(() => {
          const rect = this.obstruction.getBoundingClientRect();
          const now = `${Math.round(rect.width)}x${Math.round(rect.height)}`;
          if (now !== size && size !== null && this.headingUp) this.setHeadingUp(true);
          size = now;
        });
        this.panelObserver.observe(this.obstruction);
      }
    } else {
      for (const name of ['inset', 'left', 'top', 'width', 'height', 'transform']) style.removeProperty(name);
    }
    this.element.dataset.headingUp = String(on);
    this.map.invalidateSize({ pan: false });
    // The same place stays at the (moved) centre: the rider, when following.
    this.moveProgrammatically(() => this.map.setView(centre, this.map.getZoom(), { animate: false }));
    // Leaflet's own dragging moves the turned map in screen directions, which on a turned map are the wrong
    // ones: while heading-up a drag is turned back into the map's frame here instead.
    if (on) {
      this.map.dragging.disable();
      if (!this.turnedDrag) this.turnedDrag = this.makeTurnedDrag();
    } else {
      this.map.dragging.enable();
    }
  }

  /** Pointer handlers that pan a turned map by the drag turned into its frame; the user's move stops following. */
  makeTurnedDrag() {
    let last = null;
    this.element.addEventListener('pointerdown', (event) => {
      if (!this.headingUp || event.button > 0 || event.target.closest('.leaflet-control')) return;
      last = { x: event.clientX, y: event.clientY, id: event.pointerId, moved: false };
    });
    this.element.addEventListener('pointermove', (event) => {
      if (!last || event.pointerId !== last.id) return;
      const dx = event.clientX - last.x, dy = event.clientY - last.y;
      if (!last.moved) {
        if (Math.hypot(dx, dy) < 3) return;
        last.moved = true;
        try { this.element.setPointerCapture(event.pointerId); } catch { /* the pointer is gone */ }
        this.userMoveListeners.forEach((listener) => listener());
      }
      // The map is turned by −heading: a move on screen is that move turned by +heading on the map.
      const angle = (this.heading || 0) * Math.PI / 180;
      const mapX = dx * Math.cos(angle) - dy * Math.sin(angle);
      const mapY = dx * Math.sin(angle) + dy * Math.cos(angle);
      this.map.panBy([-mapX, -mapY], { animate: false });
      last.x = event.clientX;
      last.y = event.clientY;
    });
    const end = (event) => { if (last && event.pointerId === last.id) last = null; };
    this.element.addEventListener('pointerup', end);
    this.element.addEventListener('pointercancel', end);
    return true;
  }

  /** The rider's heading in degrees from north; turns the map when heading-up. */
  setHeading(degrees) {
    this.heading = degrees;
    if (this.headingUp) this.element.style.transform = `rotate(${-degrees}deg)`;
  }

  /** Heading-up follows by keeping the rider at the centre (the centre is what the map turns about). */
  centreOn(latitude, longitude) {
    this.moveProgrammatically(() => this.map.setView([latitude, longitude], this.map.getZoom(), { animate: false }));
  }

  clearRide() {
    if (this.pending) this.pending.setLatLngs([]);
    this.pendingPoints = [];
    this.pendingBreak = false;
    for (const line of this.segments.values()) this.map.removeLayer(line);
    this.segments.clear();
    this.breadcrumbLayer.clearLayers();
  }

  invalidateSize() {
    this.map.invalidateSize({ pan: false });
    if (this.pendingBox) this.fit(this.pendingBox);
  }
}

/**
 * How much of `element`'s right or bottom edge the floating `panel` hides: a panel across the bottom (wider than
 * 60 % of the map) hides a strip at the bottom, a tall one at the side a strip at the right.
 */
function obstructedEdges(element, panel) {
  if (!panel || panel.hidden) return { right: 0, bottom: 0 };
  const map = element.getBoundingClientRect();
  const rect = panel.getBoundingClientRect();
  if (rect.width > map.width * 0.6) return { right: 0, bottom: Math.max(0, map.bottom - rect.top) };
  if (rect.height > map.height * 0.6) return { right: Math.max(0, map.right - rect.left), bottom: 0 };
  return { right: 0, bottom: 0 };
}

/**
 * The Record tab's map when Leaflet could not be loaded: the same methods as RideMap, drawing the ride as an SVG
 * line without tiles, always fitted to all of it and to the rider, under the message that says how to get the
 * map back. The figures, the buttons and the outbox work as with the map.
 */
class LineOnlyMap {
  constructor(element) {
    this.element = element;
    this.obstruction = null;
    this.segments = new Map();    // segment number -> [[latitude, longitude]]
    this.pending = [];            // fixes not answered yet: [{at, breakBefore}]
    this.pendingBreak = false;
    this.breadcrumbs = [];
    this.breadcrumbsVisible = true;
    this.position = null;
    this.route = [];
    this.message = showMapLibraryMissing(element);
    this.svg = document.createElementNS(SVG_NS, 'svg');
    this.svg.setAttribute('class', 'line-map');
    this.svg.setAttribute('role', 'img');
    this.svg.setAttribute('aria-label', 'The ride, without the map');
    element.append(this.svg);
  }

  setMapType() {}
  onUserMove() {}
  setHeadingUp() {}             // no compass without the map (the map tools are hidden)
  setHeading() {}
  centreOn() {}

  setRoute(segments) {
    this.route = (segments || []).filter((points) => points.length > 1);
    this.draw();
  }
  showBounds() {}               // the line is always fitted whole: there is nothing to pan
  showAround() {}

  showPosition(latitude, longitude) {
    this.position = [latitude, longitude];
    this.draw();
  }

  extendPath(paths) {
    for (const path of paths) {
      const line = this.segments.get(path.segment);
      if (line) line.push(...path.points);
      else this.segments.set(path.segment, path.from ? [path.from, ...path.points] : [...path.points]);
    }
    this.draw();
  }

  pathPointCount() {
    let count = 0;
    for (const line of this.segments.values()) count += line.length;
    return count;
  }

  addPending(latitude, longitude) {
    this.pending.push({ at: [latitude, longitude], breakBefore: this.pendingBreak });
    this.pendingBreak = false;
    this.draw();
  }

  breakPending() { this.pendingBreak = true; }

  acknowledgePending(count) {
    this.pending = this.pending.slice(Math.min(count, this.pending.length));
    this.draw();
  }

  setBreadcrumbsVisible(visible) {
    this.breadcrumbsVisible = visible;
    this.draw();
  }

  addBreadcrumbs(pins) {
    this.breadcrumbs.push(...pins);
    this.draw();
  }

  clearRide() {
    this.segments.clear();
    this.pending = [];
    this.pendingBreak = false;
    this.breadcrumbs = [];
    this.draw();
  }

  invalidateSize() { this.draw(); }

  draw() {
    const lines = [...this.segments.values()];
    const last = lines.length ? lines[lines.length - 1].at(-1) : null;
    const dots = [];
    if (this.breadcrumbsVisible) {
      for (const pin of this.breadcrumbs) {
        dots.push({ at: pin.position, radius: 5, fill: '#ff8f00', className: 'breadcrumb-pin', title: `${pin.title} ${pin.subtitle}` });
      }
    }
    if (this.position) dots.push({ at: this.position, radius: 8, fill: '#1a73e8', className: 'me-dot' });
    const { right, bottom } = obstructedEdges(this.element, this.obstruction);
    drawLines(this.svg, {
      lines, route: this.route, dashed: pendingLines(this.pending, last), dots,
      padding: { top: this.message.offsetTop + this.message.offsetHeight + 16, right: right + 16, bottom: bottom + 16, left: 16 },
    });
  }
}

/**
 * The dashed lines of fixes not answered yet, `[{at, breakBefore}]`: the first joins `end` (the last point of the
 * red line, or null), and each break starts a new line.
 */
function pendingLines(points, end) {
  const lines = [];
  let line = null;
  for (const [index, point] of points.entries()) {
    if (!line || point.breakBefore) {
      line = index === 0 && !point.breakBefore && end ? [end] : [];
      lines.push(line);
    }
    line.push(point.at);
  }
  return lines;
}

/** The track page's map without Leaflet: the line with its start and end, under the message. */
function drawTrackLineOnly(element, segments) {
  element.replaceChildren();
  const message = showMapLibraryMissing(element);
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('class', 'line-map');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'The track, without the map');
  element.append(svg);
  const lines = segments.filter((points) => points.length);
  const all = lines.flat();
  const dots = all.length ? [
    { at: all[0], radius: 7, fill: '#2e7d32', className: 'track-start', title: 'Start' },
    { at: all[all.length - 1], radius: 7, fill: '#c62828', className: 'track-end', title: 'End' },
  ] : [];
  drawLines(svg, { lines, dashed: [], dots, padding: { top: message.offsetTop + message.offsetHeight + 20, right: 20, bottom: 20, left: 20 } });
}

function showMapLibraryMissing(element) {
  element.dataset.mapLibrary = 'missing';
  const message = document.createElement('p');
  message.className = 'map-missing';
  message.setAttribute('role', 'alert');
  // The commands set as code; the text stays MAP_LIBRARY_MISSING.
  for (const [index, part] of MAP_LIBRARY_MISSING.split(/(sudo apt-get install libjs-leaflet|bash scripts\/start\.sh)/).entries()) {
    if (index % 2) {
      const code = document.createElement('code');
      code.textContent = part;
      message.append(code);
    } else {
      message.append(part);
    }
  }
  element.append(message);
  return message;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const MIN_SPAN_METERS = 200;   // one point, or a ride that has not moved yet, is not blown up to fill the map

/**
 * Draws `lines` (each `[[latitude, longitude]]`, red, 3 px) over a `route` (purple), `dashed` lines and `dots` into `svg`, fitted into
 * its size less `padding` (north up; an equirectangular projection at the middle latitude, which is what a
 * map of a ride's size looks like).
 */
function drawLines(svg, { lines, route = [], dashed, dots, padding }) {
  // The SVG fills its map element, whose size is known also before the SVG has been laid out.
  const width = svg.parentElement.clientWidth, height = svg.parentElement.clientHeight;
  svg.replaceChildren();
  let south = Infinity, north = -Infinity, west = Infinity, east = -Infinity;
  const extend = ([latitude, longitude]) => {
    south = Math.min(south, latitude); north = Math.max(north, latitude);
    west = Math.min(west, longitude); east = Math.max(east, longitude);
  };
  for (const line of lines) line.forEach(extend);
  for (const line of route) line.forEach(extend);
  for (const line of dashed) line.forEach(extend);
  dots.forEach((dot) => extend(dot.at));
  if (!width || !height || south > north) return;
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const metersPerDegree = 111_320;
  const xScale = Math.cos(((south + north) / 2) * Math.PI / 180);  // degrees of longitude are shorter away from the equator
  const spanX = Math.max((east - west) * xScale, MIN_SPAN_METERS / metersPerDegree);
  const spanY = Math.max(north - south, MIN_SPAN_METERS / metersPerDegree);
  const boxWidth = Math.max(1, width - padding.left - padding.right), boxHeight = Math.max(1, height - padding.top - padding.bottom);
  const scale = Math.min(boxWidth / spanX, boxHeight / spanY);
  const centreX = padding.left + boxWidth / 2, centreY = padding.top + boxHeight / 2;
  const midX = ((west + east) / 2) * xScale, midY = (south + north) / 2;
  const project = ([latitude, longitude]) => [
    (centreX + (longitude * xScale - midX) * scale).toFixed(1), (centreY - (latitude - midY) * scale).toFixed(1),
  ];
  const polyline = (line, attributes) => {
    const element = document.createElementNS(SVG_NS, 'polyline');
    element.setAttribute('points', line.map((point) => project(point).join(',')).join(' '));
    for (const [name, value] of Object.entries({ fill: 'none', stroke: '#ff0000', 'stroke-width': '3', 'stroke-linejoin': 'round', 'stroke-linecap': 'round', ...attributes })) {
      element.setAttribute(name, value);
    }
    svg.append(element);
  };
  for (const line of route) polyline(line, { class: 'route-path', stroke: ROUTE_STYLE.color, 'stroke-width': String(ROUTE_STYLE.weight), opacity: String(ROUTE_STYLE.opacity) });
  for (const line of lines) if (line.length) polyline(line, { class: 'ride-path' });
  for (const line of dashed) if (line.length > 1) polyline(line, { class: 'pending-path', 'stroke-dasharray': '4 6', opacity: '0.6' });
  for (const dot of dots) {
    const [x, y] = project(dot.at);
    const circle = document.createElementNS(SVG_NS, 'circle');
    for (const [name, value] of Object.entries({ cx: x, cy: y, r: dot.radius, fill: dot.fill, stroke: '#ffffff', 'stroke-width': '2', class: dot.className })) {
      circle.setAttribute(name, value);
    }
    if (dot.title) {
      const title = document.createElementNS(SVG_NS, 'title');
      title.textContent = dot.title;
      circle.append(title);
    }
    svg.append(circle);
  }
}

export function escapeHTML(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

/**
 * A static map of a finished track: the red line, start and end markers, fitted to the line (with 20 px to spare
 * on each side). Returns the Leaflet map; `setTrackLines` gives it the same line in more detail. Without Leaflet
 * (call after `loadLeaflet()` has resolved) it draws the line alone under the message and returns null.
 */
export function drawTrackMap(element, config, segments) {
  delete element.dataset.mapLibrary;
  if (!window.L) {
    drawTrackLineOnly(element, segments);
    return null;
  }
  const map = L.map(element);
  const base = config.offlineTiles || config.standard;
  if (config.offlineTiles) {
    L.tileLayer(config.offlineTiles.url, { maxZoom: 20, maxNativeZoom: config.offlineTiles.maxZoom, zIndex: 1 }).addTo(map);
  }
  L.tileLayer(config.standard.url, { attribution: escapeHTML(config.standard.attribution || ''), maxZoom: 19, zIndex: 2 }).addTo(map);
  void base;
  // The heatmap of all rides, drawn by the server, as a layer the rider turns on (Leaflet's layer control: a labelled
  // checkbox), under the track's own line.
  const heatmap = heatmapLayer();
  L.control.layers(null, { 'Heatmap of all rides': heatmap }, { collapsed: false, position: 'topright' }).addTo(map);
  map.heatmapLayer = heatmap;
  const lines = segments.filter((points) => points.length).map((points) => L.polyline(points, TRACK_STYLE).addTo(map));
  map.trackLines = lines;
  const all = segments.flat();
  if (all.length) {
    L.circleMarker(all[0], { radius: 7, color: '#fff', weight: 2, fillColor: '#2e7d32', fillOpacity: 1 }).bindTooltip('Start').addTo(map);
    L.circleMarker(all[all.length - 1], { radius: 7, color: '#fff', weight: 2, fillColor: '#c62828', fillOpacity: 1 }).bindTooltip('End').addTo(map);
    map.fitBounds(L.featureGroup(lines).getBounds(), { padding: [20, 20] });
  } else {
    map.setView([0, 0], 2);
  }
  return map;
}

/** Replaces the lines of a `drawTrackMap` map by `segments` (the same track, simplified less), keeping the view. */
export function setTrackLines(map, segments) {
  const given = segments.filter((points) => points.length);
  map.trackLines.forEach((line, index) => { if (given[index]) line.setLatLngs(given[index]); });
}

const LONG_PRESS_MS = 600;       // a finger held this long without moving places a pin
const LONG_PRESS_SLOP_PX = 10;   // moving further is a pan, not a press

/**
 * The Places tab's map, or null without Leaflet (the message says so; the list works without it).
 * `onPlace(latitude, longitude)` runs on a long press (touch) or a right click; `onPin(id)` when a pin is tapped.
 */
export async function openPlacesMap(element, config, { onPlace, onPin }) {
  if (!(await loadLeaflet())) {
    element.replaceChildren();
    showMapLibraryMissing(element);
    return null;
  }
  return new PlacesMap(element, config, onPlace, onPin);
}

class PlacesMap {
  constructor(element, config, onPlace, onPin) {
    this.element = element;
    this.map = L.map(element, { zoomControl: true, attributionControl: true, worldCopyJump: true });
    this.map.setView([37.3318, -122.0312], 13);
    RideMap.prototype.makeLayers.call(this, config).standard.forEach((layer) => layer.addTo(this.map));
    this.pins = L.layerGroup().addTo(this.map);
    this.draft = null;
    this.me = null;
    this.onPin = onPin;
    const placeAt = (x, y) => {
      const at = this.map.containerPointToLatLng(L.point(x, y)).wrap();
      onPlace(at.lat, at.lng);
    };
    // Leaflet's own long press is for iOS Safari only: the press is timed here, for every touch screen.
    let press = null;  // {pointerId, x, y, timer}
    let pressedAt = 0;
    const cancel = () => { if (press) clearTimeout(press.timer); press = null; };
    element.addEventListener('pointerdown', (event) => {
      cancel();
      if (event.pointerType !== 'touch' || !event.isPrimary) return;
      const box = element.getBoundingClientRect();
      const x = event.clientX - box.left, y = event.clientY - box.top;
      press = { pointerId: event.pointerId, startX: event.clientX, startY: event.clientY, timer: setTimeout(() => {
        press = null;
        pressedAt = Date.now();
        placeAt(x, y);
      }, LONG_PRESS_MS) };
    });
    element.addEventListener('pointermove', (event) => {
      if (press && event.pointerId === press.pointerId
        && Math.hypot(event.clientX - press.startX, event.clientY - press.startY) > LONG_PRESS_SLOP_PX) cancel();
    });
    for (const kind of ['pointerup', 'pointercancel']) element.addEventListener(kind, cancel);
    // A right click; a touch browser may also make one of the long press just handled.
    this.map.on('contextmenu', (event) => {
      if (event.originalEvent) event.originalEvent.preventDefault();
      if (Date.now() - pressedAt < 1500) return;
      placeAt(event.containerPoint.x, event.containerPoint.y);
    });
  }

  /** The pins, each coloured by its first label. */
  setPins(places) {
    this.pins.clearLayers();
    for (const place of places) {
      const colour = place.labels && place.labels.length ? place.labels[0].colour : '#37474f';  // never the rider's blue
      // The name shows beside the pin at all times: an element with the name as text (never markup).
      const name = document.createElement('span');
      name.textContent = place.name;
      L.circleMarker([place.latitude, place.longitude], {
        radius: 10, color: '#fff', weight: 2, fillColor: colour, fillOpacity: 1, className: 'place-pin',
      }).bindTooltip(name, { permanent: true, direction: 'right', offset: [10, 0], className: 'place-pin-name' })
        .on('click', () => this.onPin(place.id)).addTo(this.pins);
    }
    this.keepMeOnTop();
  }

  /** The rider's blue dot stays above the pins (a pin dropped where the rider stands must not hide it). */
  keepMeOnTop() {
    if (this.me) this.me.bringToFront();
  }

  /** The pin being named, or none. */
  setDraft(latitude, longitude) {
    if (this.draft) this.map.removeLayer(this.draft);
    this.draft = latitude === undefined ? null
      : L.circleMarker([latitude, longitude], { radius: 12, color: '#c62828', weight: 3, fillOpacity: 0.3, className: 'place-draft' }).addTo(this.map);
    this.keepMeOnTop();
  }

  showMe(latitude, longitude, zoom) {
    if (!this.me) {
      this.me = L.circleMarker([latitude, longitude], { radius: 8, color: '#fff', weight: 3, fillColor: '#1a73e8', fillOpacity: 1, className: 'me-dot', interactive: false,
      }).addTo(this.map);
    } else {
      this.me.setLatLng([latitude, longitude]);
    }
    // At once, not animated: a press on the map right after lands where it shows.
    if (zoom) this.map.setView([latitude, longitude], zoom, { animate: false });
  }

  /** Moves the map to a place found by the address search (the rider's dot stays where it is). */
  goTo(latitude, longitude, zoom) {
    this.map.setView([latitude, longitude], zoom || this.map.getZoom(), { animate: false });
  }

  centre() {
    const at = this.map.getCenter().wrap();
    return { latitude: at.lat, longitude: at.lng };
  }

  /** Fits a track found by the search ([south, west, north, east]). */
  goToBounds(bounds) {
    this.map.fitBounds([[bounds[0], bounds[1]], [bounds[2], bounds[3]]], { animate: false, padding: [20, 20] });
  }

  /**
   * The visible region as the search's `bbox` (`WEST,SOUTH,EAST,NORTH`, longitudes wrapped into −180…180, so that
   * WEST > EAST across the antimeridian), or null when the whole world is in view.
   */
  visibleBox() {
    const box = this.map.getBounds();
    const west = box.getWest(), east = box.getEast();
    if (!(east - west < 360)) return null;
    const wrap = (longitude) => ((((longitude + 180) % 360) + 360) % 360) - 180;
    const clamp = (latitude) => Math.max(-90, Math.min(90, latitude));
    return [wrap(west), clamp(box.getSouth()), wrap(east), clamp(box.getNorth())].map((value) => value.toFixed(4)).join(',');
  }

  /** After the view was hidden, Leaflet must measure its box again. */
  resized() { this.map.invalidateSize(); }
}

/** The address of the server's heatmap tiles for a filter (`{kind, year}`, empty for all). */
export function heatmapURL(filter = {}) {
  const query = new URLSearchParams();
  if (filter.kind) query.set('kind', filter.kind);
  if (filter.year) query.set('year', String(filter.year));
  const text = query.toString();
  return `/api/heatmap/{z}/{x}/{y}.png${text ? `?${text}` : ''}`;
}

/**
 * The heatmap as a Leaflet tile layer (zoom 18 tiles stretched beyond it). While the server builds its index for
 * the first time it answers 503 with Retry-After; a tile that failed makes the layer ask again a few seconds later
 * (once at a time, at most ten times in a row).
 */
export function heatmapLayer(filter = {}) {
  const layer = L.tileLayer(heatmapURL(filter), { maxZoom: 20, maxNativeZoom: 18, zIndex: 5, className: 'heatmap-tiles', attribution: 'Heatmap: your rides' });
  let retry = null;
  let tries = 0;
  layer.on('tileerror', () => {
    if (retry || tries >= 10) return;
    tries += 1;
    retry = setTimeout(() => { retry = null; if (layer._map) layer.redraw(); }, 5000);
  });
  layer.on('tileload', () => { tries = 0; });
  return layer;
}
