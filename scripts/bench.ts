// `npm run bench`: what the judge costs against one run of the test suite T (issue 11's targets, two
// cores free): a PR without new test files, warm (base cached) <= 1.10 T + 0.5 s and cold <= 1.25 T;
// a PR with new test files (four runs, three when warm; two of them only the new test files where the
// runner selects them: pytest, go, cargo), warm <= 2.1 T + 0.5 s. With a setup (`npm
// ci`, T = setup + suite), warm (dependencies and base cached) <= 1.25 T (issue 15). Go, Rust and Maven with
// init's policy (issue 22): T is the suite with its dependencies in place. Issue 22's targets too: warm
// <= 1.25 T for a suite of 5 s or more, warm < 5 s for a suite under a second (tests.stable's early
// repeats go beside the head run only when a core is free: say the load with every figure). Measured here, never in
// a test. `npm run bench -- go-calc rust-calc@honest` runs the cases whose name holds one of the words
// (RANEX_BENCH_ONLY does the same); RANEX_BENCH_ROUNDS (default 3) sets the rounds.
// `RANEX_BENCH_SECTION=provenance npm run bench` runs only the provenance record's cost (issue 19): wall
// and CPU time, and the instructions counted under callgrind, which decide against its 5 % target
// (the machine's load moves time, not instructions; RANEX_BENCH_INSTRUCTIONS=0 skips them; a suite
// `node` runs is counted once each way under V8's --predictable, which holds its count still; other
// Node commands RANEX_BENCH_COUNTS times each way, default 3, since Node's own threads move it).
// Last counts (issue 19, docs/measurement.md): python-calc@honest-task 784.5 M without the record,
// 815.9 M with it, +4.0 %, @honest 801.1 M and 833.7 M, +4.1 %, python-long@task +4.1 %: met;
// node-calc@honest, with stop 32's exports and loose-comparison checks, 536.4 M and 563.0 to 563.4 M,
// then (the quiet parent silent) 535.1 M and 562.0 M (+5.0 %), 536.3 M and 562.0 M (+4.8 %): at the
// line (node --test's own process moves by 1 to 2 M between runs, both ways; its `--require` floor is
// most of its share). Stop 33 (the code cache read by the fs binding, slots that can never change not
// watched): node-calc 536.5 M and 560.6 M, +4.5 %; node-long (200 tests) 2476.1 M and 2574.8 M, +4.0 %;
// then with Object's, RegExp's, Date's and Promise's prototypes watched again: node-calc 535.3 M and
// 560.2 M, +4.6 %; node-long 2475.6 M and 2580.0 M, +4.2 %.
// RANEX_BENCH_PROCESSES=1 prints each process's count.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

// Measures the built code, as it runs in production: from TypeScript sources every measuring
// process would also pay for compiling them on start.
const root = join(import.meta.dirname, "..");
execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(root, "dist", path)).href)) as T;
const { judge } = await load<typeof import("../src/judge/judge.js")>("judge/judge.js");
const { profileFor } = await load<typeof import("../src/judge/gate-for.js")>("judge/gate-for.js");
const { parsePolicy, POLICY_PATH } = await load<typeof import("../src/policy/index.js")>("policy/index.js");
const { createSandbox } = await load<typeof import("../src/sandbox/index.js")>("sandbox/index.js");
const { openRepository } = await load<typeof import("../src/workspace/index.js")>("workspace/index.js");
const { nodeReporterFor, reportersDirFor } = await load<typeof import("../src/measure/reporters.js")>("measure/reporters.js");
const { runSuite } = await load<typeof import("../src/measure/run-suite.js")>("measure/run-suite.js");
const { unmountUnder } = await load<typeof import("../src/sandbox/tree-limit.js")>("sandbox/tree-limit.js");
const { starterPolicy } = await load<typeof import("../src/policy/init.js")>("policy/init.js");
const { releaseTrees } = await load<typeof import("../src/sandbox/tree-limit.js")>("sandbox/tree-limit.js");
const { WARM_DIR, WARM_TIME } = await load<typeof import("../src/measure/deps/cache.js")>("measure/deps/cache.js");
const ROUNDS = Number(process.env.RANEX_BENCH_ROUNDS ?? 3);
const cases = [
  { repo: "python-calc", head: "honest-task", task: "div", newTests: false },
  { repo: "python-calc", head: "honest", task: "mul", newTests: true },
  { repo: "node-calc", head: "honest", task: null, newTests: true },
  // node:test with 200 quick tests in four files: the record's cost per test (issue 19), which three
  // tests cannot show (node:test's own work per test is about 3 M instructions; the record's look
  // as each test ends comes on top).
  { repo: "node-long", head: "honest", task: null, newTests: true },
  // A suite that takes seconds, as real ones do, so the fixed cost stops dominating the ratio.
  { repo: "python-slow", head: "task", task: "mul", newTests: false },
  { repo: "python-slow", head: "honest", task: null, newTests: true },
  // The same with diff.needed required too: the cost of its mutants (tests.stable is on by default).
  { repo: "python-slow-strict", head: "task", task: "mul", newTests: false },
  // A suite of about 6 s (60 waiting tests), for issue 22's "warm <= 1.25 T when the suite takes 5 s
  // or more": no other case has one on a quiet machine.
  { repo: "python-long", head: "task", task: "mul", newTests: false },
  { repo: "python-long", head: "honest", task: null, newTests: true },
  // A real `npm ci` setup (a vendored tarball, no network): warm reuses the installed dependencies.
  { repo: "node-npm", head: "task", task: null, newTests: false },
  { repo: "node-npm", head: "honest", task: null, newTests: true },
  // Go and Rust (issue 22) with the policy `ranex init` writes: the module cache and build cache (Go),
  // the crates.io registry (Rust) filled once by setup from the registries; T is the suite alone, its
  // dependencies in place, since setup runs once per lock file, not per judgment.
  { repo: "go-calc", head: "honest", task: "mul", newTests: true },
  { repo: "rust-calc", head: "honest", task: "mul", newTests: true },
  // Maven (issue 22): a three-module reactor with init's policy, the local repository filled once by
  // setup from Maven Central; the honest fix of core's red target, no new test file. tests.stable's
  // repeats of the target on the built head tree go through the gate's JUnit Platform launcher.
  { repo: "maven-reactor", head: "honest", task: "mul", newTests: false },
];
/** Fixtures whose policy is the one `ranex init` writes, committed on main before the heads. */
const INIT_POLICY = new Set(["go-calc", "rust-calc", "maven-reactor"]);
const only = [...process.argv.slice(2), ...process.env.RANEX_BENCH_ONLY === undefined ? [] : [process.env.RANEX_BENCH_ONLY]];
/** `RANEX_BENCH_SECTION=provenance`: only the provenance record's cost, no T and no judgments. */
const provenanceOnly = process.env.RANEX_BENCH_SECTION === "provenance";

/**
 * Builds a repository whose suite takes about 3 s: 30 tests (or `waiting`) that each wait 0.1 s, plus the owner's
 * red target for task `mul`. Head `task` implements mul (no new test files); head `honest` adds sub
 * with a test file of its own.
 */
/** A new repository at `dir` (branch main, nothing committed) and two hands to build it with. */
function scratchRepo(dir: string): { git: (...args: string[]) => Buffer; write: (path: string, text: string) => void } {
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], {
    env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@example.com", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@example.com", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  mkdirSync(dir, { recursive: true });
  git("init", "-q", "-b", "main");
  return { git, write };
}

function buildSlowRepo(dir: string, strict: boolean, waiting: number): void {
  const { git, write } = scratchRepo(dir);
  write(".github/ranex.yml", `version: 1\ntests:\n  command: python3 -m pytest --junitxml="$RANEX_JUNIT" tests\nscope: { allow: ["src/**"] }\n${strict ? "require: [diff.frozen, diff.scope, diff.safety, secrets, tests.regression, tests.red_green, tests.stable, diff.needed]\n" : ""}`);
  write(".ranex/tasks/mul.yml", `id: mul\ntitle: mul\nscope: ["src/**"]\ntargets: ["tests/test_mul.py::test_mul"]\n`);
  write("src/__init__.py", "");
  write("src/calc.py", "def add(a, b):\n    return a + b\n");
  const tests = Array.from({ length: waiting }, (_, i) => `def test_add_${i}():\n    time.sleep(0.1)\n    assert add(${i}, 1) == ${i + 1}\n`).join("\n");
  write("tests/test_add.py", `import time\nfrom src.calc import add\n\n${tests}`);
  write("tests/test_mul.py", "from src import calc\n\ndef test_mul():\n    assert calc.mul(3, 4) == 12\n");
  git("add", "-A");
  git("commit", "-q", "-m", "base");
  git("checkout", "-q", "-b", "task");
  write("src/calc.py", "def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    return a * b\n");
  git("add", "-A");
  git("commit", "-q", "-m", "mul");
  git("checkout", "-q", "-b", "honest", "main");
  write("src/calc.py", "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n");
  write("tests/test_sub.py", "from src.calc import sub\n\ndef test_sub():\n    assert sub(3, 4) == -1\n");
  git("add", "-A");
  git("commit", "-q", "-m", "sub");
}

/** A node:test suite of `files` files of `each` quick tests; head `honest` adds `sub` and a test file for it. */
function buildNodeLongRepo(dir: string, files: number, each: number): void {
  const { git, write } = scratchRepo(dir);
  write(".github/ranex.yml", 'version: 1\ntests:\n  command: node --test --test-reporter=junit --test-reporter-destination="$RANEX_JUNIT" test/\nscope: { allow: ["src/**"] }\n');
  write("src/calc.js", '"use strict";\nexports.add = (a, b) => a + b;\n');
  for (let f = 0; f < files; f++) {
    const tests = Array.from({ length: each }, (_, i) => `test("add ${f}.${i}", () => {\n  assert.strictEqual(add(${i}, ${f}), ${i + f});\n});\n`).join("");
    write(`test/add${f}.test.js`, `"use strict";\nconst test = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../src/calc.js");\n\n${tests}`);
  }
  git("add", "-A");
  git("commit", "-q", "-m", "base");
  git("checkout", "-q", "-b", "honest");
  write("src/calc.js", '"use strict";\nexports.add = (a, b) => a + b;\nexports.sub = (a, b) => a - b;\n');
  write("test/sub.test.js", '"use strict";\nconst test = require("node:test");\nconst assert = require("node:assert");\nconst { sub } = require("../src/calc.js");\n\ntest("sub", () => {\n  assert.strictEqual(sub(3, 4), -1);\n});\n');
  git("add", "-A");
  git("commit", "-q", "-m", "sub");
  git("checkout", "-q", "main");
}

/**
 * fixtures/repos/init-lockfile.sh (a dependency installed by `npm ci` from a tarball under vendor/)
 * with a policy whose setup is that `npm ci`; head `task` changes code only, `honest` adds a test file.
 */
function buildNpmRepo(dir: string): void {
  execFileSync("bash", [join(root, "fixtures/repos/init-lockfile.sh"), dir], { stdio: "ignore" });
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], {
    env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@example.com", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@example.com", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
  git("checkout", "-q", "main");
  mkdirSync(join(dir, ".github"), { recursive: true });
  writeFileSync(join(dir, ".github/ranex.yml"), [
    "version: 1",
    "tests:",
    "  setup: npm ci --offline --no-audit --no-fund",
    "  command: node --test --test-reporter=junit --test-reporter-destination=\"$RANEX_JUNIT\" test/",
    "  timeout: 120",
    "require: [tests.regression]",
  ].join("\n") + "\n");
  git("add", "-A");
  git("commit", "-q", "-m", "policy");
  git("rebase", "-q", "main", "honest");
  git("checkout", "-q", "-b", "task", "main");
  writeFileSync(join(dir, "src/table.js"), `${readFileSync(join(dir, "src/table.js"), "utf8")}// Columns are right-aligned to four places.\n`);
  git("add", "-A");
  git("commit", "-q", "-m", "comment");
  git("checkout", "-q", "main");
}

/** Commits the policy `ranex init` writes for the repository on main, and replays `head` on it. */
async function commitInitPolicy(dir: string, head: string): Promise<void> {
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], {
    env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@example.com", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@example.com", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
  mkdirSync(join(dir, ".github"), { recursive: true });
  writeFileSync(join(dir, ".github/ranex.yml"), await starterPolicy(dir));
  git("add", "-A");
  git("commit", "-q", "-m", "policy from ranex init");
  git("rebase", "-q", "main", head);
  git("checkout", "-q", "main");
}

/** Dates every file under `dir` WARM_TIME, as the dependency cache dates its warm layer. */
function dateTree(dir: string): void {
  if (!existsSync(dir)) return;
  if (lstatSync(dir).isDirectory()) for (const name of readdirSync(dir)) dateTree(join(dir, name));
  if (!lstatSync(dir).isSymbolicLink()) utimesSync(dir, WARM_TIME, WARM_TIME);
}

/**
 * Issue 22's targets, for every case whatever its policy: warm <= 1.25 T when the suite takes 5 s or
 * more; warm under 5 s when it takes under a second; in between, the case's own target above.
 */
function issue22Target(T: number, W: number): string {
  if (T >= 5) return `warm <= 1.25 T = ${(1.25 * T).toFixed(2)} s: ${W <= 1.25 * T ? "met" : "MISSED"}`;
  if (T < 1) return `warm < 5 s: ${W < 5 ? "met" : "MISSED"}`;
  return "none (a suite of 1 to 5 s)";
}

const summary: { name: string; T: number; C: number; W: number; issue22: string }[] = [];

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * The provenance record's cost in time: wall time of the suite run without and with it (median of the
 * rounds, and their spread, which shows how loud the machine was) and CPU time, which the machine's
 * load moves far less than wall time. Neither is judged against the 5 % target when the instructions
 * are counted (they decide); without valgrind the time is all there is, judged with its spread.
 */
function provenanceCost(plain: number[], recorded: number[], cpu: Record<"off" | "on", number[]>, counted: boolean): string {
  const seconds = (ms: number): string => (ms / 1000).toFixed(2);
  const percent = (share: number): string => `${share >= 0 ? "+" : ""}${(share * 100).toFixed(1)} %`;
  const spread = (xs: number[]): string => `${seconds(Math.min(...xs))}-${seconds(Math.max(...xs))} s`;
  const off = median(plain);
  const on = median(recorded);
  const share = (on - off) / off;
  const judged = counted ? "not judged: the load moves time; the instructions below decide the 5 % target"
    : `target <= 5 %: ${share <= 0.05 ? "met" : "MISSED"}, by wall time only (no valgrind), which the load moves: see the spread`;
  const wall = `wall ${seconds(off)} s without the record, ${seconds(on)} s with it: ${percent(share)} (${judged})`;
  const noise = `rounds ranged ${spread(plain)} without, ${spread(recorded)} with`;
  const cpuText = cpu.off.length === 0 || cpu.on.length === 0 ? "CPU time not measured (no cgroup)"
    : `CPU ${seconds(median(cpu.off))} s without, ${seconds(median(cpu.on))} s with: ${percent((median(cpu.on) - median(cpu.off)) / median(cpu.off))}`;
  return `provenance record: ${wall}; ${cpuText}  [median of ${plain.length} rounds; ${noise}]`;
}

/**
 * valgrind's callgrind in front of the suite's command, following every process it starts, each
 * writing its count beside the run's report (%q{RANEX_REPORT}: the report's path in the sandbox, which
 * is the host's). Null without valgrind: the record's cost is then said in time only.
 */
const VALGRIND = process.env.RANEX_BENCH_INSTRUCTIONS === "0" || !existsSync("/usr/bin/valgrind") ? null
  : "/usr/bin/valgrind --tool=callgrind --callgrind-out-file=/dev/null --trace-children=yes --log-file=%q{RANEX_REPORT}.callgrind.%p";

/** The instructions all the run's processes executed, from their callgrind logs; null when none counted. */
function countedInstructions(reportDir: string): number | null {
  let total = 0;
  let found = false;
  for (const name of existsSync(reportDir) ? readdirSync(reportDir) : []) {
    if (!name.includes(".callgrind.")) continue;
    const log = readFileSync(join(reportDir, name), "utf8");
    const collected = /Collected : (\d+)/.exec(log);
    if (collected !== null) {
      total += Number(collected[1]);
      found = true;
      // RANEX_BENCH_PROCESSES=1: each process's count and command line, to see where a difference goes.
      if (process.env.RANEX_BENCH_PROCESSES === "1") console.log(`  ${(Number(collected[1]) / 1e6).toFixed(2).padStart(8)} M  ${/Command: (.*)/.exec(log)?.[1] ?? name}`);
    }
  }
  return found ? total : null;
}

/**
 * How many runs each way are counted: Python's count moves by about 0.1 % between runs, so one
 * decides. Node's does not hold still (V8 compiles and collects on threads of its own, and seeds its
 * hashes at random: the same suite counted 524 M and 566 M without the record), so a suite run by
 * `node` itself is counted under V8's `--predictable` (one thread, fixed seeds; node --test passes it
 * on to each test file's process): then each test file's process counts the same to 0.01 M every run
 * and node --test's own moves by about 0.8 M, and one count each way decides. Any other Node command
 * (npx, npm) is counted RANEX_BENCH_COUNTS times each way (default 3), alternating.
 */
const NODE_COUNTS = Math.max(1, Number(process.env.RANEX_BENCH_COUNTS ?? 3));

/**
 * The target, judged from the counts: with several each way, met only when even the highest count
 * with the record against the lowest without is within 5 %, missed only when even the lowest against
 * the highest is over, and otherwise said to be inside the noise, with the range.
 */
function instructionsCost(off: number[], on: number[], node: "predictable" | "threads" | null): string {
  if (off.length === 0 || on.length === 0) return "instructions not counted (valgrind wrote no count)";
  const percent = (share: number): string => `${share >= 0 ? "+" : ""}${(share * 100).toFixed(1)} %`;
  const millions = (xs: number[]): string => xs.length === 1 ? `${(xs[0]! / 1e6).toFixed(1)} M` : `${(median(xs) / 1e6).toFixed(1)} M (median of ${xs.map((x) => (x / 1e6).toFixed(1)).join(", ")})`;
  const share = (median(on) - median(off)) / median(off);
  const low = Math.min(...on) / Math.max(...off) - 1;
  const high = Math.max(...on) / Math.min(...off) - 1;
  const verdict = off.length === 1 && on.length === 1 ? (share <= 0.05 ? "met" : "MISSED")
    : high <= 0.05 ? `met: at most ${percent(high)} pairing the counts' extremes`
      : low > 0.05 ? `MISSED: at least ${percent(low)} pairing the counts' extremes`
        : `not decided: pairing the counts' extremes gives ${percent(low)} to ${percent(high)}, which straddles it`;
  const how = node === "predictable" ? "callgrind, every process of the run, node under V8's --predictable (for counting only): it moves by about 0.2 % between runs"
    : node === "threads" ? `callgrind, every process of the run, ${Math.min(off.length, on.length)} runs each way: Node's own threads move the count by up to 8 % between runs`
    : "callgrind, every process of the run; THE FIGURE THAT DECIDES: it moves by about 0.1 % between runs, whatever the load";
  return `provenance record, instructions (${how}): ${millions(off)} without, ${millions(on)} with: ${percent(share)} (target <= 5 %: ${verdict})`;
}

for (const c of cases) {
  if (only.length > 0 && !only.some((word) => `${c.repo}@${c.head}`.includes(word))) continue;
  const work = mkdtempSync(join(tmpdir(), "ranex-bench-"));
  try {
    const repoDir = join(work, c.repo);
    if (c.repo.startsWith("python-slow")) buildSlowRepo(repoDir, c.repo === "python-slow-strict", 30);
    else if (c.repo === "python-long") buildSlowRepo(repoDir, false, 60);
    else if (c.repo === "node-npm") buildNpmRepo(repoDir);
    else if (c.repo === "node-long") buildNodeLongRepo(repoDir, 4, 50);
    else execFileSync("bash", [join(root, "fixtures/repos", `${c.repo}.sh`), repoDir], { stdio: "ignore" });
    if (INIT_POLICY.has(c.repo)) await commitInitPolicy(repoDir, c.head);

    // T: the suite alone, in the same sandbox profile, on the head tree.
    const repo = await openRepository(repoDir, join(work, "data-raw"));
    const head = await repo.resolveCommit(c.head);
    const base = await repo.resolveCommit("main");
    const blob = await repo.readBlob(base, POLICY_PATH, 1 << 18);
    const parsed = parsePolicy(blob?.toString("utf8") ?? "", POLICY_PATH);
    if (!parsed.ok) throw new Error(`bench fixture policy invalid: ${parsed.errors[0]?.message}`);
    const policy = parsed.policy;
    const sandbox = createSandbox(profileFor(policy));
    const raw: number[] = [];
    const setup = policy.tests.setup;
    // A registry setup (init's Go and Rust policies) is not part of T: it runs once per lock file, on
    // the base, as the judge runs it. Each T run starts from its dependencies and the base's build
    // outputs (the warm layer, dated as the cache dates it), so T still compiles what the head changed.
    const prepared = INIT_POLICY.has(c.repo);
    const depsTree = join(work, "raw-deps");
    if (setup && prepared && !provenanceOnly) {
      await repo.materialise(base, depsTree);
      const done = await sandbox.run({ command: setup, workdir: depsTree, env: {}, timeoutMs: 600_000, network: true });
      if (done.exitCode !== 0) throw new Error(`the bench's setup failed: ${done.violation ?? done.exitCode}: ${done.outputTail.slice(-500)}`);
    }
    for (let i = 0; i < (provenanceOnly ? 0 : ROUNDS); i++) {
      const tree = join(work, `raw-${i}`);
      await repo.materialise(head, tree);
      if (setup && prepared) {
        for (const entry of [".ranex-deps", WARM_DIR]) {
          if (existsSync(join(depsTree, entry))) cpSync(join(depsTree, entry), join(tree, entry), { recursive: true, verbatimSymlinks: true });
        }
        dateTree(join(tree, WARM_DIR));
      }
      const t0 = performance.now();
      if (setup && !prepared) await sandbox.run({ command: setup, workdir: tree, env: {}, timeoutMs: 600_000, network: false });
      const report = join(tree, "junit.xml");
      const run = await sandbox.run({ command: policy.tests.command ?? "true", workdir: tree, outdir: tree, env: { RANEX_JUNIT: report, RANEX_REPORT: report, RANEX_NODE_REPORTER: nodeReporterFor(sandbox.profile.backend), RANEX_REPORTERS: reportersDirFor(sandbox.profile.backend) }, timeoutMs: 600_000, network: false });
      raw.push(performance.now() - t0);
      // The python example keeps one red test on the base on purpose (task div), so a non-zero exit is fine.
      if (run.exitCode === null) throw new Error(`the raw test run did not finish: ${run.violation ?? "timeout"}: ${run.outputTail.slice(-500)}`);
    }

    // The provenance record's cost (issue 19): the same suite through the same path, with the gate's
    // hooks and the record's pipe and without, alternating so the machine's noise falls on both.
    if (policy.tests.setup === undefined) {
      const plain: number[] = [];
      const recorded: number[] = [];
      // CPU time too (when the sandbox's cgroup can tell): on a loaded machine wall time swings far
      // more than the record costs.
      const cpu: Record<"off" | "on", number[]> = { off: [], on: [] };
      let seen = "";
      for (let i = 0; i < ROUNDS; i++) {
        for (const withRecord of [false, true]) {
          const tree = join(work, `record-${i}-${withRecord ? "on" : "off"}`);
          await repo.materialise(head, tree);
          const t0 = performance.now();
          const suite = await runSuite(sandbox, {
            label: "head", treeDir: tree, readonly: [], reportDir: join(tree, "..", `report-${i}-${withRecord ? "on" : "off"}`),
            ...(withRecord ? { recordDir: join(work, `gate-${i}`) } : {}),
            setup: undefined, command: policy.tests.command ?? "true", setupNetwork: false, timeout: 600,
          });
          (withRecord ? recorded : plain).push(performance.now() - t0);
          if (typeof suite.command?.cpuMs === "number") cpu[withRecord ? "on" : "off"].push(suite.command.cpuMs);
          if (withRecord) {
            const r = suite.provenance?.record;
            seen = `the record saw ${r?.processes.length ?? 0} processes, ${r?.code.length ?? 0} tree files, ${r?.bytes ?? 0} bytes`;
          }
        }
      }
      console.log(`${c.repo}@${c.head}: ${provenanceCost(plain, recorded, cpu, VALGRIND !== null)}; ${seen}`);
      // What decides: the instructions every process of the run executes (valgrind's callgrind), one
      // run each way; they do not move with the machine's load as time does (Python's: ±0.1 %).
      if (VALGRIND !== null) {
        const command = policy.tests.command ?? "true";
        // A suite `node` runs itself is counted deterministic (see NODE_COUNTS): the flag goes on its command line.
        const predictable = /^node\s/.test(command);
        const node = /\bpython|pytest/.test(command) ? null : predictable ? "predictable" : "threads";
        const counted: Record<"off" | "on", number[]> = { off: [], on: [] };
        for (let i = 0; i < (node === "threads" ? NODE_COUNTS : 1); i++) {
          for (const withRecord of [false, true]) {
            const tree = join(work, `count-${i}-${withRecord ? "on" : "off"}`);
            await repo.materialise(head, tree);
            const reportDir = join(work, `count-report-${i}-${withRecord ? "on" : "off"}`);
            // valgrind reads the dynamic loader itself, which the judge's sandbox shows execute-only.
            await runSuite(createSandbox(profileFor(policy), { readableLoader: true }), {
              label: "head", treeDir: tree, readonly: [], reportDir, ...(withRecord ? { recordDir: join(work, `count-gate-${i}`) } : {}),
              setup: undefined, command: `${VALGRIND} ${predictable ? command.replace(/^node\s/, "node --predictable ") : command}`, setupNetwork: false, timeout: 1800,
            });
            const count = countedInstructions(reportDir);
            if (count !== null) counted[withRecord ? "on" : "off"].push(count);
          }
        }
        console.log(`${c.repo}@${c.head}: ${instructionsCost(counted.off, counted.on, node)}`);
      }
    }
    if (provenanceOnly) continue;

    // "Cold" is a base not yet cached, not dependencies never installed: one judgment fills the
    // dependency cache of a data folder every round then judges in, its base cache removed first (the
    // dependency key names the repository's mirror, which lives in the data folder).
    const primed = INIT_POLICY.has(c.repo) ? join(work, "data-primed") : null;
    if (primed !== null) await judge({ source: repoDir, base: "main", head: c.head, task: c.task, dataDir: primed });

    let warmStages: Record<string, number> = {};
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const dataDir = primed ?? join(work, `data-${i}`);
      // Prime the mirror so "cold" measures the missing base cache, not the first clone.
      await openRepository(repoDir, dataDir);
      rmSync(join(dataDir, "cache", "base"), { recursive: true, force: true });
      let t0 = performance.now();
      const first = await judge({ source: repoDir, base: "main", head: c.head, task: c.task, dataDir });
      cold.push(performance.now() - t0);
      t0 = performance.now();
      const second = await judge({ source: repoDir, base: "main", head: c.head, task: c.task, dataDir });
      warm.push(performance.now() - t0);
      warmStages = second.timings;
      if (first.verdict.verdict !== "CANDIDATE" || second.verdict.verdict !== "CANDIDATE") {
        throw new Error(`bench expected CANDIDATE for ${c.repo}@${c.head}, got ${first.verdict.verdict}/${second.verdict.verdict}: ${first.verdict.reasons.join("; ")}`);
      }
    }
    const T = median(raw) / 1000;
    const C = median(cold) / 1000;
    const W = median(warm) / 1000;
    // With a setup, T includes it; warm reuses the installed dependencies, so the target is 1.25 T.
    const setupInT = policy.tests.setup !== undefined && !INIT_POLICY.has(c.repo);
    const warmFactor = c.newTests ? 2.1 : setupInT ? 1.25 : 1.1;
    const warmTarget = warmFactor * T + (setupInT && !c.newTests ? 0 : 0.5);
    // diff.needed (opt-in) adds a suite run per changed hunk: the issues' targets are for the claims
    // every policy runs, so that case reports its cost and no target.
    const needed = policy.require.includes("diff.needed");
    const coldNote = needed ? "no target with diff.needed" : c.newTests ? "no target with new test files" : `target <= 1.25 T = ${(1.25 * T).toFixed(2)} s`;
    const warmNote = needed ? "no target with diff.needed: its mutants are printed below"
      : `target <= ${warmFactor} T${warmTarget > warmFactor * T ? " + 0.5 s" : ""} = ${warmTarget.toFixed(2)} s: ${W <= warmTarget ? "met" : "MISSED"}`;
    console.log(`${c.repo}@${c.head} (${c.newTests ? "with" : "without"} new test files): T=${T.toFixed(2)} s  cold=${C.toFixed(2)} s (${(C / T).toFixed(2)} T; ${coldNote})  warm=${W.toFixed(2)} s (${(W / T).toFixed(2)} T; ${warmNote})  [median of ${ROUNDS}]`);
    summary.push({ name: `${c.repo}@${c.head}`, T, C, W, issue22: issue22Target(T, W) });
    // tests.stable's repeats and diff.needed's mutants run after the main runs: their cost adds up.
    const extra = (stage: string): string => warmStages[stage] === undefined ? "not run" : `${(warmStages[stage] / 1000).toFixed(2)} s = ${(warmStages[stage] / 1000 / T).toFixed(2)} T`;
    // Early repeats (the task's targets, beside the head run when the base is cached) overlap the
    // head run: their wall time is shown, but only the repeats after the main runs add to the judgment.
    // The PR's own tests repeat by file right after their own selected runs (head+new, base+new), beside the head run.
    console.log(`  tests.stable repeats after the main runs: ${extra("repeats")}; beside the head run: ${extra("repeats-early")}; the PR's own after their runs: head+new ${extra("repeats:head+new")}, base+new ${extra("repeats:base+new")}; diff.needed mutants: ${extra("mutants")} (+ ${extra("mutants-prepare")} to lay them out)`);
    // Summed over runs that overlap: where the mutants' time went, selected tests or full suites.
    if (warmStages.mutants !== undefined) console.log(`  diff.needed runs, added up: selected tests ${extra("mutants-selected")}; full suite ${extra("mutants-full")}`);
    console.log(`  warm stages (ms, last round): ${Object.entries(warmStages).map(([k, v]) => `${k}=${v}`).join(" ")}`);
  } finally {
    // The T runs' trees are bounded by this process (src/sandbox/tree-limit.ts): unmounted first.
    releaseTrees();
    unmountUnder(work);
    rmSync(work, { recursive: true, force: true });
  }
}

// One line per case measured, to compare runs of the bench at a glance.
console.log("\ncase                                T (s)  cold (s)  warm (s)  warm/T  issue 22 target");
for (const row of summary) {
  console.log(`${row.name.padEnd(34)}  ${row.T.toFixed(2).padStart(5)}  ${row.C.toFixed(2).padStart(8)}  ${row.W.toFixed(2).padStart(8)}  ${(row.W / row.T).toFixed(2).padStart(6)}  ${row.issue22}`);
}
