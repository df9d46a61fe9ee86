// Which cargo features `ranex init` writes into the test command (issue 22, found on rust-lang/log,
// whose key-value tests are `#[cfg(feature = "kv")]`): tests behind a feature never run under a
// plain `cargo test`. When the package's sources or tests name one of its features in a cfg, or a
// `[[test]]` requires one, init writes features: the largest set the owner's CI tests with (a `cargo
// test --all-features`, `--features …`, or cargo-hack's `--feature-powerset`/`--each-feature` less
// `--exclude-features`, in .github/workflows), else `--all-features`. Features may exclude each
// other (no_std against std, log's max_level_*), so the starter also carries fallbacks init tries in
// order when the build fails: the features the tests name, then none (saying which tests that leaves out).
import { attributesBefore } from "./cargo-feature-gates.js";
import { allFeatures, cfgAttributes, featureFlags, FEATURE_NAME, named, optionalDependencies, requiredFeatures, wanted } from "./cargo-features.js";

/** A set of features to test with: `all` or a list in the manifest's order ("" is none). */
export interface FeatureChoice {
  /** What goes after `cargo test` (`--all-features`, `--features a,b`, or ""). */
  args: string;
  /** For the owner: why these, and what they leave out. */
  says: string;
}

export interface FeaturePlan extends FeatureChoice {
  /** Tried in order by init when the build fails with the choice before. */
  fallbacks: FeatureChoice[];
}

/** What a CI workflow's test command enables: every feature, or a list. */
interface CiRun { file: string; line: string; features: "all" | string[] }

/** Test commands of the workflows' text (`cargo test`, `cargo hack test`, `cargo nextest run`) and what they enable. */
export function ciTestRuns(workflows: readonly { file: string; text: string }[], manifest: string): CiRun[] {
  const every = allFeatures(manifest);
  const optional = new Set(optionalDependencies(manifest));
  const runs: CiRun[] = [];
  for (const { file, text } of workflows) {
    for (const raw of text.split("\n")) {
      const m = /\bcargo\s+(?:\+\S+\s+)?(hack\s+)?(?:test|nextest\s+run)\b([^\n&|;#]*)/.exec(raw);
      // A matrix's feature list is not known from the text.
      if (m === null || raw.includes("${{")) continue;
      const rest = m[2] ?? "";
      const flags = featureFlags(rest);
      let features: "all" | string[];
      if (flags.all) features = "all";
      else if (m[1] !== undefined && /--(?:feature-powerset|each-feature)\b/.test(rest)) {
        const list = (flag: string): string[] | null => {
          const v = new RegExp(`--${flag}(?:=|\\s+)([^\\s]+)`).exec(rest)?.[1];
          return v === undefined ? null : v.replace(/^["']|["']$/g, "").split(",").filter((f) => f !== "");
        };
        const excluded = new Set([...list("exclude-features") ?? [], ...list("skip") ?? []]);
        const withDeps = /--optional-deps\b/.test(rest);
        const base = list("include-features") ?? every.filter((f) => withDeps || !optional.has(f));
        features = [...new Set([...base, ...flags.features])].filter((f) => !excluded.has(f));
      } else features = flags.features;
      // A list of every feature is --all-features, written shorter.
      if (features !== "all" && every.length > 0 && every.every((f) => features.includes(f))) features = "all";
      runs.push({ file, line: raw.trim().replace(/^-?\s*run:\s*/, ""), features });
    }
  }
  return runs;
}

const few = (items: readonly string[], n: number): string => (items.length > n ? `${items.slice(0, n).join(", ")} and ${items.length - n} more` : items.join(", "));

/**
 * The attribute groups of a source file that gate tests: every cfg of an integration test file,
 * and in src/ those right above a `mod` item or a `#[test]` fn.
 */
export function testGates(file: string, text: string): string[] {
  if (/^tests\//.test(file)) return [text];
  const out: string[] = [];
  for (const m of text.matchAll(/\bmod\s+[A-Za-z_]\w*\s*[;{]|\bfn\s+[A-Za-z_]\w*\s*[<(]/g)) {
    const attrs = attributesBefore(text, m.index);
    if (m[0].startsWith("mod") || /#\[(?:\w+::)*test\]/.test(attrs)) out.push(attrs);
  }
  return out;
}

const size = (f: "all" | string[], every: readonly string[]): number => (f === "all" ? every.length + 1 : f.length);

/**
 * The features to write, or null when no test is behind one. `sources`: the package's `.rs` files
 * under src/ and tests/; `workflows`: .github/workflows/*.yml. A workspace root gets `--all-features`
 * or none: a feature list there would have to name each member's own features.
 */
export function featurePlan(manifest: string, sources: readonly { file: string; text: string }[], workflows: readonly { file: string; text: string }[], workspace: boolean): FeaturePlan | null {
  const every = allFeatures(manifest);
  const known = new Set(every);
  const gatedAt = new Map<string, string>();
  const positive = new Set<string>();
  for (const r of requiredFeatures(manifest).filter((t) => t.kind === "test" || t.kind === "example")) {
    for (const f of r.features.filter((f) => known.has(f))) {
      if (!gatedAt.has(f)) gatedAt.set(f, `Cargo.toml [[${r.kind}]] ${r.name}`);
      positive.add(f);
    }
  }
  for (const { file, text } of sources) {
    for (const attr of cfgAttributes(text)) {
      for (const f of named(attr.cfg).filter((n) => known.has(n))) if (!gatedAt.has(f)) gatedAt.set(f, file);
    }
    // The fallback's features: only those that gate tests (an integration test file, a module, a
    // test fn), not a `compile_error!` that two features together meet.
    for (const attrs of testGates(file, text)) {
      for (const attr of cfgAttributes(attrs)) for (const f of wanted(attr.cfg).filter((n) => known.has(n))) positive.add(f);
    }
  }
  if (gatedAt.size === 0) return null;
  const why = `tests or the code they test compile only with features (${few([...gatedAt].map(([f, file]) => `${f} in ${file}`), 4)})`;
  const listed = (features: readonly string[]): string => {
    const ok = every.filter((f) => features.includes(f) && FEATURE_NAME.test(f));
    return ok.length === 0 ? "" : `--features ${ok.join(",")}`;
  };
  const none: FeatureChoice = {
    args: "",
    says: `none: the tests behind ${few([...gatedAt.keys()], 8)} do not run (every set of features tried failed to build on HEAD)`,
  };
  const ci = ciTestRuns(workflows, manifest).filter((r) => r.features === "all" || r.features.length > 0)
    .sort((a, b) => size(b.features, every) - size(a.features, every))[0];
  const choices: FeatureChoice[] = [];
  const ciUsed = ci !== undefined && (ci.features === "all" || !workspace);
  if (ci !== undefined && ciUsed) {
    const leftOut = ci.features === "all" ? [] : every.filter((f) => !ci.features.includes(f));
    choices.push({
      args: ci.features === "all" ? "--all-features" : listed(ci.features),
      says: `the features ${ci.file} tests with (\`${ci.line.length > 100 ? `${ci.line.slice(0, 100)}…` : ci.line}\`)${leftOut.length > 0 ? `, which leaves out ${few(leftOut, 8)}` : ""}; ${why}`,
    });
    // The owner's CI leaves these out: the fallback does too.
    if (ci.features !== "all") for (const f of [...positive]) if (!ci.features.includes(f)) positive.delete(f);
  }
  // The owner's CI leaving features out is a reason: then --all-features is not tried at all.
  if (!ciUsed || ci.features === "all") choices.push({ args: "--all-features", says: `every feature; ${why}` });
  if (!workspace) choices.push({ args: listed([...positive]), says: `the features the cfgs name (a larger set did not build on HEAD); ${why}` });
  const unique = choices.filter((c, i) => c.args !== "" && choices.findIndex((d) => d.args === c.args) === i);
  const [first, ...rest] = unique;
  if (first === undefined) return null;
  return { ...first, fallbacks: [...rest, none] };
}
