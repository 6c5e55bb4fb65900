// The Leaflet map: base layers by map type, the rider's blue dot, the recorded line, breadcrumbs, and the
// difference between moves the app makes (following) and moves the user makes (which stop following).

/* global L */

const TRACK_STYLE = { color: '#ff0000', weight: 3, opacity: 1, className: 'ride-path' };  // the brief: red, 3 px

export const MAP_TYPES = ['standard', 'satellite', 'hybrid'];

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
      attribution: source.attribution, maxZoom: 20, maxNativeZoom: source.maxZoom || 19, crossOrigin: true, ...options,
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
        attribution: offline.attribution, minZoom: 0, maxZoom: 20, maxNativeZoom: offline.maxZoom, minNativeZoom: offline.minZoom,
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
    const panel = this.obstruction;
    if (!panel || panel.hidden) return {};
    const map = this.element.getBoundingClientRect();
    const rect = panel.getBoundingClientRect();
    if (rect.width > map.width * 0.6) return { paddingBottomRight: [0, Math.max(0, map.bottom - rect.top)] };
    if (rect.height > map.height * 0.6) return { paddingBottomRight: [Math.max(0, map.right - rect.left), 0] };
    return {};
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
   * so that the rider sees the path go on; the server's answer replaces it with the red line.
   */
  addPending(latitude, longitude) {
    if (!this.pending) {
      this.pending = L.polyline([], { color: '#ff0000', weight: 3, opacity: 0.6, dashArray: '4 6', className: 'pending-path', interactive: false }).addTo(this.map);
    }
    if (this.pending.getLatLngs().length === 0) {
      const last = [...this.segments.values()].pop();
      if (last && last.getLatLngs().length) this.pending.addLatLng(last.getLatLngs().at(-1));
    }
    this.pending.addLatLng([latitude, longitude]);
    this.pendingCount = (this.pendingCount || 0) + 1;
  }

  /** The server answered `count` of the pending fixes. */
  acknowledgePending(count) {
    if (!this.pending) return;
    this.pendingCount = Math.max(0, (this.pendingCount || 0) - count);
    const points = this.pending.getLatLngs();
    const keep = points.slice(Math.max(0, points.length - this.pendingCount - 1));
    const last = [...this.segments.values()].pop();
    this.pending.setLatLngs(this.pendingCount === 0 ? [] : (last ? [last.getLatLngs().at(-1), ...keep.slice(1)] : keep));
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

  clearRide() {
    if (this.pending) this.pending.setLatLngs([]);
    this.pendingCount = 0;
    for (const line of this.segments.values()) this.map.removeLayer(line);
    this.segments.clear();
    this.breadcrumbLayer.clearLayers();
  }

  invalidateSize() {
    this.map.invalidateSize({ pan: false });
    if (this.pendingBox) this.fit(this.pendingBox);
  }
}

export function escapeHTML(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

/**
 * A static map of a finished track: the red line, start and end markers, fitted to the line (with 20 px to spare
 * on each side). Returns the Leaflet map; `setTrackLines` gives it the same line in more detail.
 */
export function drawTrackMap(element, config, segments) {
  const map = L.map(element);
  const base = config.offlineTiles || config.standard;
  if (config.offlineTiles) {
    L.tileLayer(config.offlineTiles.url, { maxZoom: 20, maxNativeZoom: config.offlineTiles.maxZoom, zIndex: 1 }).addTo(map);
  }
  L.tileLayer(config.standard.url, { attribution: config.standard.attribution, maxZoom: 19, zIndex: 2 }).addTo(map);
  void base;
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
