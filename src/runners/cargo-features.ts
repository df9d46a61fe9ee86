// Cargo features, read from text (issue 22, found on rust-lang/log): tests behind `#[cfg(feature =
// "kv")]`, or a `[[test]]` with `required-features`, are never compiled by a plain `cargo test`, so
// they never run and a task naming one finds it absent. These pure functions read a manifest's
// `[features]`, a command's feature flags and a cfg predicate, so init can write a command that
// enables them (./cargo-feature-plan.ts) and `task check` and the judge can say which feature hides
// an absent test (./cargo-feature-gates.ts). Text only: nothing here runs cargo.

/** The features a command enables: every one (`--all-features`), or a set closed under `[features]`. */
export type Enabled = "all" | ReadonlySet<string>;

/** A feature name cargo accepts, and the only kind given to a shell. */
export const FEATURE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_+.-]*$/;

/** The body of a `[name]` table of a manifest (`[features]`), or "" when it has none. */
function table(manifest: string, name: string): string {
  return new RegExp(`^\\[${name.replace(/\./g, "\\.")}\\][^\\S\\n]*$([\\s\\S]*?)(?=^\\[|(?![\\s\\S]))`, "m").exec(manifest)?.[1] ?? "";
}

const strings = (text: string): string[] => [...text.matchAll(/"([^"\n]*)"|'([^'\n]*)'/g)].map((m) => m[1] ?? m[2] ?? "");
const uncommented = (text: string): string => text.replace(/#[^\n"']*$/gm, "");

/** `[features]`: each feature and what it enables (`kv_std = ["std", "kv", "value-bag/error"]`), in the manifest's order. */
export function featureTable(manifest: string | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (manifest === null) return out;
  const body = uncommented(table(manifest, "features"));
  for (const m of body.matchAll(/^\s*"?([A-Za-z0-9_][A-Za-z0-9_+.-]*)"?\s*=\s*\[([^\]]*)\]/gm)) out.set(m[1]!, strings(m[2]!));
  return out;
}

/**
 * The optional dependencies that are features of their own (cargo's implicit features): those no
 * `dep:` entry of `[features]` names. `--all-features` enables them too.
 */
export function optionalDependencies(manifest: string | null): string[] {
  if (manifest === null) return [];
  const found: string[] = [];
  for (const m of uncommented(table(manifest, "dependencies")).matchAll(/^\s*([A-Za-z0-9_-]+)\s*=\s*\{([^}\n]*)\}/gm)) {
    if (/\boptional\s*=\s*true\b/.test(m[2]!)) found.push(m[1]!);
  }
  for (const m of manifest.matchAll(/^\[dependencies\.([A-Za-z0-9_-]+)\][^\S\n]*$([\s\S]*?)(?=^\[|(?![\s\S]))/gm)) {
    if (/^\s*optional\s*=\s*true\b/m.test(m[2]!)) found.push(m[1]!);
  }
  const hidden = new Set([...featureTable(manifest).values()].flat().filter((v) => v.startsWith("dep:")).map((v) => v.slice(4)));
  return [...new Set(found)].filter((d) => !hidden.has(d));
}

/** Every feature `--all-features` turns on: the declared ones (less `default`) and the implicit ones. */
export function allFeatures(manifest: string | null): string[] {
  return [...new Set([...featureTable(manifest).keys(), ...optionalDependencies(manifest)])].filter((f) => f !== "default");
}

/** `required-features` of each `[[test]]` and `[[example]]` (cargo skips such a target without them). */
export function requiredFeatures(manifest: string | null): { kind: string; name: string; features: string[] }[] {
  if (manifest === null) return [];
  const out: { kind: string; name: string; features: string[] }[] = [];
  for (const m of manifest.matchAll(/^\[\[(test|example|bin)\]\][^\S\n]*$([\s\S]*?)(?=^\[|(?![\s\S]))/gm)) {
    const body = uncommented(m[2]!);
    const name = /^\s*name\s*=\s*"([^"\n]+)"/m.exec(body)?.[1];
    const features = /^\s*required-features\s*=\s*\[([^\]]*)\]/m.exec(body)?.[1];
    if (name !== undefined && features !== undefined) out.push({ kind: m[1]!, name, features: strings(features) });
  }
  return out;
}

/** `features` closed under `[features]` (`kv_serde` brings `kv_std`, `std`, `kv`, `serde`); `dep:` and `crate/feature` entries are not features. */
export function closure(features: Iterable<string>, manifest: string | null): Set<string> {
  const tableOf = featureTable(manifest);
  const out = new Set<string>();
  const stack = [...features];
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (out.has(f)) continue;
    out.add(f);
    for (const v of tableOf.get(f) ?? []) if (!v.startsWith("dep:") && !v.includes("/")) stack.push(v);
  }
  return out;
}

/** The feature words of one `cargo … test` command's flags (`--all-features`, `--features a,b`, `-F a`, `--no-default-features`). */
export function featureFlags(command: string): { all: boolean; features: string[]; noDefault: boolean } {
  const all = /(?:^|\s)--all-features\b/.test(command);
  const noDefault = /(?:^|\s)--no-default-features\b/.test(command);
  const features: string[] = [];
  for (const m of command.matchAll(/(?:^|\s)(?:--features|-F)(?:=|\s+)("[^"]*"|'[^']*'|[^\s;&|]+)/g)) {
    features.push(...m[1]!.replace(/^["']|["']$/g, "").split(/[\s,]+/).filter((f) => f !== ""));
  }
  return { all, features, noDefault };
}

/** What a test command enables of the package whose manifest this is. */
export function enabledBy(command: string, manifest: string | null): Enabled {
  const flags = featureFlags(command);
  if (flags.all) return "all";
  const own = flags.features.map((f) => f.replace(/^[^/]+\//, ""));
  return closure([...own, ...(flags.noDefault ? [] : ["default"])], manifest);
}

// ---- cfg predicates: `all(feature = "kv", not(miri))` -------------------------------------------

export type Cfg =
  | { kind: "feature"; name: string }
  | { kind: "key"; name: string; value?: string }
  | { kind: "all" | "any" | "not"; of: Cfg[] };

/** A cfg predicate's text parsed, or null when it does not read as one. */
export function parseCfg(text: string): Cfg | null {
  const matches = [...text.matchAll(/\s*("(?:\\.|[^"\\])*"|[A-Za-z_][\w]*|[(),=])/gy)];
  // A character none of these tokens reads (`-`, a path) ends the tokens early: then it is no predicate.
  if (matches.map((m) => m[0]).join("").length !== text.trimEnd().length) return null;
  const tokens = matches.map((m) => m[1]!);
  let at = 0;
  const predicate = (): Cfg | null => {
    const name = tokens[at++];
    if (name === undefined || !/^[A-Za-z_]/.test(name)) return null;
    if (tokens[at] === "=") {
      const value = tokens[at + 1];
      if (value === undefined || !value.startsWith("\"")) return null;
      at += 2;
      const text = value.slice(1, -1);
      return name === "feature" ? { kind: "feature", name: text } : { kind: "key", name, value: text };
    }
    if (tokens[at] !== "(") return { kind: "key", name };
    at++;
    const of: Cfg[] = [];
    while (tokens[at] !== ")") {
      const inner = predicate();
      if (inner === null) return null;
      of.push(inner);
      if (tokens[at] === ",") at++;
      else if (tokens[at] !== ")") return null;
    }
    at++;
    return name === "all" || name === "any" || name === "not" ? { kind: name, of } : null;
  };
  const parsed = predicate();
  return parsed !== null && at === tokens.length ? parsed : null;
}

/**
 * Whether the predicate holds with these features, in a test build on this machine: `test` and
 * `debug_assertions` hold; `unix`, `target_os = "linux"` and the rest are not known here (null), so a
 * gate read through one of them is never blamed on a feature.
 */
export function holds(cfg: Cfg, enabled: Enabled): boolean | null {
  switch (cfg.kind) {
    case "feature": return enabled === "all" || enabled.has(cfg.name);
    case "key": return cfg.value === undefined && (cfg.name === "test" || cfg.name === "debug_assertions") ? true : null;
    case "not": {
      const inner = cfg.of[0] === undefined ? null : holds(cfg.of[0], enabled);
      return inner === null ? null : !inner;
    }
    case "all": {
      const each = cfg.of.map((c) => holds(c, enabled));
      return each.includes(false) ? false : each.includes(null) ? null : true;
    }
    case "any": {
      const each = cfg.of.map((c) => holds(c, enabled));
      return each.includes(true) ? true : each.includes(null) ? null : false;
    }
  }
}

/** The features a predicate names where turning them on helps it hold (not those under a `not`). */
export function wanted(cfg: Cfg, negated = false): string[] {
  if (cfg.kind === "feature") return negated ? [] : [cfg.name];
  if (cfg.kind === "key") return [];
  return cfg.of.flatMap((c) => wanted(c, cfg.kind === "not" ? !negated : negated));
}

/** Every feature a predicate names, either way. */
export function named(cfg: Cfg): string[] {
  return cfg.kind === "feature" ? [cfg.name] : cfg.kind === "key" ? [] : cfg.of.flatMap(named);
}

/**
 * The attributes of a text: `#[cfg(…)]` and `#![cfg(…)]` as `cfg`, `#[cfg_attr(pred, ignore)]` as
 * `ignore` (a test ignored when the predicate holds), other `cfg_attr` as `attr`. Parentheses
 * balanced, strings kept whole.
 */
export function cfgAttributes(text: string): { kind: "cfg" | "ignore" | "attr"; cfg: Cfg }[] {
  const out: { kind: "cfg" | "ignore" | "attr"; cfg: Cfg }[] = [];
  for (const m of text.matchAll(/#!?\[\s*(cfg|cfg_attr)\s*\(/g)) {
    const start = m.index + m[0].length;
    const inside = balanced(text, start);
    if (inside === null) continue;
    if (m[1] === "cfg") {
      const cfg = parseCfg(inside);
      if (cfg !== null) out.push({ kind: "cfg", cfg });
      continue;
    }
    const comma = topLevelComma(inside);
    if (comma < 0) continue;
    const cfg = parseCfg(inside.slice(0, comma));
    if (cfg !== null) out.push({ kind: /^\s*ignore\b/.test(inside.slice(comma + 1)) ? "ignore" : "attr", cfg });
  }
  return out;
}

/** The text from `start` to the `)` that closes the `(` just before it, or null. */
function balanced(text: string, start: number): string | null {
  let depth = 1;
  for (let i = start; i < text.length && i < start + 4000; i++) {
    const c = text[i];
    if (c === "\"") {
      for (i++; i < text.length && text[i] !== "\""; i++) if (text[i] === "\\") i++;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return text.slice(start, i);
  }
  return null;
}

function topLevelComma(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\"") {
      for (i++; i < text.length && text[i] !== "\""; i++) if (text[i] === "\\") i++;
    } else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) return i;
  }
  return -1;
}
