import { z } from "zod";
import { isCheckClaim, isKnownClaim, SANDBOX_CLAIM } from "../kernel/claims.js";

// The policy file `.github/ranex.yml` and task manifests `.ranex/tasks/<id>.yml`, as zod schemas.
// Strict everywhere: an unknown key is an error, never silently ignored. The committed JSON schema
// (schema/ranex.schema.json) is generated from these by `npm run schema`.

const glob = z.string().min(1);
const globs = z.array(glob);

export const DEFAULT_TEST_FILES = [
  "tests/**", "test/**", "**/__tests__/**", "**/*.test.*", "**/*.spec.*", "**/test_*.py", "**/*_test.py", "**/*_test.go",
];

export const DEFAULT_REQUIRE = [
  "diff.frozen", "diff.scope", "diff.safety", "secrets", "tests.regression", "tests.red_green", "tests.stable",
] as const;

/**
 * Files that are not code (issue 19): documentation, images and fonts. A binary file may be added
 * only here (anywhere else diff.safety fails it: nobody can review it, and an interpreter may load
 * it), and diff.needed never makes a mutant of one. Bytecode, native modules and archives are
 * never assets by default.
 */
export const DEFAULT_ASSETS = [
  "docs/**", "doc/**", "**/*.{md,markdown,rst,adoc}",
  "**/{README,LICENSE,LICENCE,COPYING,NOTICE,AUTHORS,CHANGELOG,CHANGES}", "**/{README,LICENSE,LICENCE,COPYING,NOTICE,AUTHORS,CHANGELOG,CHANGES}.*",
  "**/*.{png,jpg,jpeg,gif,webp,avif,bmp,ico,svg,tif,tiff}", "**/*.{woff,woff2,ttf,otf,eot}",
];

/** Claims that need the test suite to run. */
export const TEST_CLAIMS: readonly string[] = ["tests.regression", "tests.red_green", "tests.stable", "diff.needed", "edges.covered", "tests.sealed"];

/** Task ids name files under `.ranex/tasks/`: no separators, no leading dot or dash. */
export const TASK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

// `sandbox.isolated` is the judge's own claim for `sandbox: none`; listing it by hand would demand
// evidence nobody produces under bwrap, so it is refused with that reason rather than accepted.
const claimName = z.string()
  .refine((name) => name !== SANDBOX_CLAIM, { message: `${SANDBOX_CLAIM} is added by the judge itself when sandbox is none: do not list it` })
  .refine((name) => name === SANDBOX_CLAIM || isKnownClaim(name), {
    message: "unknown claim: expected diff.frozen, diff.scope, diff.safety, diff.needed, secrets, tests.regression, tests.red_green, tests.stable, tests.sealed, edges.covered or check:<name>",
  });

/** A GitHub login: letters, digits, `-` and `_` (Enterprise managed users), a bot's ending `[bot]`. */
export const LOGIN_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,59}(?:\[bot\])?$/;

/**
 * A person's or bot's login where the policy matches logins exactly. A team (`@org/team`) or a
 * stray blank would match nobody, silently: refused with the reason, at its key and line.
 */
function login(options: { at: boolean }) {
  const pattern = options.at ? `^@?${LOGIN_PATTERN.source.slice(1)}` : LOGIN_PATTERN.source;
  return z.string().min(1).superRefine((value, ctx) => {
    const problem = loginProblem(value, options.at);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  }).meta({ pattern });
}

function loginProblem(value: string, at: boolean): string | null {
  if (/\s/u.test(value)) return `${JSON.stringify(value)} has blanks in it, and a GitHub login has none: write ${JSON.stringify(value.replace(/\s+/gu, ""))}`;
  if (value.includes("/")) return `${JSON.stringify(value)} is a team, but only logins are matched here (a team's members are not looked up): list each person's login`;
  const bare = at ? value.replace(/^@/, "") : value;
  if (!at && value.startsWith("@")) return `${JSON.stringify(value)}: write the login without @ (${JSON.stringify(value.slice(1))})`;
  return LOGIN_PATTERN.test(bare) ? null : `${JSON.stringify(value)} is not a GitHub login (letters, digits, '-' or '_', a bot's ending in [bot])`;
}

const AgentsSchema = z.strictObject({
  /** GitHub logins whose PRs are agent PRs (`copilot-swe-agent[bot]`, `devin-ai-integration[bot]`). */
  authors: z.array(login({ at: false })).default([]),
  /** Labels that mark a PR as an agent's. */
  labels: z.array(z.string().min(1)).default([]),
  /** Head branch globs that mark a PR as an agent's (`codex/**`). */
  branches: globs.default([]),
  /** Logins (`alice` or `@alice`) of people who run the agents: they may not approve or re-judge the agents' work. */
  operators: z.array(login({ at: true })).default([]),
});

const TestsSchema = z.strictObject({
  /** What counts as a test file. As of the base they are frozen; new ones become red-then-green targets. */
  files: globs.default(DEFAULT_TEST_FILES),
  /** Runs the suite; must write a JUnit XML report to $RANEX_JUNIT. */
  command: z.string().min(1).optional(),
  /**
   * Installs dependencies into the tree (node_modules/, .venv/). Runs once per dependency key on a
   * clean copy of the base; what it created is reused read-only by every run (docs/policy.md).
   */
  setup: z.string().min(1).optional(),
  /** Seconds for the test command of each run; the once-only setup has the same budget. */
  timeout: z.number().int().positive().max(6 * 3600).default(600),
  /** May a PR add new test files? They become targets; `false` makes them a frozen violation. */
  allow_new: z.boolean().default(true),
  /** Give `setup` the network (never the command or checks). */
  setup_network: z.boolean().default(false),
  /**
   * Globs of files the setup reads besides the lock files (a vendored tarball, a build script): part
   * of the dependency key, so a change to them runs setup again instead of reusing the cached result.
   */
  setup_inputs: globs.default([]),
  /** How many times each target runs on each side for tests.stable (the main run counts as one). */
  repeat: z.number().int().min(1).max(20).default(3),
  /**
   * Runs only the tests listed in the file $RANEX_SELECT_FILE (one id a line; $RANEX_SELECT_PATTERN
   * holds their names as one regular expression), for repeats and mutants. pytest needs none: the
   * gate selects through its own plugin; nor does jest run through the gate's launcher. Without it,
   * other runners repeat the whole suite.
   */
  select: z.string().min(1).optional(),
  /**
   * Judge open agent PRs into this branch again each time it moves on, so a CANDIDATE always names
   * the base tip it would land on (lowest priority, coalesced). Off: the verdict says when it is older.
   */
  rejudge_on_base_push: z.boolean().default(false),
  /**
   * The test helpers the frozen tests import (modules outside `files` that assert) are frozen by
   * default (issue 19); `release` names the paths PRs may change anyway (exact paths, no globs).
   */
  helpers: z.strictObject({
    release: z.array(z.string().min(1).refine((p) => !/[*?[\]{}!]/.test(p), "name a path, not a glob")).default([]),
  }).default({ release: [] }),
});

const NeededSchema = z.strictObject({
  /** Hunks measured for diff.needed; the rest are listed as not checked (the claim fails). */
  max_hunks: z.number().int().positive().max(500).default(20),
  /** Seconds for all mutants of one judgment together. */
  timeout: z.number().int().positive().max(6 * 3600).default(600),
});

const CheckSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.-]+$/, "a check name is letters, digits, '.', '_' or '-'"),
  run: z.string().min(1),
  timeout: z.number().int().positive().max(6 * 3600).default(300),
});

const SandboxObject = z.strictObject({
  /** `bwrap` (default) or `none`. `none` adds an unsafe failing claim, so it can never yield CANDIDATE. */
  backend: z.enum(["bwrap", "none"]).default("bwrap"),
  /** Extra host paths mounted read-only (toolchains outside /usr). */
  readonly: z.array(z.string().startsWith("/", "must be an absolute path (starting with /)")).default([]),
  /** Memory limit per run, in MiB. */
  memory_mb: z.number().int().positive().default(4096),
  /** Process limit per run. */
  pids: z.number().int().positive().default(512),
  /** Output kept per run, in KiB (the tail is kept, the rest counted). */
  output_kib: z.number().int().positive().default(256),
  /** Private scratch per run (HOME and TMPDIR, a tmpfs of its own), in MiB. Writes past it fail with ENOSPC. */
  scratch_mb: z.number().int().positive().max(64 * 1024).default(512),
  /**
   * What a run may write into its tree (/work), in MiB, across the tree's runs (setup, tests). Writes
   * past it fail with ENOSPC and the run FAILs as unsafe. Default: 4 times the tree's size, at least 1024.
   */
  tree_mb: z.number().int().positive().max(256 * 1024).optional(),
});

/** `sandbox: none` is shorthand for `sandbox: { backend: none }`. */
export const SandboxSchema = z.preprocess(
  (value) => (typeof value === "string" ? { backend: value } : value),
  SandboxObject,
);

const ToolchainSchema = z.strictObject({
  /**
   * Directories put first on the sandbox's PATH, in order (pyenv, nvm, a runner's node_modules/.bin),
   * each mounted read-only; an entry ending in `/bin` mounts the directory above it.
   */
  path: z.array(
    z.string().startsWith("/", "must be an absolute path (starting with /)")
      .refine((p) => !p.includes(":"), "a PATH entry may not contain ':'")
      .refine((p) => !p.split("/").includes(".."), "may not contain '..'"),
  ).default([]),
});

const ApprovalSchema = z.strictObject({
  /** Qualifying approvals needed on the head sha. */
  count: z.number().int().positive().default(1),
  /** Teams (`org/team`) whose members may approve even without write permission. */
  teams: z.array(z.string().min(1)).default([]),
});

const OverrideSchema = z.strictObject({
  /** May a maintainer with no hand in the change override a FAIL with `/ranex override <reason>`? */
  allowed: z.boolean().default(true),
  /** Teams (`org/team`): when listed, only their members (with maintain or admin) may override. */
  teams: z.array(z.string().regex(/^@?[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/, "a team is org/team-slug")).default([]),
});

export const PolicySchema = z.strictObject({
  version: z.literal(1),
  agents: AgentsSchema.default(AgentsSchema.parse({})),
  tests: TestsSchema.default(TestsSchema.parse({})),
  /** Frozen globs added to the default frozen set. */
  frozen: globs.default([]),
  /** Files that are not code (docs, images, fonts): binary files may be added only here; diff.needed skips them. */
  assets: globs.default(DEFAULT_ASSETS),
  /** Exact paths taken out of the default frozen set (globs are not accepted here). */
  unfreeze: z.array(z.string().min(1).refine((p) => !/[*?[\]{}!]/.test(p), "name a path, not a glob")).default([]),
  scope: z.strictObject({ allow: globs.default(["**"]), deny: globs.default([]) }).default({ allow: ["**"], deny: [] }),
  // An empty list would make a gate that can never block (DESIGN.md, invariant 5): refused here, with its line.
  require: z.array(claimName).min(1, "require lists no claim, so the gate could never block a change: list at least one claim").default([...DEFAULT_REQUIRE]),
  checks: z.array(CheckSchema).default([]),
  limits: z.strictObject({
    /** Largest file a PR may add or change, in bytes. */
    file_bytes: z.number().int().positive().default(5 * 1024 * 1024),
  }).default({ file_bytes: 5 * 1024 * 1024 }),
  sandbox: SandboxSchema.default(SandboxObject.parse({})),
  /** The toolchain the runs use: extra PATH entries, mounted read-only. */
  toolchain: ToolchainSchema.default(ToolchainSchema.parse({})),
  approval: ApprovalSchema.default(ApprovalSchema.parse({})),
  /** diff.needed (opt-in: list it under require): each changed hunk must be needed by some test. */
  needed: NeededSchema.default(NeededSchema.parse({})),
  /** FAILs of class incomplete a PR may spend before humans are called in. */
  retries: z.number().int().min(0).default(3),
  /** Users (`@login`) or teams (`@org/team`) to mention when the retry budget is spent. */
  escalate: z.array(z.string().min(1)).default([]),
  /** `/ranex override <reason>` (docs/merge-authority.md): forbid it, or name the teams who may. */
  override: OverrideSchema.default(OverrideSchema.parse({})),
}).superRefine((policy, ctx) => {
  const names = new Set(policy.checks.map((c) => c.name));
  if (names.size !== policy.checks.length) ctx.addIssue({ code: "custom", path: ["checks"], message: "check names must be unique" });
  policy.require.forEach((claim, i) => {
    if (isCheckClaim(claim) && !names.has(claim.slice("check:".length))) {
      ctx.addIssue({ code: "custom", path: ["require", i], message: `${claim} names no entry under checks` });
    }
  });
  const needsTests = policy.require.some((c) => TEST_CLAIMS.includes(c));
  if (policy.require.includes("tests.stable") && policy.tests.repeat < 2) {
    ctx.addIssue({ code: "custom", path: ["tests", "repeat"], message: "tests.stable needs tests.repeat of at least 2 (or take tests.stable out of require)" });
  }
  if (needsTests && policy.tests.command === undefined) {
    ctx.addIssue({ code: "custom", path: ["tests", "command"], message: "tests.command is required while require lists a tests.* claim" });
  }
});

export const EdgeSchema = z.strictObject({
  id: z.string().min(1),
  from: z.string().min(1),
  to: z.string().min(1),
  /** Test ids (`file::name`); at least one must pass on head. */
  tests: z.array(z.string().min(1)).min(1),
});

export const TaskSchema = z.strictObject({
  id: z.string().regex(TASK_ID_PATTERN, "a task id is letters, digits, '.', '_' or '-', starting with a letter or digit").refine((id) => !id.includes(".."), "a task id may not contain '..'"),
  title: z.string().min(1),
  acceptance: z.array(z.string()).default([]),
  /** Globs that narrow the policy's scope for this task. */
  scope: globs.optional(),
  /** Test ids (`file::name`) that must fail on base and pass on head. */
  targets: z.array(z.string().min(1)).default([]),
  edges: z.array(EdgeSchema).default([]),
  /**
   * The task's sealed acceptance tests (`ranex seal`): a file under `.ranex/sealed/` on the base, which
   * only the gate's measuring process can open. Judged by tests.sealed (docs/policy.md).
   */
  sealed: z.string().regex(/^\.ranex\/sealed\/[A-Za-z0-9][A-Za-z0-9_.-]*\.sealed$/, "a sealed file lives at .ranex/sealed/<name>.sealed").optional(),
});

export type Policy = z.infer<typeof PolicySchema>;
export type Task = z.infer<typeof TaskSchema>;
export type Edge = z.infer<typeof EdgeSchema>;
export type NeededPolicy = z.infer<typeof NeededSchema>;
export type OverridePolicy = z.infer<typeof OverrideSchema>;
export type CheckSpec = z.infer<typeof CheckSchema>;
export type SandboxPolicy = z.infer<typeof SandboxObject>;
