// vitest: its own JUnit reporter (the classname is the test file's path). Through the gate's launcher
// (reporters/vitest-run.cjs) the canaries run inside every test file (./canary-in-file.ts) and repeats
// select their tests; a vitest command without the launcher gets a canary test file instead.
import { inFileCanaries } from "./canary-in-file.js";
import { detectNode, missingNote, NODE_KEY_FILES, nodeBin } from "./node-package.js";
import { expectCanaries } from "./test-file-canary.js";
import { vitestFiles } from "./js-select-files.js";
import type { Found, RepoView, Runner } from "./types.js";

/** Whether a test command runs vitest through the gate's own launcher. */
export function runsGateVitest(command: string): boolean {
  return /(?:^|\s)node\s+(?:"\$RANEX_REPORTERS\/vitest-run\.cjs"|\$RANEX_REPORTERS\/vitest-run\.cjs)(?:\s|$)/.test(command);
}

const CONFIG = /^(?:vitest|vite)\.config\.[cm]?[jt]s$/;
const WORKSPACE = /^vitest\.(?:workspace|projects)\.(?:[cm]?[jt]s|json)$/;

/**
 * Why the gate's launcher cannot put its canaries into this repository's test files, or null: it adds
 * them to the root project, and a configuration with projects of its own (vitest 3.2's `projects`, a
 * workspace file or key) runs its tests in other projects. Read from the text: a `projects:` or
 * `workspace:` key anywhere in a configuration, even a comment, is taken for one (the plain command then).
 */
async function launcherUnfit(repo: RepoView): Promise<string | null> {
  const workspace = [...repo.files].find((f) => WORKSPACE.test(f));
  if (workspace !== undefined) return `${workspace} gives vitest projects of its own`;
  for (const file of [...repo.files].filter((f) => CONFIG.test(f)).sort()) {
    if (/\b(?:projects|workspace)\s*:/.test(await repo.readText(file) ?? "")) return `${file} gives vitest projects of its own`;
  }
  return null;
}

/** The vitest version a package-lock.json (v2, v3) installs at the root, when it says. */
function lockedVersion(text: string | null): string | undefined {
  try {
    const lock = JSON.parse(text ?? "null") as { packages?: Record<string, { version?: unknown }> } | null;
    const version = lock?.packages?.["node_modules/vitest"]?.version;
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why the launcher cannot start this vitest, or null: it starts vitest through vitest/node's parseCLI,
 * which vitest 1.3 brought. The version package-lock.json installs decides, else the floor of the
 * range package.json declares (`^1.0.1` allows 1.0.1: too old). A range the gate cannot read
 * (`latest`, a URL) or a vitest from the toolchain is tried as the launcher (init's try shows it),
 * which names the version it cannot serve.
 */
async function tooOld(repo: RepoView, found: Found): Promise<string | null> {
  if (found.runnerDeclared !== true) return null;
  const locked = repo.files.has("package-lock.json") ? lockedVersion(await repo.readText("package-lock.json")) : undefined;
  const version = locked ?? found.runnerRange;
  const floor = /^\s*(?:\^|~|>=|=)?\s*v?(\d+)(?:\.(\d+))?/.exec(version ?? "");
  if (floor === null || /\|\||\s-\s|</.test(version ?? "")) return null;
  const [major, minor] = [Number(floor[1]), Number(floor[2] ?? 0)];
  if (major > 1 || (major === 1 && minor >= 3)) return null;
  const which = locked === undefined ? `package.json allows vitest ${version ?? ""}` : `package-lock.json installs vitest ${locked}`;
  return `${which}, older than 1.3, the first whose vitest/node the launcher can start vitest through (parseCLI)`;
}

const LAUNCHER = 'node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests';

export const vitest: Runner = {
  name: "vitest",
  runs: (command) => /\bvitest\b/.test(command),
  detect: async (repo) => {
    const found = await detectNode(repo, "vitest");
    if (found === null) return null;
    const unfit = await launcherUnfit(repo) ?? await tooOld(repo, found);
    return unfit === null ? found : { ...found, launcherUnfit: unfit };
  },
  // Vitest's JUnit classname is the test file's path, which is how the gate finds the file. init
  // writes the gate's launcher, which loads the canaries and the registration watch into every test
  // file and runs repeats of only the targets; vitest's own command where the launcher cannot serve
  // (projects of its own, vitest before 1.3), with a note: the canary is then a test file of its own, which
  // cannot see what a file does to its own `expect` or test registration.
  command: (found) => {
    const unfit = found.launcherUnfit;
    if (unfit === undefined) return { command: LAUNCHER, note: missingNote(found) };
    return {
      command: `${nodeBin(found, "vitest")} run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests`,
      note: [
        ...missingNote(found),
        `vitest's own command, not the gate's launcher: ${unfit}. Its canary is a test file of its own, which`,
        "cannot see a test file's `expect` neutered or its tests registered with other bodies; repeats run the whole suite (docs/measurement.md).",
      ],
    };
  },
  canary: (ctx) => (runsGateVitest(ctx.command) ? inFileCanaries("vitest", ctx) : expectCanaries("vitest", ctx)),
  fileCanary: (ctx) => (runsGateVitest(ctx.command) ? inFileCanaries("vitest", ctx) : null),
  // Repeats and mutants: the launcher runs only the listed ids' files, with their names as vitest's test name pattern.
  select: ({ command, common }) => (runsGateVitest(command) ? { command, env: common, how: "vitest launcher", skipsLeftOut: true } : null),
  // The PR's own runs: its new files as vitest's filters (the launcher's, or appended to vitest's own command).
  selectFiles: (ctx) => vitestFiles(ctx, runsGateVitest(ctx.command)),
  canSelect: runsGateVitest,
  repeatNote: "vitest through the gate's launcher repeats only the targets; vitest's own command repeats the whole suite unless `select` says how.",
  deps: { keyFiles: NODE_KEY_FILES },
};
