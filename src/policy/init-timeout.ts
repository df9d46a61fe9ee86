// `tests.timeout` sized from init's own try (issue 22, pypa/packaging: 62,430 tests did not fit the
// default 600 s at the machine's load, and init said only "raise tests.timeout, or run fewer tests").
// A judgment runs the base and the head side by side on a shared machine, so a suite that used a
// third of its budget in the try is already tight. Pure: the caller passes what the try measured.

export const DEFAULT_TIMEOUT = 600;
/** The schema's bound (src/policy/schema.ts): six hours. */
export const MAX_TIMEOUT = 6 * 3600;
/** Headroom over the try's own time: base and head share the cores, and the load varies. */
const HEADROOM = 3;

export interface TryTimes {
  /** The budget the try ran with, in seconds. */
  timeout: number;
  commandMs: number | null;
  setupMs: number | null;
  timedOut: boolean;
  /** The end of the try's output: a runner's progress (pytest's `[ 24%]`) tells how far it got. */
  outputTail: string;
  /** The machine's load average while it ran (os.loadavg), said beside the times. */
  load: number;
}

export interface SizedTimeout {
  /** What to write as tests.timeout; the try's budget when the try says nothing better. */
  seconds: number;
  /** One line for the policy's comment and init's output: what was measured and why this number. */
  why: string;
  /** The try timed out: the problem to print, with the exact fix. */
  problem?: { problem: string; fix: string };
}

/** Null when the try's own budget fits with room to spare (the usual case: nothing to say). */
export function sizeTimeout(t: TryTimes): SizedTimeout | null {
  const load = `at load ${t.load.toFixed(0)}`;
  if (t.timedOut) return timedOut(t, load);
  const longest = Math.max(t.commandMs ?? 0, t.setupMs ?? 0) / 1000;
  if (longest * HEADROOM <= t.timeout) return null;
  const seconds = roundUp(longest * HEADROOM);
  const what = (t.setupMs ?? 0) > (t.commandMs ?? 0) ? "setup" : "tests";
  if (seconds > MAX_TIMEOUT) {
    return { seconds: MAX_TIMEOUT, why: `the try's ${what} took ${longest.toFixed(1)} s ${load}; ${HEADROOM} times that is over the ${MAX_TIMEOUT} s the gate allows, so the most it allows is written: run fewer tests` };
  }
  return { seconds, why: `the try's ${what} took ${longest.toFixed(1)} s ${load}: ${t.timeout} s would be tight (a judgment runs base and head side by side), so ${HEADROOM} times that, rounded up to a minute` };
}

function timedOut(t: TryTimes, load: string): SizedTimeout {
  const ran = Math.max(t.commandMs ?? 0, t.setupMs ?? 0) / 1000;
  const setup = t.commandMs === null;
  const share = setup ? null : progress(t.outputTail);
  const stopped = `the try's ${setup ? "setup" : "test run"} timed out after ${ran.toFixed(1)} s ${load}${share === null ? "" : `, ${share} % through (the runner's progress)`}`;
  const retry = "commit .github/ranex.yml, then `ranex tests --repo . --rev HEAD` runs the suite with it";
  if (share === null || share <= 0) {
    // How far it got is unknown: the budget is not guessed, the fix names one to try.
    const next = Math.min(MAX_TIMEOUT, roundUp(Math.max(ran, t.timeout) * 4));
    return {
      seconds: t.timeout, why: `${stopped}; how long the whole run takes is unknown`,
      problem: { problem: stopped, fix: `set \`timeout: ${next}\` under tests: in .github/ranex.yml (four times what it ran), or run fewer tests; ${retry}` },
    };
  }
  const whole = ran * 100 / share;
  const seconds = roundUp(whole * HEADROOM);
  if (seconds > MAX_TIMEOUT) {
    const why = `${stopped}: the whole run would take about ${whole.toFixed(0)} s here, and ${HEADROOM} times that is over the ${MAX_TIMEOUT} s the gate allows`;
    return { seconds: MAX_TIMEOUT, why, problem: { problem: why, fix: `run fewer tests (a narrower tests.command), or judge on a quieter machine; ${retry}` } };
  }
  const why = `${stopped}: the whole run would take about ${whole.toFixed(0)} s here, so ${HEADROOM} times that, rounded up to a minute`;
  return { seconds, why, problem: { problem: stopped, fix: `init wrote \`timeout: ${seconds}\` (about ${HEADROOM} times the ${whole.toFixed(0)} s the whole run would take here); ${retry}` } };
}

/** The last progress a runner printed as `[ NN%]` (pytest), or null. */
export function progress(output: string): number | null {
  const all = [...output.matchAll(/\[\s*(\d{1,3})%\]/g)];
  const last = all.at(-1)?.[1];
  if (last === undefined) return null;
  const share = Number(last);
  return share >= 0 && share <= 100 ? share : null;
}

function roundUp(seconds: number): number {
  return Math.ceil(seconds / 60) * 60;
}
