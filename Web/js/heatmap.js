// The Heatmap view (#/heatmap): the server's heatmap tiles of all rides on a full-size map, filtered by kind and year,
// with the explorer tiles (zoom 14 squares ridden through), their largest square and largest cluster drawn over it.
// The server computes everything (tiles, squares, clusters); this only shows it.

import { api } from './api.js';
import { escapeHTML, heatmapLayer, heatmapURL, loadLeaflet } from './map.js';

const $ = (id) => document.getElementById(id);

/** The edges of a slippy-map tile in degrees ([[south, west], [north, east]]). */
function tileBounds(x, y, zoom) {
  const n = 2 ** zoom;
  const lon = (tx) => (tx / n) * 360 - 180;
  const lat = (ty) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * ty) / n))) * 180) / Math.PI;
  return [[lat(y + 1), lon(x)], [lat(y), lon(x + 1)]];
}

export class HeatmapView {
  constructor(config) {
    this.config = config;
    this.map = null;
    this.heatmap = null;
    this.explorer = null;
    this.fitted = false;
    const yearSelect = $('heatmap-year');
    const thisYear = new Date().getFullYear();
    for (let year = thisYear; year > thisYear - 15; year -= 1) {
      const option = document.createElement('option');
      option.value = String(year);
      option.textContent = String(year);
      yearSelect.append(option);
    }
    $('heatmap-filters').addEventListener('change', () => this.refresh());
    $('heatmap-filters').addEventListener('submit', (event) => event.preventDefault());
  }

  filter() {
    return { kind: $('heatmap-kind').value, year: $('heatmap-year').value };
  }

  async show() {
    await loadLeaflet();
    if (!window.L) {
      $('heatmap-summary').textContent = 'The map library could not be loaded.';
      return;
    }
    if (!this.map) {
      this.map = L.map($('heatmap-map'), { zoomControl: true, worldCopyJump: true });
      // Thousands of explorer tiles draw on one canvas; the square stays an SVG outline.
      this.canvas = L.canvas({ padding: 0.2 });
      if (this.config.offlineTiles) {
        L.tileLayer(this.config.offlineTiles.url, { maxZoom: 20, maxNativeZoom: this.config.offlineTiles.maxZoom, zIndex: 1 }).addTo(this.map);
      }
      L.tileLayer(this.config.standard.url, { attribution: escapeHTML(this.config.standard.attribution || ''), maxZoom: 19, zIndex: 2 }).addTo(this.map);
      this.heatmap = heatmapLayer(this.filter()).addTo(this.map);
      this.explorer = L.layerGroup().addTo(this.map);
      this.map.setView([20, 0], 2);
    }
    // The view was hidden when the map was made, or the window changed: let Leaflet measure again.
    this.map.invalidateSize();
    await this.refresh();
  }

  async refresh() {
    if (!this.map) return;
    const filter = this.filter();
    this.heatmap.setUrl(heatmapURL(filter));
    const map = $('heatmap-map');
    map.dataset.heatmapUrl = heatmapURL(filter);
    // Filters changed quickly: only the answer to the latest request is drawn (an earlier one may arrive last).
    const request = (this.requests = (this.requests || 0) + 1);
    let answer;
    try {
      answer = await api.explorer(filter);
    } catch (error) {
      if (request === this.requests) $('heatmap-summary').textContent = `Explorer tiles could not be loaded: ${error.message}`;
      return;
    }
    if (request !== this.requests) return;
    this.drawExplorer(answer);
    const square = answer.maxSquare ? `${answer.maxSquare.size} × ${answer.maxSquare.size}` : 'none';
    $('heatmap-summary').textContent =
      `${answer.tileCount} explorer tiles · largest square ${square} · largest cluster ${answer.maxCluster.size} tiles`;
    map.dataset.explorerTiles = String(answer.tileCount);
    if (!this.fitted && answer.tiles.length) {
      // The first time: frame everything ridden.
      const bounds = L.latLngBounds([]);
      for (const [x, y] of answer.tiles) bounds.extend(tileBounds(x, y, answer.zoom));
      this.map.fitBounds(bounds, { padding: [10, 10] });
      this.fitted = true;
    }
  }

  drawExplorer(answer) {
    this.explorer.clearLayers();
    if (!$('heatmap-explorer').checked) return;
    const zoom = answer.zoom;
    for (const [x, y] of answer.tiles) {
      L.rectangle(tileBounds(x, y, zoom), { renderer: this.canvas, color: '#1565c0', weight: 1, opacity: 0.6, fillOpacity: 0.06, interactive: false }).addTo(this.explorer);
    }
    for (const [x, y] of answer.maxCluster.tiles) {
      L.rectangle(tileBounds(x, y, zoom), { renderer: this.canvas, stroke: false, fillColor: '#6a1b9a', fillOpacity: 0.22, interactive: false }).addTo(this.explorer);
    }
    if (answer.maxSquare) {
      const { x, y, size } = answer.maxSquare;
      const [[south], [, east]] = tileBounds(x + size - 1, y + size - 1, zoom);
      const [, [north]] = tileBounds(x, y, zoom);
      const [[, west]] = tileBounds(x, y, zoom);
      L.rectangle([[south, west], [north, east]], { color: '#0d47a1', weight: 3, fill: false, interactive: false, className: 'explorer-square' })
        .bindTooltip(`Largest square: ${size} × ${size}`).addTo(this.explorer);
    }
  }
}
