// The Year tab: a year at a glance, all from the server's figures (/api/overview, /api/records): totals, a heat
// grid of the days ridden, this year against last (a small SVG chart), the weekly goal and its form, the Eddington
// number, and the records with links to their tracks. Every user string goes in as text.

import { api, ApiError } from './api.js';
import * as format from './format.js';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const MILE = 1609.344;

/** Names of the effort keys, as the records table shows them. */
export const EFFORT_NAMES = {
  '400m': '400 m', '1km': '1 km', '1mi': '1 mile', '5km': '5 km', '10km': '10 km', '20km': '20 km', '40km': '40 km',
  '50km': '50 km', '100km': '100 km', 'half-marathon': 'Half marathon', marathon: 'Marathon',
  'longest-distance': 'Longest distance', 'most-climb': 'Most climb', 'longest-moving-time': 'Longest moving time',
  'top-speed': 'Top speed', 'power-5s': 'Power 5 s', 'power-1min': 'Power 1 min', 'power-5min': 'Power 5 min',
  'power-20min': 'Power 20 min', 'power-60min': 'Power 60 min', 'heart-rate-5s': 'Heart rate 5 s',
  'heart-rate-1min': 'Heart rate 1 min', 'heart-rate-5min': 'Heart rate 5 min', 'heart-rate-20min': 'Heart rate 20 min',
  'heart-rate-60min': 'Heart rate 60 min',
};

/** An effort's value in the rider's units, by what it measures. */
export function effortValue(effort) {
  switch (effort.measure) {
    case 'time': case 'duration': return format.duration(effort.value);
    case 'distance': return format.distance(effort.value);
    case 'climb': return format.elevation(effort.value);
    case 'speed': return format.speed(effort.value);
    case 'power': return `${Math.round(effort.value)} W`;
    case 'heartRate': return `${Math.round(effort.value)} bpm`;
    default: return String(effort.value);
  }
}

/** A "PR" or "2nd best" badge, or nothing. */
export function badge(label) {
  if (!label) return null;
  const element = document.createElement('span');
  element.className = label === 'PR' ? 'badge' : 'badge second';
  element.textContent = label;
  return element;
}

export class OverviewView {
  constructor() {
    this.year = new Date().getFullYear();
    const yearSelect = $('overview-year');
    for (let year = this.year; year >= this.year - 9; year -= 1) {
      const option = document.createElement('option');
      option.value = String(year);
      option.textContent = String(year);
      yearSelect.append(option);
    }
    yearSelect.addEventListener('change', () => { this.year = Number(yearSelect.value); this.show(); });
    $('overview-kind').addEventListener('change', () => this.show());
    $('goal-form').addEventListener('submit', (event) => { event.preventDefault(); this.saveGoal(); });
  }

  get kind() { return $('overview-kind').value; }

  async show() {
    const message = $('overview-message');
    message.textContent = '';
    const offset = -new Date().getTimezoneOffset();
    // The kind and the year changed quickly: only the answer to the latest request is drawn (an earlier one may
    // arrive last and would show another year's figures).
    const request = (this.requests = (this.requests || 0) + 1);
    try {
      const [overview, records] = await Promise.all([api.overview(this.year, offset, this.kind), api.records(this.kind)]);
      if (request !== this.requests) return;
      this.render(overview, records);
    } catch (error) {
      if (request !== this.requests) return;
      message.textContent = error instanceof ApiError ? error.message : 'The overview cannot be loaded: no connection to the server.';
    }
    $('overview-view').dataset.loaded = 'true';
  }

  render(overview, records) {
    const imperial = format.units() === 'imperial';
    const totals = (overview.totals.kinds || [])[0] || { count: 0, distanceMeters: 0, movingSeconds: 0, ascentMeters: 0 };
    const list = $('overview-totals');
    list.replaceChildren();
    for (const [name, value] of [
      ['Activities', String(totals.count)], ['Distance', format.distance(totals.distanceMeters)],
      ['Moving time', format.duration(totals.movingSeconds)], ['Climb', format.elevation(totals.ascentMeters)],
    ]) {
      const term = document.createElement('dt');
      term.textContent = name;
      const detail = document.createElement('dd');
      detail.textContent = value;
      list.append(term, detail);
    }
    this.renderGoal(overview.goals && overview.goals[0]);
    const eddington = imperial ? overview.eddingtonMiles : overview.eddingtonKilometers;
    const unit = imperial ? 'mi' : 'km';
    $('eddington-text').textContent = `E = ${eddington.number}: ${eddington.number} days of at least ${eddington.number} ${unit}`
      + ` (${eddington.daysToNext} more days of ${eddington.number + 1} ${unit} for ${eddington.number + 1}).`;
    this.renderExplorer(overview.explorer);
    this.renderCalendar(overview);
    this.renderComparison(overview, imperial);
    this.renderRecords(records.records || []);
  }

  /** The zoom-14 map squares ridden (the server's `explorer`; null while it builds the heatmap's index). */
  renderExplorer(explorer) {
    const text = $('explorer-text');
    if (!explorer) {
      text.textContent = 'Explorer tiles are being counted (the heatmap is being built); open this page again shortly.';
      return;
    }
    const square = explorer.maxSquareSize;
    text.textContent = `${explorer.tileCount} tiles ridden, ${explorer.tilesThisYear} of them in ${explorer.year}`
      + ` (${explorer.newThisYear} new). Largest square ${square}×${square}; largest cluster ${explorer.maxClusterSize} tiles.`;
  }

  renderGoal(goal) {
    const text = $('goal-text');
    const progress = $('goal-progress');
    const form = $('goal-form');
    if (!goal) {
      text.textContent = 'No weekly goal yet.';
      progress.value = 0;
      return;
    }
    const isTime = goal.measure === 'time';
    const done = isTime ? format.duration(goal.done) : format.distance(goal.done);
    const target = isTime ? format.duration(goal.target) : format.distance(goal.target);
    text.textContent = `This week (from ${goal.weekStart}): ${done} of ${target} (${Math.round(goal.fraction * 100)} %).`;
    progress.value = Math.min(1, goal.fraction);
    form.elements.measure.value = goal.measure;
    form.elements.target.value = isTime ? String(+(goal.target / 3600).toFixed(2)) : String(+(goal.target / 1000).toFixed(1));
  }

  async saveGoal() {
    const form = $('goal-form');
    const message = $('overview-message');
    const measure = form.elements.measure.value;
    const value = form.elements.target.value === '' ? null : Number(form.elements.target.value);
    const target = value == null ? null : measure === 'time' ? value * 3600 : value * 1000;
    try {
      await api.setGoal(this.kind, measure, target);
      message.textContent = target == null ? 'Goal removed.' : 'Goal saved.';
      await this.show();
      message.textContent = target == null ? 'Goal removed.' : 'Goal saved.';
    } catch (error) {
      message.textContent = error instanceof ApiError ? error.message : 'The goal was not saved: no connection to the server.';
    }
  }

  /** The year's days in weeks (columns, Monday on top), shaded by the day's distance. */
  renderCalendar(overview) {
    const grid = $('overview-calendar');
    grid.replaceChildren();
    const byDate = new Map((overview.calendar || []).map((day) => [day.date, day.activities]));
    const first = new Date(Date.UTC(overview.year, 0, 1));
    const blanks = (first.getUTCDay() + 6) % 7;  // Monday first
    for (let index = 0; index < blanks; index += 1) {
      const blank = document.createElement('div');
      blank.className = 'day blank';
      grid.append(blank);
    }
    let ridden = 0;
    for (let day = new Date(first); day.getUTCFullYear() === overview.year; day.setUTCDate(day.getUTCDate() + 1)) {
      const date = day.toISOString().slice(0, 10);
      const cell = document.createElement('div');
      cell.className = 'day';
      const activities = byDate.get(date) || [];
      const meters = activities.reduce((sum, activity) => sum + activity.distanceMeters, 0);
      if (activities.length) {
        ridden += 1;
        cell.dataset.level = String(meters >= 80000 ? 4 : meters >= 40000 ? 3 : meters >= 15000 ? 2 : 1);
        cell.dataset.date = date;
      }
      cell.title = activities.length ? `${date}: ${activities.length} × ${format.distance(meters)}` : date;
      grid.append(cell);
    }
    grid.setAttribute('aria-label', `${ridden} days with activities in ${overview.year}`);
  }

  /** Cumulative distance by ISO week: this year red, last year grey and dashed. */
  renderComparison(overview, imperial) {
    const container = $('overview-compare');
    container.replaceChildren();
    const width = 600, height = 220, left = 44, bottom = 22, top = 10, right = 10;
    const thisYear = overview.thisYearByWeek || [], lastYear = overview.lastYearByWeek || [];
    const unit = imperial ? MILE : 1000;
    const maximum = Math.max(1, ...thisYear, ...lastYear) / unit;
    const weeks = Math.max(thisYear.length, lastYear.length, 2);
    const x = (week) => left + (week / (weeks - 1)) * (width - left - right);
    const y = (meters) => top + (1 - meters / unit / maximum) * (height - top - bottom);
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    svg.setAttribute('role', 'img');
    const thisTotal = format.distance(thisYear[thisYear.length - 1] || 0);
    const lastTotal = format.distance(lastYear[lastYear.length - 1] || 0);
    svg.setAttribute('aria-label', `${overview.year}: ${thisTotal}; ${overview.year - 1}: ${lastTotal}`);
    const axis = document.createElementNS(SVG, 'path');
    axis.setAttribute('d', `M${left},${top}V${height - bottom}H${width - right}`);
    axis.setAttribute('class', 'axis');
    axis.setAttribute('fill', 'none');
    svg.append(axis);
    for (const [series, name] of [[lastYear, 'last-year'], [thisYear, 'this-year']]) {
      if (!series.length) continue;
      const line = document.createElementNS(SVG, 'polyline');
      line.setAttribute('points', series.map((meters, week) => `${x(week).toFixed(1)},${y(meters).toFixed(1)}`).join(' '));
      line.setAttribute('class', name);
      line.setAttribute('fill', 'none');
      line.setAttribute('stroke-width', '2.5');
      svg.append(line);
    }
    const labels = [
      [left - 4, top + 10, 'end', `${Math.round(maximum)} ${imperial ? 'mi' : 'km'}`], [left - 4, height - bottom, 'end', '0'],
      [left, height - 6, 'start', 'week 1'], [width - right, height - 6, 'end', `week ${weeks}`],
      [left + 8, top + 12, 'start', `${overview.year} (red): ${thisTotal} · ${overview.year - 1} (grey): ${lastTotal}`],
    ];
    for (const [lx, ly, anchor, words] of labels) {
      const text = document.createElementNS(SVG, 'text');
      text.setAttribute('x', String(lx));
      text.setAttribute('y', String(ly));
      text.setAttribute('text-anchor', anchor);
      text.textContent = words;
      svg.append(text);
    }
    container.append(svg);
  }

  renderRecords(records) {
    const body = $('records-table').tBodies[0];
    body.replaceChildren();
    const best = records.filter((record) => record.rank === 1);
    if (!best.length) {
      const row = body.insertRow();
      const cell = row.insertCell();
      cell.colSpan = 4;
      cell.textContent = 'No records yet.';
      return;
    }
    for (const record of best) {
      const row = body.insertRow();
      row.insertCell().textContent = EFFORT_NAMES[record.key] || record.key;
      row.insertCell().textContent = effortValue(record);
      const link = document.createElement('a');
      link.href = `#/tracks/${encodeURIComponent(record.trackId)}`;
      link.textContent = record.trackName;
      row.insertCell().append(link);
      row.insertCell().textContent = record.startTime ? record.startTime.slice(0, 10) : '–';
    }
  }
}
