// Files a frozen configuration names at a path of its own (issue 22): the default frozen set knows
// `jest.setup.*` and `build.rs` by name, but jest's `setupFiles: ['./tools/env.js']`, vitest's
// `globalSetup`, mocha's `require`, a pytest `-p` plugin in `addopts` and Cargo's `build = "…"` load
// harness from wherever the configuration says. Read from the base's text of the configuration
// (frozen itself), so the files are known before any run. Pure. Forms not read are listed in
// docs/measurement.md: a configuration computed at run time, a `preset`, a package's own files.

import { posix } from "node:path";
import { resolveScript } from "./test-imports.js";

/** A base file a frozen configuration names as harness. */
export interface NamedHarness {
  path: string;
  /** The configuration and its key: `jest.config.js (setupFiles)`. */
  by: string;
}

const JEST_VITEST = /(?:^|\/)(?:jest|vitest|vite)\.config\.[cm]?[jt]s$|(?:^|\/)jest\.config\.json$/;
const MOCHARC = /(?:^|\/)\.mocharc(?:\.(?:js|cjs|mjs|json|jsonc|ya?ml))?$/;
const PYTEST_CONFIG = /(?:^|\/)(?:pytest\.ini|\.pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml)$/;
const CARGO = /(?:^|\/)Cargo\.toml$/;
const POLICY = ".github/ranex.yml";

/** Is this a configuration whose text names harness files? */
export function namesHarness(path: string): boolean {
  return JEST_VITEST.test(path) || MOCHARC.test(path) || PYTEST_CONFIG.test(path) || CARGO.test(path)
    || path === POLICY || /(?:^|\/)package\.json$/.test(path);
}

// The keys of jest and vitest whose value is a module (or a list of modules) the runner loads.
const SCRIPT_KEYS = ["setupFiles", "setupFilesAfterEnv", "globalSetup", "globalTeardown", "testEnvironment", "snapshotResolver", "testRunner", "testSequencer", "resolver", "require"];
const STRING = /(["'`])([^"'`\n]+)\1/g;
const SCRIPT = /\.(?:[cm]?[jt]sx?)$/;

/** `key: "x"` or `key: ["x", "y"]` (JS and JSON, `"key": …` too), one line or a bracket over several. */
function keyedStrings(text: string, keys: readonly string[]): { key: string; value: string }[] {
  const found: { key: string; value: string }[] = [];
  for (const key of keys) {
    const pattern = new RegExp(`["']?\\b${key}["']?\\s*[:=]\\s*(\\[[^\\]]*\\]|(["'\`])[^"'\`\\n]+\\2)`, "g");
    for (const match of text.matchAll(pattern)) {
      for (const s of match[1]!.matchAll(STRING)) found.push({ key, value: s[2]! });
    }
  }
  return found;
}

/** mocha's YAML: `require: x` or a block list under `require:`. */
function yamlList(text: string, key: string): string[] {
  const found: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const head = new RegExp(`^${key}\\s*:\\s*(.*)$`).exec(lines[i]!);
    if (head === null) continue;
    const inline = head[1]!.replace(/#.*$/, "").trim();
    if (inline.startsWith("[")) found.push(...inline.slice(1, -1).split(",").map((s) => s.trim()));
    else if (inline !== "") found.push(inline);
    else for (let j = i + 1; j < lines.length && /^\s+-\s*/.test(lines[j]!); j += 1) found.push(lines[j]!.replace(/^\s+-\s*/, "").trim());
  }
  return found.map((s) => s.replace(/^["']|["']$/g, "")).filter((s) => s !== "");
}

/** Command-line flags that load a file: mocha's `--require`/`-r`/`--file`, pytest's `-p`. */
function flagValues(text: string, flags: RegExp): string[] {
  return [...text.matchAll(flags)].map((m) => m[1]!.replace(/^["']|["',]$/g, "").replace(/["']$/, ""));
}

/** A specifier as a script runner resolves it from the configuration's folder (`<rootDir>` is that folder). */
function scriptFile(config: string, specifier: string, paths: ReadonlySet<string>): string[] {
  const dir = posix.dirname(config);
  const spec = specifier.replace(/^<rootDir>\/?/, "./");
  if (spec.startsWith("/")) return [];
  const relative = /^\.\.?\//.test(spec) ? spec : `./${spec}`;
  const from = dir === "." ? "x" : `${dir}/x`;
  return resolveScript(from, relative, paths);
}

/** A pytest plugin's module name as a tree file: `pkg.plugin` is `…/pkg/plugin.py` or its package. */
function pythonModule(name: string, paths: ReadonlySet<string>): string[] {
  if (!/^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/.test(name)) return [];
  const stem = name.replace(/\./g, "/");
  const endings = [`${stem}.py`, `${stem}/__init__.py`];
  return [...paths].filter((p) => endings.some((e) => p === e || p.endsWith(`/${e}`)));
}

/** The base files a frozen configuration names as harness. */
export function namedHarness(config: string, text: string, paths: ReadonlySet<string>): NamedHarness[] {
  const found: NamedHarness[] = [];
  const name = posix.basename(config);
  const add = (files: string[], key: string): void => {
    for (const path of files) if (path !== config) found.push({ path, by: `${config} (${key})` });
  };
  if (JEST_VITEST.test(config) || name === "package.json" || MOCHARC.test(config)) {
    let scope = text;
    if (name === "package.json") {
      // Only the runners' own sections: a package's `main` or `files` name code, not harness.
      try {
        const json = JSON.parse(text) as Record<string, unknown>;
        scope = JSON.stringify({ jest: json.jest ?? {}, mocha: json.mocha ?? {} });
        add(flagValues(JSON.stringify(json.scripts ?? {}), /(?:--require|--file|-r)[ =]([^\s"]+)/g).flatMap((s) => scriptFile(config, s, paths)).filter((p) => SCRIPT.test(p)), "scripts --require");
      } catch {
        scope = "";
      }
    }
    for (const { key, value } of keyedStrings(scope, SCRIPT_KEYS)) add(scriptFile(config, value, paths), key);
    if (/\.ya?ml$|\.mocharc$/.test(config)) for (const value of [...yamlList(text, "require"), ...yamlList(text, "file")]) add(scriptFile(config, value, paths), "require");
  }
  if (PYTEST_CONFIG.test(config) || config === POLICY) {
    const plugins = flagValues(text, /(?:^|[\s"'[,])-p(?:[ =]|["']\s*,\s*["'])?([A-Za-z_][\w.:]*)/g).filter((p) => !p.startsWith("no:"));
    add(plugins.flatMap((p) => pythonModule(p, paths)), "-p");
  }
  if (config === POLICY) {
    // Only scripts: `pip install -r requirements/dev.txt` in a setup command is no preload.
    add(flagValues(text, /(?:--require|--file|-r)[ =]([^\s"']+)/g).flatMap((s) => scriptFile("x", s, paths)).filter((p) => SCRIPT.test(p)), "--require");
  }
  if (CARGO.test(config)) {
    const dir = posix.dirname(config);
    for (const match of text.matchAll(/^\s*build\s*=\s*["']([^"'\n]+)["']/gm)) {
      const path = posix.normalize(dir === "." ? match[1]! : `${dir}/${match[1]!}`);
      if (paths.has(path)) add([path], "build");
    }
  }
  const seen = new Set<string>();
  return found.filter((f) => (seen.has(f.path) ? false : (seen.add(f.path), true)));
}
