// Runs a TAP-writing test runner for the gate (issue 22), one process per test file, and writes one
// TAP 14 document to $RANEX_REPORT whose top-level subtests are the files:
//
//   TAP version 14
//   # ranex tap-run: tape
//   # Subtest: test/calc.test.js
//       <the runner's own output for that file, indented four spaces>
//   ok 1 - test/calc.test.js
//   1..N
//
// TAP names no file, so this is how the gate attributes each test to its file: the runner is given one
// file at a time, and everything that run prints is nested under that file. The test code writes only
// inside its own file's subtest (every line of a child's output is indented), so the top level is
// this launcher's alone. A file whose run exits non-zero, or dies on a signal, gets `not ok` with the
// exit status and the last line of its stderr; src/runners/tap-report.ts reads that, a bail out, and
// a missing or broken plan as a file that failed to load, never as a pass.
//
// `ranex init` writes it for tape, node-tap, ava and `node --test --test-reporter=tap`:
//   node "$RANEX_REPORTERS/tap-run.cjs" <tape|tap|ava|node-test> [runner options... --] <files or globs...>
// Globs are expanded here (quote them: `**` means any folders, whatever the shell). The canary
// (RANEX_TAP_CANARY, a test file the gate wrote in the tree) runs as one more file, through the same
// runner and options; the variable is removed before any runner starts, so no test code sees it.
//
// Selection (tests.stable's repeats, diff.needed's mutants): $RANEX_SELECT_FILE lists ids
// `<file>::<name>`, one a line. Only the listed files among those the patterns match run, and in each
// the runner is told the names where it can: `node --test --test-name-pattern`, ava `--match`,
// node-tap `--grep` (top-level subtests). tape has no name filter: its listed files run whole. The
// document then says `# ranex select: ...` on its third line, and the reader leaves out the tests
// the runner skipped for the filter (they did not run), so a selected test the filter missed is
// absent from the report and the gate does not read the run as the selection's outcomes.
// With RANEX_SELECT_BY=file the list names whole test files instead (the PR's own runs, issue 22):
// only those among the files the patterns match run, with no name filter, and the document says
// `# ranex files: ...` instead (what the runner skips there, it skipped on its own).
"use strict";
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, like the other launchers */
const { spawnSync } = require("node:child_process");
const { existsSync, readdirSync, readFileSync, writeFileSync } = require("node:fs");
const { dirname, join, relative, sep } = require("node:path");

const searchFrom = [process.cwd(), ...(process.env.PATH ?? "").split(":").filter((d) => /\/node_modules\/\.bin\/?$/.test(d)).map((d) => dirname(d.replace(/\/$/, "")))];

/** The package's folder in the tree's node_modules (or a parent's), else the toolchain's; null when in neither. */
function packageDir(pkg) {
  for (const from of searchFrom) {
    for (let dir = from; ; dir = dirname(dir)) {
      const candidate = join(dir, "node_modules", pkg);
      if (existsSync(join(candidate, "package.json"))) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  return null;
}

/** The runner's CLI script: the package's own `bin` (its package.json is read directly: not every package exports it). */
function binOf(pkg, bin) {
  const dir = packageDir(pkg);
  if (dir === null) {
    process.stderr.write(`ranex: ${pkg} cannot be found from ${searchFrom.join(", ")}: add it to devDependencies or name a node_modules/.bin holding it in toolchain.path\n`);
    process.exit(1);
  }
  const field = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).bin;
  const rel = typeof field === "string" ? field : field?.[bin];
  if (typeof rel !== "string") {
    process.stderr.write(`ranex: ${pkg}'s package.json names no '${bin}' command\n`);
    process.exit(1);
  }
  return join(dir, rel);
}

/** node-tap's major version, from its package.json (Infinity when it cannot be read: the newest flags). */
function tapMajor() {
  const dir = packageDir("tap");
  try {
    const major = Number.parseInt(String(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version), 10);
    return Number.isFinite(major) ? major : Infinity;
  } catch {
    return Infinity;
  }
}

/** How each runner is asked for TAP on one file. */
const RUNNERS = {
  tape: () => [binOf("tape", "tape")],
  // node-tap: raw TAP, no coverage report or check (a file's coverage is no test outcome).
  // `--disable-coverage` is node-tap 18's; node-tap 16 and 17 (nyc inside) stop at it ("invalid
  // argument", every file a load error: npm/node-semver) and say `--no-coverage` instead.
  tap: () => [binOf("tap", "tap"), "--reporter=tap", tapMajor() < 18 ? "--no-coverage" : "--disable-coverage"],
  ava: () => [binOf("ava", "ava"), "--tap"],
  "node-test": () => ["--test", "--test-reporter=tap"],
};

const [runner, ...rest] = process.argv.slice(2);
if (runner === undefined || !(runner in RUNNERS)) {
  process.stderr.write(`ranex: tap-run.cjs <${Object.keys(RUNNERS).join("|")}> [options... --] <files...>\n`);
  process.exit(2);
}
const report = process.env.RANEX_REPORT ?? process.env.RANEX_JUNIT;
if (report === undefined || report === "") {
  process.stderr.write("ranex: RANEX_REPORT is not set: this runs under the gate, which names the report file\n");
  process.exit(1);
}
const split = rest.indexOf("--");
const options = split === -1 ? [] : rest.slice(0, split);
const patterns = split === -1 ? rest : rest.slice(split + 1);

function globRegExp(glob) {
  let out = "";
  for (let i = 0; i < glob.length; i += 1) {
    const ch = glob[i];
    if (ch === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      out += slash ? "(?:[^/]*/)*" : ".*";
      i += slash ? 2 : 1;
    } else if (ch === "*") out += "[^/]*";
    else if (ch === "?") out += "[^/]";
    else if (ch === "{") out += "(?:";
    else if (ch === "}") out += ")";
    else if (ch === ",") out += glob.slice(0, i).lastIndexOf("{") > glob.slice(0, i).lastIndexOf("}") ? "|" : ",";
    else out += ch.replace(/[.+^$()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

/** Every file under the working folder, node_modules and dot folders left out. */
function walk(dir = ".", found = []) {
  let entries = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const e of entries) {
    const rel = dir === "." ? e.name : `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (e.name !== "node_modules" && !e.name.startsWith(".")) walk(rel, found);
    } else if (e.isFile()) found.push(rel);
  }
  return found;
}

/**
 * The listed ids as a map from file to the names in it (a copy's `#<n>` suffix, the gate's own for a
 * shared id, also taken off), or null when nothing is selected.
 */
function selection() {
  const list = process.env.RANEX_SELECT_FILE;
  if (list === undefined || list === "") return null;
  const lines = readFileSync(list, "utf8").split("\n").filter((line) => line.trim() !== "");
  if (process.env.RANEX_SELECT_BY === "file") return new Map(lines.map((file) => [file.replace(/^\.\//, ""), []]));
  const ids = lines.filter((line) => line.includes("::"));
  if (ids.length === 0) return null;
  const byFile = new Map();
  for (const id of ids) {
    const file = id.slice(0, id.indexOf("::"));
    const name = id.slice(id.indexOf("::") + 2);
    const names = byFile.get(file) ?? [];
    names.push(name, ...(/#\d+$/.test(name) ? [name.replace(/#\d+$/, "")] : []));
    byFile.set(file, names);
  }
  return byFile;
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const exactly = (words) => `^(?:${[...new Set(words)].sort().map(escape).join("|")})$`;

/**
 * How each runner is told the names, from the ids' names (nested parts joined by `::`). A filter
 * may let more run (a parent's other subtests), never less; the report shows what ran.
 */
const NAME_FILTER = {
  // Node 20 matches each test's own name (a parent that matches runs all of its subtests), later
  // Node the names joined by spaces: both are in the pattern.
  "node-test": { flag: /^--test-name-pattern\b/, args: (names) => [`--test-name-pattern=${exactly(names.flatMap((n) => [...n.split("::"), n.split("::").join(" ")]))}`] },
  // ava's patterns are globs on titles: `*` matches itself too; a leading `!` would negate, so a
  // file with such a title runs whole.
  ava: { flag: /^(?:--match\b|-m$)/, args: (names) => (names.some((n) => n.startsWith("!")) ? [] : [...new Set(names)].map((n) => `--match=${n}`)) },
  // node-tap's --grep is a level of subtests each: the first level only, so a subtest runs whole.
  tap: { flag: /^(?:--grep\b|-g$)/, args: (names) => [`--grep=${exactly(names.map((n) => n.split("::")[0]))}`] },
};

/** Whether the command's own options already filter by name (then the gate's filter stays out: files only). */
function ownFilter() {
  const filter = NAME_FILTER[runner];
  return filter !== undefined && options.some((o) => filter.flag.test(o));
}

function nameFilter(names) {
  const filter = NAME_FILTER[runner];
  return filter === undefined || names.length === 0 || ownFilter() ? [] : filter.args(names);
}

/**
 * A file ava itself never runs as a test file, whatever glob matched it: a name or folder starting
 * with a single `_`, and helper and fixture folders under a test folder (ava's default ignores). The
 * guess init writes for ava (`test/**\/*.js`) matched chalk/chalk's `test/_fixture.js`, which ran as a
 * test file, printed no TAP and read as a load error on every run.
 */
function avaIgnores(file) {
  const parts = file.split("/");
  if (parts.some((p) => p.startsWith("_") && !p.startsWith("__"))) return true;
  const dirs = parts.slice(0, -1);
  const testDir = dirs.findIndex((d) => d === "test" || d === "tests" || d === "__tests__");
  return testDir >= 0 && dirs.slice(testDir + 1).some((d) => /^(?:__)?(?:helpers?|fixtures?)(?:__)?$/.test(d));
}

let all = null;
const files = [];
for (const pattern of patterns) {
  const clean = pattern.replace(/^\.\//, "");
  if (!/[*?{]/.test(clean)) {
    files.push(clean);
    continue;
  }
  all ??= walk();
  const re = globRegExp(clean);
  files.push(...all.filter((f) => re.test(f) && !(runner === "ava" && avaIgnores(f))).sort());
}
const canary = process.env.RANEX_TAP_CANARY;
delete process.env.RANEX_TAP_CANARY;
// Whole files (the PR's own runs): no name filter, so nothing the runner skips is the gate's doing.
const byFile = process.env.RANEX_SELECT_BY === "file";
const selected = selection();
// Read: no test code needs to know that it runs as a selection.
delete process.env.RANEX_SELECT_FILE;
delete process.env.RANEX_SELECT_PATTERN;
delete process.env.RANEX_SELECT_BY;
const runs = [...new Set(files)].filter((f) => selected === null || selected.has(f));
if (canary !== undefined && canary !== "") runs.push(relative(process.cwd(), canary).split(sep).join("/"));

// A child's "Bail out!" would stop a TAP reader at the whole document; it stays that file's alone.
const indent = (text) => text.split("\n").map((line) => (line === "" ? "" : `    ${line.replace(/^(\s*)Bail out!/, "$1# ranex: Bail out!")}`)).join("\n");
const yamlString = (text) => JSON.stringify(text.length > 500 ? `${text.slice(0, 499)}…` : text);
const lastLine = (text) => text.split("\n").map((l) => l.trim()).filter((l) => l !== "").pop() ?? "";
const firstError = (text) => text.split("\n").map((l) => l.trim()).find((l) => /^(?:\w*Error|Bail out!|Cannot |SyntaxError)/.test(l)) ?? lastLine(text);

const base = RUNNERS[runner]();
const out = ["TAP version 14", `# ranex tap-run: ${runner}`];
if (selected !== null && byFile) out.push("# ranex files: only the listed test files, whole");
else if (selected !== null) out.push(`# ranex select: by file${NAME_FILTER[runner] === undefined ? ` (${runner} cannot select by name)` : ownFilter() ? " (the command filters names itself)" : " and name"}`);
let failed = patterns.length === 0 || runs.length === 0;
if (runs.length === 0) out.push(`# no test files matched: ${patterns.join(" ")}`);
runs.forEach((file, i) => {
  // The canary is no listed file: it runs whole.
  const names = selected?.get(file) ?? [];
  const child = spawnSync(process.execPath, [...base, ...options, ...nameFilter(names), file], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, env: process.env });
  const stdout = child.stdout ?? "";
  const stderr = child.stderr ?? "";
  process.stderr.write(stderr);
  out.push(`# Subtest: ${file}`);
  if (stdout.trim() !== "") out.push(indent(stdout.replace(/\n$/, "")));
  const ok = child.status === 0;
  if (!ok) failed = true;
  out.push(`${ok ? "ok" : "not ok"} ${i + 1} - ${file}`);
  if (!ok) {
    const why = child.error !== undefined ? child.error.message : child.signal !== null ? `killed by ${child.signal}` : `exit status ${child.status}`;
    out.push("  ---", `  exit: ${yamlString(why)}`, `  stderr: ${yamlString(firstError(stderr))}`, "  ...");
  }
});
out.push(`1..${runs.length}`, "");
writeFileSync(report, out.join("\n"));
process.exit(failed ? 1 : 0);
