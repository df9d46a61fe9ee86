import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectTestRunner } from "../../src/policy/detect.js";
import { nextestTestCommand } from "../../src/runners/nextest.js";
import { testCommand } from "../../src/policy/init.js";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";
import { closure, enabledBy, featureTable, holds, optionalDependencies, parseCfg, requiredFeatures } from "../../src/runners/cargo-features.js";
import { ciTestRuns, featurePlan } from "../../src/runners/cargo-feature-plan.js";
import { cargoFileOfId, hiddenByFeatures } from "../../src/runners/cargo-feature-gates.js";

// Cargo features read from text (issue 22, found on rust-lang/log): the manifest's [features], a
// command's flags, cfg predicates, the owner's CI, and which feature hides a test id. The runs with
// real cargo are test/e2e/rust-features.test.ts.

// Shaped like rust-lang/log's manifest: features that enable others, optional dependencies, comments.
const LOG_LIKE = `[package]
name = "log"

[features]
max_level_off   = []
std = []
kv = []
kv_std = ["std", "kv", "value-bag/error"]
kv_serde = ["kv_std", "value-bag/serde", "serde"]
# an alias
serde = ["serde_core"]
hidden = ["dep:sval"]

[dependencies]
serde_core = { version = "1.0", optional = true }
sval = { version = "2", optional = true }
value-bag = { version = "1.12", optional = true, default-features = false }

[[test]]
name = "kv_macros"
required-features = ["kv"]
`;

describe("cargo features from text", () => {
  it("reads [features], the implicit features of optional dependencies (not those behind dep:), and required-features", () => {
    expect([...featureTable(LOG_LIKE).keys()]).toEqual(["max_level_off", "std", "kv", "kv_std", "kv_serde", "serde", "hidden"]);
    expect(optionalDependencies(LOG_LIKE)).toEqual(["serde_core", "value-bag"]);
    expect(requiredFeatures(LOG_LIKE)).toEqual([{ kind: "test", name: "kv_macros", features: ["kv"] }]);
    expect([...closure(["kv_serde"], LOG_LIKE)].sort()).toEqual(["kv", "kv_serde", "kv_std", "serde", "serde_core", "std"]);
  });

  it("reads what a command enables", () => {
    expect(enabledBy("cargo test --all-features --offline", LOG_LIKE)).toBe("all");
    expect([...enabledBy("cargo test --features kv_std --offline > x", LOG_LIKE) as Set<string>].sort()).toEqual(["default", "kv", "kv_std", "std"]);
    expect([...enabledBy("cargo test -F 'kv std' --no-default-features", LOG_LIKE) as Set<string>].sort()).toEqual(["kv", "std"]);
    expect([...enabledBy("cargo test --features=log/kv", LOG_LIKE) as Set<string>].sort()).toEqual(["default", "kv"]);
  });

  it("parses cfg predicates and reads them with the enabled features, leaving what this machine cannot tell unknown", () => {
    const on = new Set(["std"]);
    expect(holds(parseCfg(`feature = "kv"`)!, on)).toBe(false);
    expect(holds(parseCfg(`all(feature = "std", not(feature = "kv"))`)!, on)).toBe(true);
    expect(holds(parseCfg(`any(feature = "kv", unix)`)!, on)).toBeNull();
    expect(holds(parseCfg(`all(test, feature = "std")`)!, on)).toBe(true);
    expect(holds(parseCfg(`not(feature = "std")`)!, "all")).toBe(false);
    expect(parseCfg(`feature = "a" - b`)).toBeNull();
  });
});

describe("the features init writes", () => {
  const sources = [
    { file: "src/lib.rs", text: `#[cfg(all(feature = "std", feature = "max_level_off"))]\ncompile_error!("no");\n#[cfg(feature = "kv")]\npub mod kv;\n` },
    { file: "tests/macros.rs", text: `#[test]\n#[cfg(feature = "kv_std")]\nfn kv_std() {}\n` },
  ];

  it("takes the largest feature set the owner's CI tests with, less what it excludes, and falls back to the tests' own gates", () => {
    const workflows = [{ file: ".github/workflows/main.yml", text: "    - run: cargo test\n    - run: cargo hack test --feature-powerset --exclude-features max_level_off\n    - run: cargo test --features ${{ matrix.features }}\n" }];
    expect(ciTestRuns(workflows, LOG_LIKE).map((r) => r.features)).toEqual([[], ["std", "kv", "kv_std", "kv_serde", "serde", "hidden"]]);
    const plan = featurePlan(LOG_LIKE, sources, workflows, false);
    expect(plan?.args).toBe("--features std,kv,kv_std,kv_serde,serde,hidden");
    expect(plan?.says).toContain("the features .github/workflows/main.yml tests with (`cargo hack test --feature-powerset --exclude-features max_level_off`), which leaves out max_level_off, serde_core, value-bag");
    // The CI left max_level_off out: --all-features is not tried, and the fallback keeps it out too.
    expect(plan?.fallbacks.map((f) => f.args)).toEqual(["--features kv,kv_std", ""]);
  });

  it("without CI evidence tries every feature first; a crate whose tests name no feature keeps plain cargo test", () => {
    const plan = featurePlan(LOG_LIKE, sources, [], false);
    expect(plan?.args).toBe("--all-features");
    expect(plan?.fallbacks.map((f) => f.args)).toEqual(["--features kv,kv_std", ""]);
    expect(plan?.fallbacks[1]?.says).toContain("none: the tests behind kv, std, max_level_off, kv_std do not run");
    expect(featurePlan(LOG_LIKE.replace(/\[\[test\]\][^]*$/, ""), [{ file: "src/lib.rs", text: "#[cfg(test)]\nmod tests {}\n" }], [], false)).toBeNull();
    // A workspace root: every feature or none, never a list that would have to name members' features.
    expect(featurePlan(LOG_LIKE, sources, [], true)?.fallbacks.map((f) => f.args)).toEqual([""]);
  });
});

describe("which feature hides a test id", () => {
  const tree: Record<string, string> = {
    "Cargo.toml": LOG_LIKE,
    "src/lib.rs": `//! log\n#[cfg(feature = "kv")]\npub mod kv;\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn plain() {}\n}\n`,
    "src/kv/mod.rs": `mod key;\n#[cfg(feature = "kv_std")] mod std_support { #[test] fn boxed() { let _ = '{'; } }\n`,
    "src/kv/key.rs": `#[cfg(test)]\nmod tests {\n    #[test]\n    #[cfg(not(feature = "std"))]\n    fn no_std_only() {}\n    #[test]\n    fn key_eq() {}\n}\n`,
    "tests/kv_macros.rs": `#[test]\nfn kv_macro() {}\n`,
    "tests/macros.rs": `#[cfg(all(\n    feature = "kv",\n    feature = "std"\n))]\n#[test]\nfn kv_std_macro() {}\n`,
  };
  const base = { files: new Set(Object.keys(tree)), read: (p: string) => Promise.resolve(tree[p] ?? null) };
  const plain = "cargo test --offline --locked > \"$RANEX_REPORT\" 2>&1";

  it("follows the id's module path through mod declarations and files, and names the feature and the file of the gate", async () => {
    expect(await hiddenByFeatures("log::lib::kv::key::tests::key_eq", plain, base)).toEqual({ file: "src/lib.rs", missing: ["kv"], unwanted: [] });
    expect(await hiddenByFeatures("log::lib::kv::std_support::boxed", "cargo test --features kv", base)).toEqual({ file: "src/kv/mod.rs", missing: ["kv_std"], unwanted: [] });
    expect(await hiddenByFeatures("log::macros::kv_std_macro", "cargo test --features kv", base)).toEqual({ file: "tests/macros.rs", missing: ["std"], unwanted: [] });
    expect(await hiddenByFeatures("log::kv_macros::kv_macro", plain, base)).toEqual({ file: "Cargo.toml", missing: ["kv"], unwanted: [] });
    expect(await hiddenByFeatures("log::lib::kv::key::tests::no_std_only", "cargo test --all-features", base)).toEqual({ file: "src/kv/key.rs", missing: [], unwanted: ["std"] });
  });

  it("finds the file that declares a test id, not its crate's name (task check said 'only a PR that adds log')", async () => {
    expect(await cargoFileOfId("log::lib::kv::key::tests::key_eq", base)).toBe("src/kv/key.rs");
    expect(await cargoFileOfId("log::macros::kv_std_macro", base)).toBe("tests/macros.rs");
    expect(await cargoFileOfId("log::lib::kv::key::tests::not_there", base)).toBeNull();
    expect(await cargoFileOfId("log::doc::src/lib.rs - x", base)).toBeNull();
  });

  it("says nothing when the command compiles the test, or no feature is on its path", async () => {
    expect(await hiddenByFeatures("log::lib::kv::key::tests::key_eq", "cargo test --features kv_std", base)).toBeNull();
    expect(await hiddenByFeatures("log::lib::tests::plain", plain, base)).toBeNull();
    expect(await hiddenByFeatures("log::lib::kv::key::tests::missing", "cargo test --features kv", base)).toBeNull();
    expect(await hiddenByFeatures("other::lib::tests::plain", plain, base)).toBeNull();
  });
});

describe("what cargo's detection gives init", () => {
  it("builds the warm target folder in setup with the features the command runs with, for the first choice and each fallback", async () => {
    const dir = join(tempDir("ranex-rust-features-"), "repo");
    execFileSync("bash", [join(FIXTURES_DIR, "rust-features.sh"), dir], { env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_"))) });
    const found = await detectTestRunner(dir);
    expect(found.runnerArgs?.args).toBe("--all-features");
    expect(testCommand(found)?.command).toContain("cargo test --all-features --offline --locked --no-fail-fast");
    expect(found.install).toContain("cargo test --all-features --offline --locked --no-run");
    // nextest, where the machine has it, runs with the same features (its detection is cargo's).
    expect(nextestTestCommand(null, false, "--all-features")).toContain("cargo nextest run --all-features --offline --locked");
    expect(found.fallbacks?.map((f) => [f.patch.runnerArgs?.args, f.patch.install?.includes(`cargo test${f.patch.runnerArgs?.args ? ` ${f.patch.runnerArgs.args}` : ""} --offline --locked --no-run`)])).toEqual([["--features std,extra", true], ["", true]]);
  });
});
