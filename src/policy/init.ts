import { detectTestRunner, type Detection } from "./detect.js";
import { DEFAULT_TEST_FILES } from "./schema.js";

// `ranex init`: a commented starter policy for the repository at `dir`. Every file it writes
// validates with parsePolicy (tested per runner), so the owner starts from something that works.

const TEST_CLAIMS = ["tests.regression", "tests.red_green"];
const DIFF_CLAIMS = ["diff.frozen", "diff.scope", "diff.safety", "secrets"];

/** Single-quoted YAML: no escapes to think about, and `"$RANEX_JUNIT"` stays readable. */
function quote(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function testCommand(found: Detection): { command: string; note: string[] } | null {
  switch (found.kind) {
    case "vitest":
      return { command: 'npx vitest run --reporter=junit --outputFile="$RANEX_JUNIT"', note: [] };
    case "node-test":
      return { command: 'node --test --test-reporter="$RANEX_NODE_REPORTER" --test-reporter-destination="$RANEX_JUNIT"', note: [] };
    case "jest":
      return {
        command: 'JEST_JUNIT_OUTPUT_FILE="$RANEX_JUNIT" npx jest --ci --reporters=default --reporters=jest-junit',
        note: found.jestJunit ? [] : ["jest writes JUnit through jest-junit, which package.json does not list yet: add it to devDependencies"],
      };
    case "pytest":
      return { command: 'python3 -m pytest -q -p no:cacheprovider --continue-on-collection-errors -o xfail_strict=true --junitxml="$RANEX_JUNIT"', note: [] };
    case "none":
      return null;
  }
}

export async function starterPolicy(dir: string): Promise<string> {
  return renderStarter(await detectTestRunner(dir));
}

export function renderStarter(found: Detection): string {
  const tests = testCommand(found);
  const checks = tests === null ? [] : found.checks;
  const require = [...DIFF_CLAIMS, ...(tests === null ? [] : TEST_CLAIMS), ...checks.map((c) => `check:${c.name}`)];
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
    `  files: [${DEFAULT_TEST_FILES.map(quote).join(", ")}]`,
  ];
  if (tests === null) {
    lines.push(
      "  # No test runner was found. Name a command that writes a JUnit XML report to $RANEX_JUNIT,",
      "  # then add tests.regression and tests.red_green to require below.",
      "  # command: 'make test'",
    );
  } else {
    for (const note of tests.note) lines.push(`  # ${note}`);
    lines.push("  # Runs in the sandbox, without network; must write a JUnit XML report to $RANEX_JUNIT.", `  command: ${quote(tests.command)}`);
  }
  if (found.install !== null) {
    lines.push(
      "  # Installs dependencies before the command, in the same sandbox.",
      `  setup: ${quote(found.install)}`,
      "  setup_network: true   # only setup gets the network; the tests and checks never do",
    );
  }
  lines.push("  timeout: 600   # seconds for setup plus command, per run", "");
  lines.push(
    "# Extra frozen globs, added to the defaults (test files, .github/**, .ranex/**, runner configs, lock files).",
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
