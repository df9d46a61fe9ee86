// Rust: `cargo test`'s own output (libtest's stable human format, read by cargo-report.ts), stdout
// and stderr both into $RANEX_REPORT. Dependencies: the registry of a CARGO_HOME filled once per
// Cargo.lock by `cargo fetch` in setup (with network), read-only in runs, which are `--offline
// --locked`. Setup also builds the tests once into a target folder stored as the warm layer
// (src/measure/deps/cache.ts), which lies beneath every run's tree copy-on-write: a run compiles the
// repository's own crates (cargo sees their sources as newer) but not the registry's. The canary is an integration test file
// (tests/ranex_canary_<token>.rs) of the root package. rustup's proxies are left out: init names the
// toolchain's own bin folder, so neither RUSTUP_HOME nor ~/.cargo has to be in the sandbox.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { claimsCargo, packageName, parseCargo } from "./cargo-report.js";
import { findBinary, toolchainFor } from "./toolchain.js";
import { readTreeFile } from "./tree-read.js";
import { cargoCanaries } from "./canary-compiled.js";
import { testBinaries } from "./cargo-targets.js";
import type { Runner } from "./types.js";
import { WARM_DIR } from "../measure/deps/cache.js";
import type { Detection } from "../policy/detect.js";
import { featurePlan, type FeatureChoice } from "./cargo-feature-plan.js";
import { featureNote, packageSources, workflows } from "./cargo-feature-scan.js";
import { cargoFileOfId, hiddenByCommand } from "./cargo-feature-gates.js";

/** Where setup leaves CARGO_HOME (its registry), in the tree (stored under the dependency key). */
export const CARGO_DEPS_DIR = ".ranex-deps/cargo";
/** Where setup leaves the target folder it built: the warm layer, writable copy-on-write in every run. */
export const CARGO_TARGET = `${WARM_DIR}/cargo-target`;

// The target folder is in the tree, over the warm layer: the repeats of tests.stable and the mutants
// of diff.needed run in the same tree and rebuild only what changed, instead of every crate each time.
// Nothing the tree's own code could not do already: it runs there with write access anyway.
const ENV = `CARGO_HOME="$PWD/${CARGO_DEPS_DIR}" CARGO_TARGET_DIR="$PWD/${CARGO_TARGET}"`;
export const CARGO_TEST_COMMAND = `${ENV} cargo test --offline --locked --no-fail-fast > "$RANEX_REPORT" 2>&1`;
/** Once per Cargo.lock: the registry, and a build of every test target (a failing build is no failed setup). */
export const cargoSetup = (locked: boolean, all = false, args = ""): string =>
  `export ${ENV}; cargo fetch${locked ? " --locked" : ""} && { cargo test${all ? " --workspace" : ""}${args === "" ? "" : ` ${args}`} --offline --locked --no-run >/dev/null 2>&1 || true; }`;
/**
 * A workspace whose root is a package too: plain `cargo test` there tests the root package alone
 * (its default members), so the members' tests would never run. Init writes `--workspace` then.
 */
export const WHOLE_WORKSPACE = "cargo test --workspace";

const runsCargo = (command: string): boolean => /\bcargo\s+(?:\+\S+\s+)?test\b/.test(command) && /\$\{?RANEX_(?:REPORT|JUNIT)\b/.test(command);

/** The folder of the toolchain's real cargo: rustup's proxy resolved (honouring rust-toolchain.toml in `dir`). */
export function cargoFolder(dir: string): string | null {
  const found = findBinary("cargo", ["/root/.cargo/bin", "/usr/local/cargo/bin"]);
  if (found === null) return null;
  try {
    const real = execFileSync(join(found, "rustup"), ["which", "cargo"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 20_000 }).trim();
    return real.endsWith("/cargo") ? real.slice(0, -"/cargo".length) : found;
  } catch {
    return found; // not rustup's: a cargo of its own
  }
}

export const cargo: Runner = {
  name: "cargo",
  runs: runsCargo,
  async detect(repo) {
    if (!repo.files.has("Cargo.toml")) return null;
    const locked = repo.files.has("Cargo.lock");
    const nextest = (await repo.list(".config")).includes("nextest.toml");
    // A workspace's members keep their integration tests in crates/<member>/tests/: test files
    // (frozen as of the base, a PR's new ones its targets), which the default `tests/**` misses.
    const manifest = await repo.readText("Cargo.toml");
    const workspace = /^\[workspace\]/m.test(manifest ?? "");
    const all = workspace && packageName(manifest) !== null;
    // Tests behind cargo features: the features to test with, and what init tries when they do not build (./cargo-feature-plan.ts).
    const plan = manifest === null || packageName(manifest) === null ? null : featurePlan(manifest, packageSources(repo.dir), await workflows(repo), workspace);
    const withArgs = (choice: FeatureChoice): Partial<Detection> => ({ install: cargoSetup(locked, all, choice.args), runnerArgs: choice });
    return {
      // src/runners/nextest.ts answers first when cargo-nextest is on the machine.
      evidence: `Cargo.toml${nextest ? " and .config/nextest.toml, but this machine has no cargo-nextest, so the gate runs cargo test: install it (cargo install cargo-nextest --locked) and run ranex init again to have nextest run" : ""}`,
      runnerDeclared: true, reporterDeclared: true,
      // Without a committed Cargo.lock, fetch writes one: it is stored with the registry, so every run uses the same.
      install: cargoSetup(locked, all),
      // After the plain setup: the features' setup builds the warm target folder with the features the runs use.
      ...(plan === null ? {} : { ...withArgs(plan), fallbacks: plan.fallbacks.map((c) => ({ patch: withArgs(c), says: c.says })) }),
      ...(all ? { launcher: WHOLE_WORKSPACE } : {}),
      ...(workspace ? { testFiles: ["**/tests/**"] } : {}),
      toolchain: toolchainFor(cargoFolder(repo.dir)),
    };
  },
  command: (found) => ({
    command: CARGO_TEST_COMMAND.replace("cargo test", `${found.launcher === WHOLE_WORKSPACE ? WHOLE_WORKSPACE : "cargo test"}${found.runnerArgs?.args ? ` ${found.runnerArgs.args}` : ""}`),
    note: ["cargo test's output (stdout and stderr) is the report; ids are <crate>::<target>::<path::to::test>.", ...featureNote(found)],
  }),
  read: { format: "cargo test", claims: claimsCargo, parse: parseCargo },
  hiddenBy: hiddenByCommand,
  fileOfId: cargoFileOfId,
  // A canary in every test binary (the library's, each binary's, each integration test's, of every
  // package of a workspace): code that forges one binary's output or ends it early meets the canary
  // compiled into it (issue 19).
  async canary(ctx) {
    const binaries = testBinaries(ctx.treeDir);
    if (binaries.length === 0) return { note: "cargo: no package of the tree has a library, binary or integration test for the canary to go into" };
    return cargoCanaries(ctx, binaries);
  },
  select({ command, ids }) {
    if (!canSelectCargo(command)) return null;
    const names = new Set<string>();
    for (const id of ids) {
      const parts = id.split("::");
      const path = parts.slice(2).join("::");
      // Doc-tests and odd names are not given to a shell: the whole suite runs instead.
      if (parts.length < 3 || parts[1] === "doc" || !/^[A-Za-z_][\w:]*$/.test(path)) return null;
      names.add(path);
    }
    if (names.size === 0) return null;
    const args = ` -- --exact ${[...names].sort().join(" ")}`;
    return { command: command.replace(/\s*>\s*"?\$\{?RANEX_(?:REPORT|JUNIT)\}?"?/, (redirect) => `${args}${redirect}`), env: {}, how: "cargo test -- --exact" };
  },
  // The PR's own runs: its new integration test files, each a target of the root package
  // (`--test <name>`): neither the library's unit tests nor the doc-tests run. Only targets cargo
  // finds by itself (tests/<name>.rs, tests/<name>/main.rs) of a command that chose no targets.
  selectFiles({ command, files, treeDir }) {
    if (!canSelectCargo(command) || TARGET_FLAGS.test(command) || files.length === 0) return null;
    const manifest = readTreeFile(treeDir, "Cargo.toml");
    if (packageName(manifest) === null || manifest === null || /^\s*autotests\s*=\s*false/m.test(manifest) || /^\s*\[\[test\]\]/m.test(manifest)) return null;
    const names = new Set<string>();
    for (const file of files) {
      const name = /^tests\/([A-Za-z0-9_-]+)(?:\.rs|\/main\.rs)$/.exec(file)?.[1];
      if (name === undefined) return null;
      names.add(name);
    }
    const args = [...names].sort().map((n) => ` --test ${n}`).join("");
    return { command: command.replace(/\s*>\s*"?\$\{?RANEX_(?:REPORT|JUNIT)\}?"?/, (redirect) => `${args}${redirect}`), env: {}, how: "cargo test --test" };
  },
  canSelect: canSelectCargo,
  repeatNote: "cargo test repeats only the targets (the gate names them after `-- --exact`).",
  deps: { keyFiles: ["**/Cargo.toml", "**/Cargo.lock", "**/rust-toolchain", "**/rust-toolchain.toml", "**/.cargo/config.toml", "**/.cargo/config"] },
};

/** Options by which a command already chooses its packages or targets: then it is not narrowed further. */
const TARGET_FLAGS = /\s(?:--workspace|--all|-p|--package|--exclude|--manifest-path|--tests?|--lib|--bins?|--examples?|--benches|--bench|--all-targets|--doc)(?:[\s=]|$)/;

function canSelectCargo(command: string): boolean {
  return runsCargo(command) && !/\s--\s/.test(command) && /\bcargo\s+test\b[^;&|]*>\s*"?\$\{?RANEX_(?:REPORT|JUNIT)/.test(command);
}
