// The track page's charts: a value against distance, with axes in the rider's units and ranges that do not
// lie. Only drawing: the samples are the server's (GET /api/tracks/{id}/profile, RideKit's TrackProfile).
//
// Honest ranges: the y axis spans at least a minimum for its quantity (30 m of elevation, 10 km/h of speed …),
// so that a 0.5 m dip does not fill the chart as if it were a climb and a constant 18 km/h draws flat. Speed,
// cadence and power start at zero, as a bar would; elevation and heart rate are centred on their values.

import * as format from './format.js';

const FOOT = 0.3048;
const MILE = 1609.344;

/**
 * What each chart shows: the unit in the rider's system, the conversion from the server's SI value, the least
 * span of its y axis (in that unit), and whether its axis starts at zero.
 */
export function quantity(kind, system = format.units()) {
  const imperial = system === 'imperial';
  switch (kind) {
    case 'elevation': return imperial
      ? { label: 'Elevation', unit: 'ft', convert: (m) => m / FOOT, minimumSpan: 100, fromZero: false }
      : { label: 'Elevation', unit: 'm', convert: (m) => m, minimumSpan: 30, fromZero: false };
    case 'speed': return imperial
      ? { label: 'Speed', unit: 'mph', convert: (v) => v * 3600 / MILE, minimumSpan: 10, fromZero: true }
      : { label: 'Speed', unit: 'km/h', convert: (v) => v * 3.6, minimumSpan: 15, fromZero: true };
    case 'heartRate': return { label: 'Heart rate', unit: 'bpm', convert: (v) => v, minimumSpan: 30, fromZero: false };
    case 'cadence': return { label: 'Cadence', unit: 'rpm', convert: (v) => v, minimumSpan: 30, fromZero: true };
    case 'power': return { label: 'Power', unit: 'W', convert: (v) => v, minimumSpan: 100, fromZero: true };
    default: throw new Error(`no chart of ${kind}`);
  }
}

/** The distance axis' unit: km or mi. */
function distanceAxis(system = format.units()) {
  return system === 'imperial' ? { unit: 'mi', convert: (m) => m / MILE } : { unit: 'km', convert: (m) => m / 1000 };
}

/**
 * The y range of a chart: the values' own range widened to `minimumSpan` (around their middle, or from zero),
 * then to round tick values. Returns {min, max, ticks}.
 */
export function yRange(values, { minimumSpan, fromZero }) {
  let low = Math.min(...values), high = Math.max(...values);
  if (fromZero) low = Math.min(0, low);
  if (high - low < minimumSpan) {
    if (fromZero && low >= 0) {
      high = low + minimumSpan;
    } else {
      const middle = (low + high) / 2;
      low = middle - minimumSpan / 2;
      high = middle + minimumSpan / 2;
    }
  }
  return niceTicks(low, high);
}

/** 3–6 ticks at 1, 2 or 5 × a power of ten, covering [low, high]. */
export function niceTicks(low, high, wanted = 4) {
  const span = Math.max(high - low, 1e-9);
  const rough = span / wanted;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) || 10 * power;
  const min = Math.floor(low / step + 1e-9) * step;
  const max = Math.ceil(high / step - 1e-9) * step;
  const ticks = [];
  for (let value = min; value <= max + step / 2; value += step) ticks.push(Number(value.toFixed(10)));
  return { min, max, step, ticks };
}

function tickText(value, step) {
  const digits = step >= 1 ? 0 : Math.min(3, Math.ceil(-Math.log10(step)));
  return value.toFixed(digits);
}

const SVG = 'http://www.w3.org/2000/svg';
function svgElement(name, attributes = {}, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/**
 * Draws `ys` (SI values, null where a sample has none) against `xs` (metres) into `container`, with axes,
 * units and a cursor that follows the pointer (or the arrow keys) and calls `onCursor(index)` (null when it
 * leaves). Returns false, with a sentence in the container, when there is nothing to draw.
 */
export function renderChart(container, xs, ys, kind, { onCursor = () => {}, emptyText } = {}) {
  container.replaceChildren();
  const q = quantity(kind);
  const axis = distanceAxis();
  const samples = [];
  (xs || []).forEach((x, index) => {
    const y = ys ? ys[index] : null;
    if (Number.isFinite(x) && y != null && Number.isFinite(y)) samples.push({ index, x: axis.convert(x), y: q.convert(y), si: y, meters: x });
  });
  if (samples.length < 2) {
    container.textContent = emptyText || `No ${q.label.toLowerCase()} for this track.`;
    return false;
  }
  const width = Math.max(280, Math.round(container.clientWidth || 600));
  const height = 184;
  // The unit sits above the y axis' top tick, the distance unit after the last x tick's row.
  const margin = { left: 48, right: 12, top: 24, bottom: 36 };
  const plotWidth = width - margin.left - margin.right, plotHeight = height - margin.top - margin.bottom;
  const values = samples.map((s) => s.y);
  const yr = yRange(values, q);
  const xr = niceTicks(0, Math.max(samples[samples.length - 1].x, 1e-6), width < 400 ? 3 : 5);
  // The x axis ends at the track's end, its ticks inside it.
  const xMax = samples[samples.length - 1].x || 1;
  const sx = (x) => margin.left + (x / xMax) * plotWidth;
  const sy = (y) => margin.top + plotHeight - ((y - yr.min) / (yr.max - yr.min)) * plotHeight;

  const dataMin = Math.min(...values), dataMax = Math.max(...values);
  const label = `${q.label} from ${dataMin.toFixed(q.unit === 'km/h' || q.unit === 'mph' ? 1 : 0)} to ${dataMax.toFixed(q.unit === 'km/h' || q.unit === 'mph' ? 1 : 0)} ${q.unit} over ${format.distance(samples[samples.length - 1].meters)}`;
  const svg = svgElement('svg', {
    viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label, tabindex: 0, class: 'chart',
    'data-kind': kind, 'data-unit': q.unit, 'data-y-min': yr.min, 'data-y-max': yr.max,
    'data-data-min': dataMin.toFixed(3), 'data-data-max': dataMax.toFixed(3),
  });
  const grid = svgElement('g', { class: 'chart-grid', 'aria-hidden': 'true' });
  for (const tick of yr.ticks) {
    const y = sy(tick);
    grid.append(svgElement('line', { x1: margin.left, x2: width - margin.right, y1: y, y2: y }));
    grid.append(svgElement('text', { x: margin.left - 6, y: y + 4, 'text-anchor': 'end', class: 'tick y-tick' }, tickText(tick, yr.step)));
  }
  for (const tick of xr.ticks.filter((t) => t <= xMax + 1e-9)) {
    const x = sx(tick);
    grid.append(svgElement('line', { x1: x, x2: x, y1: margin.top + plotHeight, y2: margin.top + plotHeight + 4 }));
    grid.append(svgElement('text', { x, y: margin.top + plotHeight + 16, 'text-anchor': 'middle', class: 'tick x-tick' }, tickText(tick, xr.step)));
  }
  grid.append(svgElement('text', { x: margin.left - 6, y: 12, 'text-anchor': 'end', class: 'axis-unit y-unit' }, q.unit));
  grid.append(svgElement('text', { x: width - margin.right, y: height - 4, 'text-anchor': 'end', class: 'axis-unit x-unit' }, axis.unit));
  grid.append(svgElement('line', { class: 'axis', x1: margin.left, x2: width - margin.right, y1: margin.top + plotHeight, y2: margin.top + plotHeight }));
  grid.append(svgElement('line', { class: 'axis', x1: margin.left, x2: margin.left, y1: margin.top, y2: margin.top + plotHeight }));
  svg.append(grid);

  // Gaps (samples without a value) break the line rather than joining across them.
  let d = '';
  let previous = -2;
  samples.forEach((s, i) => {
    d += `${s.index === previous + 1 && i ? 'L' : 'M'}${sx(s.x).toFixed(1)},${sy(s.y).toFixed(1)}`;
    previous = s.index;
  });
  svg.append(svgElement('path', { d, class: 'chart-line', fill: 'none' }));

  const cursor = svgElement('g', { class: 'chart-cursor', visibility: 'hidden', 'aria-hidden': 'true' });
  const cursorLine = svgElement('line', { y1: margin.top, y2: margin.top + plotHeight });
  const cursorDot = svgElement('circle', { r: 4 });
  const cursorText = svgElement('text', { class: 'cursor-text' });
  cursor.append(cursorLine, cursorDot, cursorText);
  svg.append(cursor);
  container.append(svg);

  let current = null;
  const show = (position) => {
    current = Math.max(0, Math.min(samples.length - 1, position));
    const s = samples[current];
    const x = sx(s.x);
    cursorLine.setAttribute('x1', x);
    cursorLine.setAttribute('x2', x);
    cursorDot.setAttribute('cx', x);
    cursorDot.setAttribute('cy', sy(s.y));
    const digits = q.unit === 'km/h' || q.unit === 'mph' ? 1 : 0;
    cursorText.textContent = `${format.distance(s.meters)} · ${s.y.toFixed(digits)} ${q.unit}`;
    const right = x > width / 2;
    // The label where the line is not: under it when the value is in the upper half of the chart.
    cursorText.setAttribute('y', sy(s.y) < margin.top + plotHeight / 2 ? margin.top + plotHeight - 8 : margin.top + 14);
    cursorText.setAttribute('x', right ? x - 6 : x + 6);
    cursorText.setAttribute('text-anchor', right ? 'end' : 'start');
    cursor.setAttribute('visibility', 'visible');
    svg.dataset.cursor = String(s.index);
    onCursor(s.index);
  };
  const hide = () => {
    current = null;
    cursor.setAttribute('visibility', 'hidden');
    delete svg.dataset.cursor;
    onCursor(null);
  };
  const nearest = (clientX) => {
    const box = svg.getBoundingClientRect();
    const x = ((clientX - box.left) / box.width) * width;
    const distance = ((x - margin.left) / plotWidth) * xMax;
    let best = 0;
    for (let i = 1; i < samples.length; i += 1) if (Math.abs(samples[i].x - distance) < Math.abs(samples[best].x - distance)) best = i;
    return best;
  };
  svg.addEventListener('pointermove', (event) => show(nearest(event.clientX)));
  svg.addEventListener('pointerdown', (event) => show(nearest(event.clientX)));
  svg.addEventListener('pointerleave', (event) => { if (event.pointerType !== 'touch') hide(); });
  svg.addEventListener('keydown', (event) => {
    const step = Math.max(1, Math.round(samples.length / 50));
    if (event.key === 'ArrowRight') show(current == null ? 0 : current + step);
    else if (event.key === 'ArrowLeft') show(current == null ? samples.length - 1 : current - step);
    else if (event.key === 'Home') show(0);
    else if (event.key === 'End') show(samples.length - 1);
    else if (event.key === 'Escape') hide();
    else return;
    event.preventDefault();
  });
  svg.addEventListener('blur', hide);
  return true;
}
