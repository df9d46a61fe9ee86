// Go: `go test -json` (test2json events, read by go-report.ts). Dependencies are the module cache,
// filled once per go.sum by `go mod download` in setup (with network) and read-only in runs, which
// are offline (GOPROXY=off, GOFLAGS=-mod=readonly). Setup also warms a build cache: it is stored as
// the warm layer (src/measure/deps/cache.ts), above the standard library the gate compiled once per
// toolchain (src/measure/deps/go-std.ts); both lie beneath every run's tree copy-on-write, so a run compiles
// only the packages whose sources changed and writes its own entries into its own tree. -count=1:
// with the build cache in the tree, the repeats of tests.stable would otherwise read the head run's
// cached results instead of running the tests again. The canary is a `_test.go` file written into one
// package folder.
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { WARM_DIR } from "../measure/deps/cache.js";
import { claimsGoJson, modulePath, packageFolder, parseGoJson } from "./go-report.js";
import { findBinary, toolchainFor } from "./toolchain.js";
import { localGoVersion, neededToolchain } from "./go-toolchain.js";
import { goCanaries } from "./canary-compiled.js";
import type { CanaryMember, Runner } from "./types.js";

/** Where setup leaves the module cache, in the tree (stored under the dependency key, read-only in runs). */
export const GO_DEPS_DIR = ".ranex-deps/go";
/** Where setup leaves the build cache: the warm layer, writable copy-on-write in every run. */
export const GO_BUILD_DIR = `${WARM_DIR}/go-build`;

/** The Go environment of the gate's commands: its module cache, its build cache, no toolchain download. */
export const GO_ENV = `GOMODCACHE="$PWD/${GO_DEPS_DIR}/mod" GOFLAGS=-mod=readonly GOTOOLCHAIN=local GOCACHE="$PWD/${GO_BUILD_DIR}"`;
/** The runs: offline, the module cache read-only, the build cache the warm layer of the run's tree. */
export const GO_TEST_COMMAND = `${GO_ENV} GOPROXY=off go test -count=1 -json ./... > "$RANEX_REPORT"`;
/** Once per go.sum: the modules, and a build of every package's tests (a failing build is no failed setup). */
export const GO_SETUP_COMMAND = `export ${GO_ENV}; go mod download && { go test -count=1 -run '^$' ./... >/dev/null 2>&1 || true; }`;

/** A command of GO_ENV's with the toolchain Go fetches as a module in place of `local`. */
const withToolchain = (command: string, toolchain: string): string => command.replace("GOTOOLCHAIN=local", `GOTOOLCHAIN=${toolchain}`);

/** The command builds into the gate's build cache: the gate's standard-library layer (src/measure/deps/go-std.ts) helps it. */
export const usesGateGoCache = (command: string | undefined): boolean => command?.includes(GO_BUILD_DIR) === true;

// The -run pattern a selection adds holds `|`: quoted, it is no pipe.
const runsGoJson = (command: string): boolean => /\bgo\s+test\b(?:'[^']*'|[^|;&'])*\s-json\b/.test(command);

/** Package folders (relative, `` for the root) that hold `_test.go` files, outside testdata, vendor, dot and underscore folders. */
async function testFolders(treeDir: string, rel = "", depth = 0): Promise<string[]> {
  if (depth > 12) return [];
  let entries;
  try {
    entries = await readdir(join(treeDir, rel), { withFileTypes: true });
  } catch {
    return [];
  }
  const found = entries.some((e) => e.isFile() && e.name.endsWith("_test.go")) ? [rel] : [];
  for (const e of entries) {
    if (!e.isDirectory() || /^[._]/.test(e.name) || e.name === "testdata" || e.name === "vendor" || e.name === "node_modules") continue;
    const sub = rel === "" ? e.name : `${rel}/${e.name}`;
    // A nested module is not part of `./...`.
    if (entries.length > 0 && (await readdir(join(treeDir, sub)).catch(() => [] as string[])).includes("go.mod")) continue;
    found.push(...await testFolders(treeDir, sub, depth + 1));
  }
  return found;
}

/** The package clause of a folder's test files: one without build constraints first (the canary has none). */
async function clauseOf(treeDir: string, folder: string): Promise<string | null> {
  const files = (await readdir(join(treeDir, folder))).filter((f) => f.endsWith("_test.go")).sort();
  let constrained: string | null = null;
  for (const file of files) {
    const text = await readFile(join(treeDir, folder, file), "utf8").catch(() => "");
    const clause = /^\s*package\s+(\w+)/m.exec(text)?.[1];
    if (clause === undefined) continue;
    if (!/^\/\/go:build\s/m.test(text.slice(0, text.search(/^\s*package\s/m)))) return clause;
    constrained ??= clause;
  }
  return constrained;
}

export const go: Runner = {
  name: "go",
  runs: runsGoJson,
  async detect(repo) {
    if (!repo.files.has("go.mod")) return null;
    const vendored = repo.files.has("vendor") && (await repo.list("vendor")).includes("modules.txt");
    const binDir = findBinary("go", ["/usr/local/go/bin", "/usr/lib/go/bin"]);
    // A go line newer than the machine's go: setup fetches the toolchain Go would pick (./go-toolchain.ts).
    const local = binDir === null ? null : localGoVersion(binDir);
    const needed = local === null ? null : neededToolchain(await repo.readText("go.mod") ?? "", local);
    let install = vendored ? GO_SETUP_COMMAND.replace("-mod=readonly", "-mod=vendor") : GO_SETUP_COMMAND;
    if (needed !== null) install = withToolchain(install, needed);
    return {
      evidence: needed === null ? "go.mod" : `go.mod; it asks for a newer Go than this machine's ${local ?? ""}, so setup fetches ${needed} from the Go module proxy into the module cache, and the runs start it from there (GOTOOLCHAIN=${needed})`,
      runnerDeclared: true, reporterDeclared: true,
      // Always a setup: it warms the build cache every run starts from. A vendored module reads vendor/.
      install,
      toolchain: toolchainFor(binDir),
    };
  },
  command: (found) => {
    let command = found.install?.includes("-mod=vendor") === true ? GO_TEST_COMMAND.replace("-mod=readonly", "-mod=vendor") : GO_TEST_COMMAND;
    const toolchain = /\bGOTOOLCHAIN=(go[\w.]+)/.exec(found.install ?? "")?.[1];
    if (toolchain !== undefined) command = withToolchain(command, toolchain);
    return { command, note: ["go test -json writes test2json events to $RANEX_REPORT; ids are <package>/<TestName>[/<subtest>]."] };
  },
  read: { format: "go test -json", claims: claimsGoJson, parse: (text, _resolve, treeDir) => parseGoJson(text, treeDir) },
  // The `_test.go` file of the id's package folder that declares its top-level test.
  async fileOfId(id, base) {
    const module = /^\s*module\s+"?([^\s"]+)"?/m.exec(await base.read("go.mod") ?? "")?.[1] ?? null;
    const match = /^(.+?)\/((?:Test|Example|Fuzz)\w*)(?:\/.*)?$/.exec(id);
    const folder = match?.[1] === undefined ? null : packageFolder(match[1], module);
    if (folder === null || match?.[2] === undefined) return null;
    const declares = new RegExp(`^func\\s+${match[2]}\\s*\\(`, "m");
    for (const file of [...base.files].filter((f) => f.endsWith("_test.go") && f.slice(0, f.lastIndexOf("/") + 1) === (folder === "" ? "" : `${folder}/`)).sort()) {
      if (declares.test(await base.read(file) ?? "")) return file;
    }
    return null;
  },
  // A canary in every package folder whose tests run: each package is a test binary of its own, and
  // code under test (an init(), a test's call) that forges one binary's output or ends it early meets
  // the canary compiled into that binary, whichever package it is (issue 19).
  async canary(ctx) {
    const { treeDir } = ctx;
    const folders = await testFolders(treeDir);
    if (folders.length === 0) return { note: "go: no package folder holds a _test.go file to put the canary beside" };
    const module = modulePath(treeDir);
    if (module === null) return { note: "go: the tree's go.mod names no module, so the canaries' ids cannot be told" };
    const taken = new Set<string>();
    const placed: { members: CanaryMember[]; treeFiles: string[] } = { treeFiles: [], members: [] };
    const notes: string[] = [];
    for (const folder of folders) {
      const clause = await clauseOf(treeDir, folder);
      if (clause === null) {
        notes.push(folder || ".");
        continue;
      }
      const given = await goCanaries(ctx, folder, clause, folder === "" ? module : `${module}/${folder}`, taken);
      placed.treeFiles.push(...given.treeFiles);
      placed.members.push(...given.members);
    }
    if (placed.members.length === 0) return { note: `go: no test file has a package clause to copy (${notes.join(", ")})` };
    return placed;
  },
  select({ command, ids }) {
    if (!canSelectGo(command)) return null;
    // Per package, its top-level tests (a subtest runs with its parent: the others are reported too).
    const byPackage = new Map<string, Set<string>>();
    for (const id of ids) {
      const match = /^(.+?)\/(Test\w*|Example\w*|Fuzz\w*)(?:\/.*)?$/.exec(id);
      if (match?.[1] === undefined || match[2] === undefined || !/^[\w.\-/~]+$/.test(match[1])) return null;
      byPackage.set(match[1], (byPackage.get(match[1]) ?? new Set()).add(match[2]));
    }
    const names = [...new Set([...byPackage.values()].flatMap((s) => [...s]))].sort();
    const packages = [...byPackage.keys()].sort();
    if (names.length === 0) return null;
    return {
      // Replacer functions: `$'` in a replacement string would mean "the text after the match".
      command: command.replace(/\bgo\s+test\b/, () => `go test -run '^(${names.join("|")})$'`).replace(/(\s)\.\/\.\.\.(?=\s|$)/, (_m, space: string) => `${space}${packages.join(" ")}`),
      env: {}, how: "go test -run",
    };
  },
  // The PR's own runs: the packages that hold its new test files, in place of `./...` (every test
  // of those packages runs; the others' are not read). Only packages `./...` itself would test.
  selectFiles({ command, files, treeDir }) {
    if (!canSelectGo(command) || files.length === 0) return null;
    const folders = new Set<string>();
    for (const file of files) {
      const parts = file.split("/");
      // go ignores files and folders named with a leading dot or underscore, and testdata and vendor.
      if (!file.endsWith("_test.go") || parts.some((p) => /^[._]/.test(p)) || parts.slice(0, -1).some((p) => p === "testdata" || p === "vendor")) return null;
      // A nested module is not part of `./...`.
      for (let i = 1; i < parts.length; i++) if (existsSync(join(treeDir, ...parts.slice(0, i), "go.mod"))) return null;
      const folder = parts.slice(0, -1).join("/");
      if (!/^[\w.\-/~]*$/.test(folder)) return null;
      folders.add(folder === "" ? "." : `./${folder}`);
    }
    const packages = [...folders].sort().join(" ");
    return { command: command.replace(/(\s)\.\/\.\.\.(?=\s|$)/, (_m, space: string) => `${space}${packages}`), env: {}, how: "go test, by package" };
  },
  canSelect: canSelectGo,
  repeatNote: "go test repeats only the targets (the gate names them to -run, per package).",
  deps: { keyFiles: ["**/go.mod", "**/go.sum", "**/go.work", "**/go.work.sum", "**/vendor/modules.txt"] },
};

function canSelectGo(command: string): boolean {
  return runsGoJson(command) && /\s\.\/\.\.\.(?:\s|$)/.test(command) && !/\s-run[\s=]/.test(command);
}

export { modulePath, packageFolder };
