// The judge's stages as a timeline, drawn as inline SVG from the recorded durations. The judge
// records how long each stage took, not when it started: top-level stages ran one after another, so
// they are laid end to end; inside "measure" the head and base runs ran side by side after the
// measuring process started, each doing setup, then (head only) the checks, then the tests.
import { html, type Html } from "./html.js";
import type { PageFacts } from "./page-facts.js";

export interface Bar {
  lane: string;
  label: string;
  startMs: number;
  ms: number;
  kind: "stage" | "setup" | "check" | "tests" | "startup" | "cached";
}

// Stages that ran inside or beside "measure", not after it: drawn in lanes of their own.
const NESTED = /^(measurer-startup|head|base|head\+new|base\+new|base-cached|check:.*|setup|setup-cached|checks|repeats|repeats-early|mutants|diff-claims)$/;
const NAMES: Record<string, string> = { secrets: "secret scan", materialise: "materialise trees", evaluate: "evaluate" };

/** Where each bar goes, in milliseconds from the start of the judgment. */
export function timelineBars(facts: Pick<PageFacts, "timings" | "runs">): Bar[] {
  const bars: Bar[] = [];
  let at = 0;
  let measureStart: number | null = null;
  for (const [stage, ms] of Object.entries(facts.timings)) {
    if (NESTED.test(stage) || !(ms >= 0)) continue;
    if (stage === "measure") measureStart = at;
    bars.push({ lane: "judge", label: NAMES[stage] ?? stage, startMs: at, ms, kind: "stage" });
    at += ms;
  }
  // The diff claims (added lines, the secret scan) ran beside laying out the trees and measuring.
  const claimsMs = facts.timings["diff-claims"];
  const claimsFrom = bars.find((b) => b.label === NAMES.materialise)?.startMs ?? measureStart;
  if (claimsMs !== undefined && claimsFrom !== null) bars.push({ lane: "diff claims", label: "diff claims", startMs: claimsFrom, ms: claimsMs, kind: "stage" });
  if (measureStart === null) return bars;
  const startup = facts.timings["measurer-startup"] ?? 0;
  if (startup > 0) bars.push({ lane: "measuring process", label: "start", startMs: measureStart, ms: startup, kind: "startup" });
  const runsFrom = measureStart + startup;

  const checks = Object.entries(facts.timings).filter(([stage]) => stage.startsWith("check:"));
  const head = facts.timings.head;
  // Checks on a tree of their own ("checks" is that job's time) ran beside the head run.
  const beside = "checks" in facts.timings;
  if (beside) {
    let t = runsFrom;
    for (const [stage, ms] of checks) {
      bars.push({ lane: "checks", label: stage, startMs: t, ms, kind: "check" });
      t += ms;
    }
  }
  if (head !== undefined) {
    const setup = Math.min(facts.runs.head?.setupMs ?? 0, head);
    let t = runsFrom;
    if (setup > 0) bars.push({ lane: "head run", label: "setup", startMs: t, ms: setup, kind: "setup" });
    t += setup;
    for (const [stage, ms] of beside ? [] : checks) {
      bars.push({ lane: "head run", label: stage, startMs: t, ms, kind: "check" });
      t += ms;
    }
    bars.push({ lane: "head run", label: "tests", startMs: t, ms: Math.max(0, runsFrom + head - t), kind: "tests" });
  } else if (!beside) {
    // Checks only, no test run: they ran one after another in the head tree.
    let t = runsFrom;
    for (const [stage, ms] of checks) {
      bars.push({ lane: "head run", label: stage, startMs: t, ms, kind: "check" });
      t += ms;
    }
  }
  const base = facts.timings.base;
  if (base !== undefined) {
    const setup = Math.min(facts.runs.base?.setupMs ?? 0, base);
    if (setup > 0) bars.push({ lane: "base run", label: "setup", startMs: runsFrom, ms: setup, kind: "setup" });
    bars.push({ lane: "base run", label: "tests", startMs: runsFrom + setup, ms: base - setup, kind: "tests" });
  } else if ("base-cached" in facts.timings) {
    bars.push({ lane: "base run", label: "cached result", startMs: runsFrom, ms: 0, kind: "cached" });
  }
  // Early repeats start with the runs; the later repeats and then the mutants end the measurement.
  const early = facts.timings["repeats-early"];
  if (early !== undefined && early > 0) bars.push({ lane: "repeats", label: "early repeats", startMs: runsFrom, ms: early, kind: "tests" });
  const measureEnd = measureStart + (facts.timings.measure ?? 0);
  const mutants = facts.timings.mutants ?? 0;
  const late = facts.timings.repeats ?? 0;
  if (late > 0) bars.push({ lane: "repeats", label: "repeats", startMs: measureEnd - mutants - late, ms: late, kind: "tests" });
  if (mutants > 0) bars.push({ lane: "mutants", label: "mutants", startMs: measureEnd - mutants, ms: mutants, kind: "tests" });
  // The runs with the PR's own test files (docs/measurement.md) start when a core frees up; their
  // start is not recorded, so they are drawn after the first run of their core (approximate).
  for (const [name, after] of [["head+new", base ?? 0], ["base+new", head ?? 0]] as const) {
    const ms = facts.timings[name];
    if (ms !== undefined) bars.push({ lane: `${name} run`, label: "setup and tests", startMs: runsFrom + after, ms, kind: "tests" });
  }
  return bars;
}

const WIDTH = 1000;
const LABEL_W = 150;
const ROW_H = 30;
const COLOURS: Record<Bar["kind"], string> = {
  stage: "#2f5d8a", setup: "#7a5c00", check: "#6b3fa0", tests: "#1f7a45", startup: "#555d66", cached: "#555d66",
};

export function timelineSvg(bars: readonly Bar[]): Html {
  const lanes = [...new Set(bars.map((b) => b.lane))];
  const end = Math.max(1, ...bars.map((b) => b.startMs + b.ms));
  const scale = (WIDTH - LABEL_W - 10) / end;
  const height = lanes.length * ROW_H + 24;
  const summary = bars.map((b) => `${b.lane} ${b.label} ${seconds(b.ms)}`).join(", ");
  const rows = lanes.map((lane, i) => html`<text x="0" y="${i * ROW_H + 19}" class="lane">${lane}</text>`);
  const rects = bars.map((b) => {
    const y = lanes.indexOf(b.lane) * ROW_H + 4;
    const x = LABEL_W + b.startMs * scale;
    const w = Math.max(2, b.ms * scale);
    const text = `${b.label} ${seconds(b.ms)}`;
    const fits = text.length * 7 + 8 < w;
    // A cached base run took no time: its label goes beside the mark, not inside it.
    const label = fits ? html`<text x="${(x + 4).toFixed(1)}" y="${y + 15}" class="in">${text}</text>`
      : b.kind === "cached" ? html`<text x="${(x + w + 6).toFixed(1)}" y="${y + 15}" class="axis">${b.label}</text>` : "";
    return html`<g><title>${b.lane}: ${text}</title><rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${ROW_H - 8}" rx="3" fill="${COLOURS[b.kind]}"/>${label}</g>`;
  });
  const axisY = lanes.length * ROW_H + 16;
  return html`<svg class="timeline" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="timeline-title" xmlns="http://www.w3.org/2000/svg"><title id="timeline-title">Timeline of the judgment: ${summary}</title>${rows}${rects}<text x="${LABEL_W}" y="${axisY}" class="axis">0 s</text><text x="${WIDTH - 10}" y="${axisY}" class="axis" text-anchor="end">${seconds(end)}</text></svg>`;
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
