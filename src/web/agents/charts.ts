// The agents page's charts (issue 23): inline SVG drawn here, on the server, so the page needs no
// script and its CSP stays as it is. Each chart carries a title and the numbers as data-* attributes
// and <title> tooltips, so people and tests can read what was drawn.
import { html, type Html } from "../html.js";
import type { WeekStats } from "./stats.js";

const WIDTH = 720;
const HEIGHT = 200;
const LEFT = 60;
const RIGHT = 12;
const TOP = 14;
const BOTTOM = 34;

/** Judgments per week, stacked: CANDIDATE (green) under FAIL (red); an override is a ring on its bar. */
export function verdictsChart(id: string, agent: string, weeks: readonly WeekStats[]): Html {
  const max = Math.max(1, ...weeks.map((w) => w.judgments));
  const { band, x, y } = scales(weeks.length, max);
  const bars = weeks.map((w, i) => {
    const left = x(i) + band * 0.15;
    const width = band * 0.7;
    const cTop = y(w.candidates);
    const fTop = y(w.candidates + w.fails);
    const tip = `week of ${w.week}: ${w.judgments} judged, ${w.candidates} CANDIDATE, ${w.fails} FAIL, ${w.overrides} overridden`;
    const candidate = w.candidates > 0 ? html`<rect class="bar candidate" x="${num(left)}" y="${num(cTop)}" width="${num(width)}" height="${num(y(0) - cTop)}" fill="#1a7f37"/>` : "";
    const fail = w.fails > 0 ? html`<rect class="bar fail" x="${num(left)}" y="${num(fTop)}" width="${num(width)}" height="${num(cTop - fTop)}" fill="#cf222e"/>` : "";
    const ring = w.overrides > 0 ? html`<circle class="override" cx="${num(left + width / 2)}" cy="${num(fTop - 7)}" r="5" fill="none" stroke="#9a6700" stroke-width="2"/>` : "";
    return html`<g class="week" data-week="${w.week}" data-judgments="${w.judgments}" data-candidates="${w.candidates}" data-fails="${w.fails}" data-overrides="${w.overrides}"><title>${tip}</title>${candidate}${fail}${ring}</g>`;
  });
  return frame(id, `Judgments per week of ${agent}: CANDIDATE in green, FAIL in red, a ring where a FAIL was overridden`, weeks, max, String(max), html`${bars}`);
}

/** Median time from push to verdict per week, as a line; weeks without a timing leave a gap. */
export function latencyChart(id: string, agent: string, weeks: readonly WeekStats[]): Html {
  const values = weeks.map((w) => w.medianMs);
  const max = Math.max(1, ...values.filter((v): v is number => v !== null));
  const { band, x, y } = scales(weeks.length, max);
  const points = values.map((v, i) => (v === null ? null : { cx: x(i) + band / 2, cy: y(v), v, week: weeks[i]!.week }));
  const segments: string[] = [];
  let run: string[] = [];
  for (const p of points) {
    if (p === null) {
      if (run.length > 1) segments.push(run.join(" "));
      run = [];
    } else run.push(`${num(p.cx)},${num(p.cy)}`);
  }
  if (run.length > 1) segments.push(run.join(" "));
  const lines = segments.map((s) => html`<polyline class="line" points="${s}" fill="none" stroke="#0a4fa6" stroke-width="2"/>`);
  const dots = points.filter((p) => p !== null).map((p) => html`<circle class="point" data-week="${p.week}" data-median-ms="${p.v}" cx="${num(p.cx)}" cy="${num(p.cy)}" r="3.5" fill="#0a4fa6"><title>${`week of ${p.week}: median ${duration(p.v)} from push to verdict`}</title></circle>`);
  return frame(id, `Median time from push to verdict per week of ${agent}`, weeks, max, duration(max), html`${lines}${dots}`);
}

function frame(id: string, title: string, weeks: readonly WeekStats[], max: number, maxLabel: string, body: Html): Html {
  const { band, x, y } = scales(weeks.length, max);
  // Week labels: at most about eight, evenly spaced, so they never overlap.
  const every = Math.max(1, Math.ceil(weeks.length / 8));
  const labels = weeks.map((w, i) => (i % every === 0 || i === weeks.length - 1
    ? html`<text class="axis" x="${num(x(i) + band / 2)}" y="${HEIGHT - BOTTOM + 16}" text-anchor="middle">${w.week.slice(5)}</text>` : ""));
  const axes = html`<line x1="${LEFT}" y1="${num(y(0))}" x2="${WIDTH - RIGHT}" y2="${num(y(0))}" stroke="#8c959f"/><line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${num(y(0))}" stroke="#8c959f"/><text class="axis" x="${LEFT - 6}" y="${TOP + 4}" text-anchor="end">${maxLabel}</text><text class="axis" x="${LEFT - 6}" y="${num(y(0))}" text-anchor="end">0</text>`;
  return html`<svg class="chart" id="${id}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title" xmlns="http://www.w3.org/2000/svg" data-weeks="${weeks.length}"><title id="${id}-title">${title}</title>${axes}${labels}${body}</svg>`;
}

function scales(n: number, max: number) {
  const band = (WIDTH - LEFT - RIGHT) / Math.max(1, n);
  return {
    band,
    x: (i: number) => LEFT + i * band,
    y: (v: number) => TOP + (HEIGHT - TOP - BOTTOM) * (1 - v / max),
  };
}

function num(v: number): string {
  return (Math.round(v * 10) / 10).toString();
}

/** `42 s`, `3.5 min`, `2.1 h`. */
export function duration(ms: number): string {
  const s = ms / 1000;
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 90 * 60) return `${(s / 60).toFixed(1)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}
