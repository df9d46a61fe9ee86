// cargo-nextest, for Rust repositories that use it (.config/nextest.toml): its JUnit report, with the
// ids of the cargo runner (`<crate>::<target>::<path::to::test>`, so a task's targets read the same
// under either runner). The report is where the repository's `[profile.default.junit] path` puts it
// (under target/nextest/default/); a repository that names none gets the gate's tool config
// (reporters/nextest.toml), which repository settings override but which gives the default profile a
// JUnit path. Dependencies and the target folder are cargo's (src/runners/cargo.ts). A build that
// fails writes no JUnit: the command then hands cargo's own output to the gate, whose cargo reader
// makes the compile errors load errors of the files rustc names. `--retries 0`: a retry that passes
// would hide from tests.stable the very flakiness it measures.
import { posix } from "node:path";
import type { Detection } from "../policy/detect.js";
import type { ResolveFile } from "../measure/junit-paths.js";
import type { TestCaseResult, TestReport } from "../measure/report-types.js";
import { CARGO_DEPS_DIR, WHOLE_WORKSPACE, cargo, cargoFolder } from "./cargo.js";
import { moduleFile, packageDirs } from "./cargo-report.js";
import { endToken } from "./cargo-end-mark.js";
import { featureNote } from "./cargo-feature-scan.js";
import { findBinary, toolchainFor } from "./toolchain.js";
import type { Runner } from "./types.js";

const GATE_JUNIT = "ranex-junit.xml";

/** The JUnit path of nextest's default profile in a .config/nextest.toml, or null when it names none. */
export function nextestJunitPath(config: string | null): string | null {
  if (config === null) return null;
  const section = /^\[profile\.default\.junit\][^\S\n]*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(config)?.[1] ?? "";
  const path = /^\s*path\s*=\s*["']([^"'\n]+)["']/m.exec(section)?.[1] ?? null;
  // Only a plain relative path is given to the shell (and it must stay under the store folder).
  return path !== null && /^[\w.][\w./-]*$/.test(path) && !path.split("/").includes("..") ? path : null;
}

/** The run's command: the JUnit nextest wrote, or cargo's output when the build failed before any test ran. */
export function nextestTestCommand(junitPath: string | null, workspace = false, args = ""): string {
  const report = `target/nextest/default/${junitPath ?? GATE_JUNIT}`;
  const tool = ` --tool-config-file "ranex:$RANEX_REPORTERS/nextest.toml"`;
  // A workspace whose root is a package too: plain `cargo nextest run` there runs the root package alone.
  return `rm -f ${report}; CARGO_HOME="$PWD/${CARGO_DEPS_DIR}" cargo nextest run${workspace ? " --workspace" : ""}${args === "" ? "" : ` ${args}`} --offline --locked --no-fail-fast --retries 0${tool} > /tmp/ranex-build.log 2>&1; status=$?; `
    + `cat /tmp/ranex-build.log; if [ -f ${report} ]; then cp ${report} "$RANEX_REPORT"; else cp /tmp/ranex-build.log "$RANEX_REPORT"; fi; exit $status`;
}

const runsNextest = (command: string): boolean => /\bcargo\s+(?:\+\S+\s+)?nextest\s+run\b/.test(command);

/** The folder holding cargo-nextest, or null: where the user's shell finds it, then cargo's usual bin folders. */
export function nextestFolder(): string | null {
  return findBinary("cargo-nextest", ["/root/.cargo/bin", "/usr/local/cargo/bin"]);
}

/** The target's root source file, as cargo lays targets out by default. */
function targetRoot(dir: string, kind: string, name: string, resolve: ResolveFile): string | null {
  const at = (p: string): string => (dir === "" ? p : `${dir}/${p}`);
  const candidates = kind === "lib" ? ["src/lib.rs"]
    : kind === "bin" ? ["src/main.rs", `src/bin/${name}.rs`, `src/bin/${name}/main.rs`]
      : kind === "test" ? [`tests/${name}.rs`, `tests/${name}/main.rs`]
        : [`${kind}s/${name}.rs`, `${kind}s/${name}/main.rs`];
  return candidates.map(at).find((p) => resolve(p)) ?? null;
}

/**
 * nextest names a testcase's class after its binary: `calc` (the library), `calc::bin/calc`,
 * `calc::calc` (tests/calc.rs), `calc::example/demo`. The ids become cargo's: `calc::lib::…`,
 * `calc::bin.calc::…`, `calc::calc::…`, with the file the test's module path leads to.
 */
export function nextestIds(report: TestReport, tree: { treeDir: string; resolve: ResolveFile; text?: string }): TestReport {
  let dirs: Map<string, string> | null = null;
  const mapped = new Set<string>();
  const rename = new Map<string, string>();
  /** A binary's crate, target and crate root, from nextest's name of it (its testcases' classname). */
  const binaryOf = (binary: string): { crate: string; targetKind: string; targetName: string; root: string | null } | null => {
    const m = /^([\w-]+)(?:::(?:(bin|example|bench)\/)?([\w-]+))?$/.exec(binary);
    if (m?.[1] === undefined) return null;
    const [, crate, kind, target] = m;
    const [targetKind, targetName] = target === undefined ? ["lib", "lib"] : kind === undefined ? ["test", target] : [kind, target];
    dirs ??= packageDirs(tree.treeDir);
    const dir = dirs.get(crate);
    return { crate, targetKind, targetName, root: dir === undefined ? null : targetRoot(dir, targetKind, targetName, tree.resolve) };
  };
  const tokens = new Map<string, string | null>();
  const tokenOf = (binary: string): string | null => {
    if (!tokens.has(binary)) {
      const root = binaryOf(binary)?.root ?? null;
      tokens.set(binary, root === null ? null : endToken(tree.treeDir, root));
    }
    return tokens.get(binary) ?? null;
  };
  const early = tree.text === undefined ? new Set<string>() : endedEarly(tree.text, tokenOf);
  const cases = report.cases.map((raw): TestCaseResult => {
    const c: TestCaseResult = early.has(raw.id) && raw.result === "passed" ? { ...raw, result: "errored", message: EARLY } : raw;
    if (c.file !== null || !c.id.endsWith(`::${c.name}`)) return c;
    const binary = c.id.slice(0, -(c.name.length + 2));
    const found = binaryOf(binary);
    if (found === null) return c;
    const { crate, targetKind, targetName, root } = found;
    const file = moduleFile(root, c.name.split("::"), tree.resolve);
    const id = `${crate}::${targetKind === "lib" || targetKind === "test" ? targetName : `${targetKind}.${targetName}`}::${c.name}`;
    mapped.add(binary);
    rename.set(c.id, id);
    return { ...c, id, file: file === null ? null : posix.normalize(file) };
  });
  const notes = report.notes.filter((n) => ![...mapped].some((b) => n === `could not map classname ${b} to a file in the tree; its test ids begin with the classname`));
  // A test process that exited 0 before libtest ended the test is code under test ending it (issue 19).
  const forged = cases.filter((c) => c.message === EARLY).map((c) => `${c.id} passed by its process's exit status, without libtest's end of the test`);
  return {
    ...report, cases, notes, duplicates: report.duplicates.map((id) => rename.get(id) ?? id),
    ...(forged.length > 0 ? { contradictions: [...(report.contradictions ?? []), ...forged] } : {}),
  };
}

/** Matches no id: a binary's canaries judged alone, never excused or blamed by its own tests. */
const NO_OWN_TESTS = "(?!)";

const EARLY = "ended without libtest's own end of the test (its process exited before the test returned): no pass";

const unescapeXml = (text: string): string => text.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, "$1")
  .replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-fA-F]+);/g, (_m, e: string) => ({ lt: "<", gt: ">", quot: "\"", apos: "'", amp: "&" } as Record<string, string>)[e]
    ?? String.fromCodePoint(e.startsWith("#x") ? parseInt(e.slice(2), 16) : Number(e.slice(1))));

/**
 * Under nextest every test is a process of its own, and nextest takes an exit status of 0 for a pass:
 * code under test that calls `exit(0)` before the assertion passes. libtest prints
 * `test result: ok. 1 passed` only when the test returned; the gate's tool config keeps passing
 * tests' output in the report, so a passed testcase whose output lacks them ended early. Code that
 * prints that summary itself before its exit is met by the canary's end token (./cargo-end-mark.ts):
 * in a binary whose canary module has one (`tokenOf` its classname), a pass without it ended early.
 * The ids are the JUnit reader's (`<classname>::<name>`); a testcase whose output was not kept is not
 * judged here.
 */
export function endedEarly(xml: string, tokenOf: (classname: string) => string | null = () => null): Set<string> {
  const found = new Set<string>();
  const attr = (attrs: string, key: string): string | null => {
    const m = new RegExp(`\\s${key}="([^"]*)"`).exec(attrs);
    return m?.[1] === undefined ? null : unescapeXml(m[1]);
  };
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const body = m[2];
    const name = attr(m[1] ?? "", "name");
    const classname = attr(m[1] ?? "", "classname");
    if (body === undefined || name === null || classname === null || /<(?:failure|error|skipped)\b/.test(body)) continue;
    const out = /<system-out>([\s\S]*?)<\/system-out>/.exec(body);
    if (out === null) continue;
    // The summary only: with nextest's --nocapture the test's own output can share a line with `test <name> ... ok`.
    const text = unescapeXml(out[1] ?? "");
    const token = tokenOf(classname);
    if (!/^test result: ok\. 1 passed; 0 failed;/m.test(text) || (token !== null && !text.split("\n").includes(token))) found.add(`${classname}::${name}`);
  }
  return found;
}

export const nextest: Runner = {
  name: "nextest",
  runs: runsNextest,
  async detect(repo) {
    if (!repo.files.has("Cargo.toml") || !(await repo.list(".config")).includes("nextest.toml")) return null;
    const folder = nextestFolder();
    // Without cargo-nextest on the machine the cargo runner answers, and says so.
    if (folder === null) return null;
    const junit = nextestJunitPath(await repo.readText(".config/nextest.toml"));
    const fromCargo = await cargo.detect(repo);
    if (fromCargo === null) return null;
    const toolchain = [...new Set([...toolchainFor(cargoFolder(repo.dir)), ...toolchainFor(folder)])];
    return {
      ...fromCargo,
      evidence: `Cargo.toml and .config/nextest.toml (${junit === null ? "no [profile.default.junit] path: the gate's tool config gives one" : `JUnit at target/nextest/default/${junit}`})`,
      toolchain,
      ...(junit === null ? {} : { reportPath: junit }),
    };
  },
  command: (found: Detection) => ({
    command: nextestTestCommand(found.reportPath ?? null, found.launcher === WHOLE_WORKSPACE, found.runnerArgs?.args ?? ""),
    note: ["nextest's JUnit report is the report (cargo's output when the build fails); ids are <crate>::<target>::<path::to::test>, as with cargo test.", ...featureNote(found)],
  }),
  junitIds: nextestIds,
  fileOfId: (id, base) => cargo.fileOfId?.(id, base) ?? Promise.resolve(null),
  hiddenBy: (id, base, command) => cargo.hiddenBy?.(id, base, command) ?? Promise.resolve(null),
  canary: (ctx) => cargo.canary(ctx),
  // The runs without a canary of their own (the base's, the PR's own, which read a new test file's
  // green) get the same modules, for their end hook (./cargo-end-mark.ts): a forged summary there is
  // no pass either. Their selection (a filterset of the PR's ids) leaves the canary tests out, so a
  // canary that was not run is no finding: only one that ran and came back wrong is.
  async fileCanary(ctx) {
    const given = await cargo.canary(ctx);
    if (!("members" in given)) return given;
    return { ...given, members: given.members.map((m) => (m.inBinary === undefined ? m : { ...m, inBinary: { ...m.inBinary, ids: NO_OWN_TESTS } })) };
  },
  select({ command, ids }) {
    if (!canSelectNextest(command)) return null;
    const terms = new Set<string>();
    for (const id of ids) {
      const parts = id.split("::");
      const [crate = "", target = ""] = parts;
      const path = parts.slice(2).join("::");
      if (parts.length < 3 || target === "doc" || !/^[\w-]+$/.test(crate) || !/^[A-Za-z_][\w:]*$/.test(path)) return null;
      const binary = target === "lib" ? crate : /^(bin|example|bench)\.([\w-]+)$/.test(target) ? `${crate}::${target.replace(".", "/")}` : /^[\w-]+$/.test(target) ? `${crate}::${target}` : null;
      if (binary === null) return null;
      terms.add(`(binary_id(=${binary}) & test(=${path}))`);
    }
    if (terms.size === 0) return null;
    return { command: command.replace(/\bnextest\s+run\b/, `nextest run -E '${[...terms].sort().join(" | ")}'`), env: {}, how: "cargo nextest run -E" };
  },
  canSelect: canSelectNextest,
  repeatNote: "nextest repeats only the targets (the gate names them in a filterset with -E).",
  deps: cargo.deps,
};

function canSelectNextest(command: string): boolean {
  return runsNextest(command) && !/\s(?:-E|--filterset|--filter-expr)\b/.test(command) && !/\s--\s/.test(command);
}
