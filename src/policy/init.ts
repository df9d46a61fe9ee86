import { detectTestRunner, type Detection } from "./detect.js";
import { missingNodePackages } from "../runners/node-package.js";
import { DEFAULT_TEST_FILES } from "./schema.js";
import { runnerNamed } from "../runners/index.js";
import { DEFAULT_TIMEOUT } from "./init-timeout.js";

// `ranex init`: a commented starter policy for the repository at `dir`. Every file it writes
// validates with parsePolicy (tested per runner), so the owner starts from something that works.

// The policy default (a require list left out) includes tests.stable: what init writes says the same.
const TEST_CLAIMS = ["tests.regression", "tests.red_green", "tests.stable"];
const DIFF_CLAIMS = ["diff.frozen", "diff.scope", "diff.safety", "secrets"];

/** Single-quoted YAML: no escapes to think about, and `"$RANEX_JUNIT"` stays readable. */
function quote(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

export interface StarterOptions {
  /** `toolchain.path` to write (from `ranex init --toolchain`). */
  toolchain?: string[];
  /** The detected checks to write (those that passed on HEAD); default: all detected. */
  checks?: { name: string; run: string }[];
  /** Detected checks that were not written, and why ("fails on HEAD", "not tried"). */
  dropped?: { name: string; run: string; why: string }[];
  /** The repository has tasks with sealed acceptance tests: require tests.sealed (docs/policy.md). */
  sealed?: boolean;
  /** tests.timeout to write (default 600), and why, when sized from the try (./init-timeout.ts). */
  timeout?: { seconds: number; why?: string };
}

/** The packages the runner needs that package.json does not declare (what `--add-deps` installs). */
export function missingPackages(found: Detection): string[] {
  return found.kind === "none" || found.kind === "pytest" || found.kind === "unittest" ? [] : missingNodePackages(found);
}

/** The test command the detected runner's module writes (src/runners), or null when none was found. */
export function testCommand(found: Detection): { command: string; note: string[] } | null {
  if (found.kind === "none") return null;
  const written = runnerNamed(found.kind)?.command(found) ?? null;
  const before = found.preSteps ?? [];
  if (written === null || before.length === 0) return written;
  // What the test script runs before the runner (code generation, a build) runs before it here too,
  // in the same tree: a check never does it for the tests (checks have a tree of their own).
  return {
    command: [...before, written.command].join(" && "),
    note: [...written.note, `${before.join(" && ")}: kept from package.json's test script, which runs it before the tests.`],
  };
}

export async function starterPolicy(dir: string, options: StarterOptions = {}): Promise<string> {
  return renderStarter(await detectTestRunner(dir), options);
}

export function renderStarter(found: Detection, options: StarterOptions = {}): string {
  const tests = testCommand(found);
  const checks = tests === null ? [] : options.checks ?? found.checks;
  const require = [
    ...DIFF_CLAIMS, ...(tests === null ? [] : TEST_CLAIMS), ...(tests !== null && options.sealed === true ? ["tests.sealed"] : []),
    ...checks.map((c) => `check:${c.name}`),
  ];
  const lines: string[] = [
    "# Ranex Gate policy. The gate reads this file from the BASE branch of each pull request, never",
    "# from the pull request itself. Reference: docs/policy.md; JSON schema: schema/ranex.schema.json.",
    `# Written by \`ranex init\`: ${found.evidence}. Review it before committing.`,
    "version: 1",
    "",
    "# Which pull requests are an agent's (used by the GitHub App).",
    "agents:",
    "  authors: []     # e.g. ['copilot-swe-agent[bot]']",
    "  labels: []      # e.g. ['agent']",
    "  branches: []    # e.g. ['codex/**']",
    "  operators: []   # people who run the agents: they may not approve the agents' work",
    "",
    "tests:",
    "  # Test files as of the base are frozen; new ones a PR adds must go red on base, green on head.",
    `  files: [${[...DEFAULT_TEST_FILES, ...found.testFiles ?? []].map(quote).join(", ")}]`,
  ];
  if (tests === null) {
    lines.push(
      "  # No test runner was found. Name a command that writes a JUnit XML report to $RANEX_JUNIT,",
      "  # then add tests.regression, tests.red_green and tests.stable to require below.",
      "  # command: 'make test'",
    );
  } else {
    for (const note of tests.note) lines.push(`  # ${note}`);
    const format = runnerNamed(found.kind)?.read?.format;
    const writes = format === undefined ? "a JUnit XML report to $RANEX_JUNIT" : `its ${format} report to $RANEX_REPORT`;
    lines.push(`  # Runs in the sandbox, without network; must write ${writes}.`, `  command: ${quote(tests.command)}`);
  }
  if (found.install !== null) {
    lines.push(
      "  # Installs dependencies before the command, in the same sandbox.",
      ...(found.installNote === undefined ? [] : [`  # ${found.installNote}`]),
      `  setup: ${quote(found.install)}`,
      "  setup_network: true   # only setup gets the network; the tests and checks never do",
    );
  }
  const timeout = options.timeout ?? { seconds: DEFAULT_TIMEOUT };
  if (timeout.why !== undefined) lines.push(`  # timeout: ${timeout.why}.`);
  lines.push(`  timeout: ${timeout.seconds}   # seconds for the command of each run; the once-only setup gets as long`);
  if (tests !== null) {
    lines.push(
      "  # tests.stable runs each target this many times on base and head (a flaky green is not green).",
      `  # ${runnerNamed(found.kind)?.repeatNote ?? ""}`,
      "  repeat: 3",
    );
  }
  lines.push("");
  const toolchain = [...new Set([...options.toolchain ?? [], ...found.toolchain ?? []])];
  lines.push(
    "# The toolchain the runs use: directories put first on the sandbox's PATH, mounted read-only",
    "# (pyenv or nvm bin folders, a node_modules/.bin with the test runner). `ranex doctor --policy` shows them.",
    "toolchain:",
    `  path: [${toolchain.map(quote).join(", ")}]`,
    "",
  );
  const readonly = found.sandboxReadonly ?? [];
  if (readonly.length > 0 || found.scratch !== undefined) {
    if (readonly.length > 0) lines.push("# Host folders the toolchain links into, mounted read-only in every run.");
    lines.push("sandbox:");
    if (readonly.length > 0) lines.push(`  readonly: [${readonly.map(quote).join(", ")}]`);
    if (found.scratch !== undefined) lines.push(`  # ${found.scratch.why}`, `  scratch_mb: ${found.scratch.mb}`);
    lines.push("");
  }
  lines.push(
    "# Extra frozen globs, added to the defaults (test files, test data, .github/**, .ranex/**, runner and build configs, lock files).",
    "frozen: []",
    "",
    "# Paths a pull request may change; deny wins over allow.",
    "scope:",
    "  allow: ['**']",
    "  deny: []",
    "",
  );
  if (checks.length > 0) {
    lines.push("# Extra commands run in the sandbox on the head; each becomes the claim check:<name>.", "checks:");
    for (const c of checks) lines.push(`  - name: ${c.name}`, `    run: ${quote(c.run)}`, "    timeout: 300");
    lines.push("");
  }
  for (const drop of options.dropped ?? []) lines.push(`# Not written: check '${drop.name}' (${drop.run}) ${drop.why}.`);
  if ((options.dropped ?? []).length > 0) lines.push("");
  lines.push(
    "# Claims that must hold for a CANDIDATE verdict. An empty list is refused: it could never block.",
    "require:",
    ...require.map((claim) => `  - ${claim}`),
    "",
    "# FAILs of class incomplete a pull request may spend before people are called in.",
    "retries: 3",
    "escalate: []   # e.g. ['@octo-org/reviewers']",
    "",
  );
  return lines.join("\n");
}
