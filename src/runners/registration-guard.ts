// Who registered the frozen tests (issue 19): code under test that wraps the runner's registration
// (`globalThis.test`, vitest's chainable `test.each`, jest-circus's state reached through its symbol) can
// register the owner's frozen test with another body, an empty one, and every canary stays honest.
// This is the part of the in-file setup (./canary-in-file.ts) that watches for it, the same for jest
// and vitest: it runs before the test file and what it imports, and keeps what it sees for one more
// must-pass canary, which fails naming the test and the file that took part.
//
// The rule is by provenance, not by text: on the stack of a registration in a frozen test file, or of
// a write to a registration global, a frame is suspect when its file is one the pull request changed
// or added (the judgment's diff, `changed`), a file of the tree written during the run (changed after
// the gate's stamp `since`), a module the run wrote outside the tree (/tmp, /var/tmp, /dev/shm), code
// compiled at run time whose compiling file is suspect or unknown, or when the stack cannot be read.
// Every other file of the tree is the owner's code, the same as on the base: a frozen test that
// registers its tests through an unchanged helper under src/ (a shared suite factory, a workspace
// package) is what it was. Without `changed` (a run the gate gave no diff) every file of the tree the
// run can write is suspect, frozen and installed files aside: the stricter rule, never the looser.
// Compared this way, `test.each`, `describe.each`, loops and wrappers are what they were, and
// transformed files (babel, TypeScript, vite) need no reading of their text: the stack names the file.
// A body swapped after registration leaves no such stack: the body each test had when registered is
// kept and compared when the test starts.

export interface GuardFacts {
  /** The tree's root as the run sees it. */
  treeRoot: string;
  /** The frozen paths (files, or folders whose files all are), relative to the tree. */
  frozen: readonly string[];
  /** The gate's folder as the run sees it (its setup files and launchers' frames are the gate's). */
  gate?: string;
  /**
   * What the pull request changed, for a run in a judgment: the paths its diff changed or added
   * (relative; a folder stands for the files under it) that this tree holds, and when the gate gave
   * the run its tree (ms since the epoch): a tree file changed after it was written by the run.
   * Absent: every file of the tree the run can write is suspect (frozen and installed ones aside).
   */
  changed?: { paths: readonly string[]; since: number };
}

/**
 * A script block (no import or require: both setup files, CommonJS and ES module, include it) that
 * declares `guard`. `guard.watchGlobals(names, target?, label?, onWrite?)` puts an accessor on each
 * registration function (of the global by default) that notes writes by changeable files; `guard.via()` names the changeable files on the current stack;
 * `guard.note(what)` keeps a finding; `guard.lie(what)` a compared value that can equal anything, `guard.lies(testPath)` says them (any test file); `guard.onCheck(fn)` adds a last look (a finding or null); `guard.check(testPath)` says what voids a frozen file's run (null: nothing);
 * `guard.frozenRel(file)` is the file's path in the tree when it is frozen, else null.
 */
export function guardScript(facts: GuardFacts, fs: string): string {
  const q = JSON.stringify;
  return `const guard = (() => {
  const root = ${q(facts.treeRoot.replace(/\/+$/, ""))};
  const frozen = new Set(${q([...facts.frozen])});
  const changed = ${facts.changed === undefined ? "null" : `new Set(${q([...facts.changed.paths])})`};
  const since = ${facts.changed === undefined ? "0" : q(facts.changed.since)};
  // Taken now, before the tree's code: change times say which files the run wrote, real paths which
  // file a link (a workspace package under --preserve-symlinks) stands for.
  const { statSync: statOf, realpathSync: realOf } = ${fs};
  const realRoot = (() => { try { return realOf(root); } catch { return root; } })();
  // The path or a folder above it is in the set: as many lookups as the path has folders.
  const under = (set, rel) => {
    for (let at = rel; at !== ""; at = at.includes("/") ? at.slice(0, at.lastIndexOf("/")) : "") if (set.has(at)) return true;
    return false;
  };
  const isFrozen = (rel) => under(frozen, rel);
  // The file's path in the tree (installed packages' files included), or null.
  const treeRel = (file) => {
    let path = String(file ?? "");
    if (path.startsWith("file://")) { try { path = decodeURIComponent(new URL(path).pathname); } catch { return null; } }
    path = path.replace(/[?#].*$/, "");
    return path.startsWith(root + "/") ? path.slice(root.length + 1) : null;
  };
  const relOf = (file) => {
    const rel = treeRel(file);
    return rel === null || rel.split("/").includes("node_modules") ? null : rel;
  };
  // Code the run can write outside the tree: a module the code under test wrote to /tmp and loaded
  // (the gate's own folders, and the runner's packages, aside).
  const gates = [${q(facts.gate ?? "")}, typeof process === "object" ? process.env.RANEX_REPORTERS ?? "" : ""].filter((dir) => dir !== "").map((dir) => dir.replace(/\\/+$/, "") + "/");
  const scratch = (file) => {
    const path = String(file).replace(/^file:\\/\\//, "");
    if (gates.some((dir) => path.startsWith(dir)) || path.split("/").includes("node_modules")) return false;
    return /^\\/(?:tmp|var\\/tmp|dev\\/shm)\\//.test(path);
  };
  const inTree = (file) => String(file).replace(/^file:\\/\\//, "").startsWith(root + "/");
  // Code compiled at run time (eval, new Function) is named by the file that compiled it.
  const fileOf = (site) => {
    const file = site.getFileName();
    if (file !== null && file !== undefined) return file;
    if (!site.isEval()) return null;
    const origins = [...String(site.getEvalOrigin() ?? "").matchAll(/\\(([^()]*?):\\d+:\\d+\\)/g)];
    return origins.length === 0 ? "(code compiled at run time)" : origins[origins.length - 1][1];
  };
  // The files of the current stack, through V8's structured stack (file names, not text to parse). A
  // stack the gate cannot read (Error.prepareStackTrace held by someone) counts as changeable code.
  const UNREAD = "(a stack the gate could not read)";
  const stackFiles = () => {
    const limit = Error.stackTraceLimit;
    const prepare = Error.prepareStackTrace;
    const mine = (_error, sites) => sites.map(fileOf);
    const holder = {};
    try {
      Error.stackTraceLimit = 80;
      Error.prepareStackTrace = mine;
      if (Error.prepareStackTrace !== mine) return [UNREAD];
      Error.captureStackTrace(holder);
      return Array.isArray(holder.stack) ? holder.stack : [UNREAD];
    } catch {
      return [UNREAD];
    } finally {
      Error.stackTraceLimit = limit;
      Error.prepareStackTrace = prepare;
    }
  };
  // A stack repeats the same few files: each is judged once.
  const judged = new Map();
  const changeable = (file) => {
    if (file === null) return null;
    if (!judged.has(file)) judged.set(file, judgeFile(file));
    return judged.get(file);
  };
  // A name that is no file's (vm's default "evalmachine.<anonymous>", a data: URL): compiled at run time by someone.
  const named = (file) => /^(?:\\/|file:\\/\\/|node:)/.test(String(file));
  // A file of the tree written during the run: changed after the gate's stamp, or gone (fail closed).
  const written = (rel) => {
    try {
      return !(statOf(realRoot + "/" + rel).ctimeMs <= since);
    } catch {
      return true;
    }
  };
  const judgeFile = (file) => {
    if (file === UNREAD || file === "(code compiled at run time)") return file;
    if (!named(file)) return "(code compiled at run time)";
    if (!inTree(file)) return scratch(file) ? String(file) : null;
    if (changed === null) {
      const rel = relOf(file);
      return rel !== null && !isFrozen(rel) ? rel : null;
    }
    const shown = treeRel(file);
    if (shown === null) return String(file);
    if (isFrozen(shown)) return null;
    if (under(changed, shown)) return shown;
    // The file a link names is judged as the file it reaches (a changed one, or one outside the tree).
    let real;
    try { real = realOf(root + "/" + shown); } catch { return shown + " (gone)"; }
    const rel = real.startsWith(realRoot + "/") ? real.slice(realRoot.length + 1) : null;
    if (rel === null) return scratch(real) ? real : null;
    if (rel !== shown && !isFrozen(rel) && under(changed, rel)) return rel;
    return written(rel) ? shown + " (written during the run)" : null;
  };
  const via = () => [...new Set(stackFiles().map(changeable).filter((file) => file !== null))];
  // A test's own finding first: the report keeps the first line of a failure, 200 characters.
  const findings = { tests: [], globals: [], values: [] };
  const note = (what, kind = "tests") => { const list = findings[kind]; if (list.length < 20 && !list.includes(what)) list.push(what); };
  // A value a test compared that can equal anything (./lying-received.ts): not a registration, and
  // void in any test file, the PR's own too, since its tests are evidence as well.
  const lie = (what) => note(what, "values");
  const watched = [];
  // Puts an accessor on each registration function of \`target\` (the global, or node:test's exports)
  // whose setter notes a write by a changeable file; \`onWrite\` hears of each noted write.
  const watchGlobals = (names, target = globalThis, label = "globalThis", onWrite = () => {}) => {
    for (const name of names) {
      const before = Object.getOwnPropertyDescriptor(target, name);
      if (before === undefined || typeof before.value !== "function" || before.configurable !== true) continue;
      let value = before.value;
      const descriptor = {
        configurable: true, enumerable: before.enumerable,
        get() { return value; },
        set(next) {
          const files = via();
          value = next;
          if (files.length > 0) {
            note(label + "." + name + " was replaced by " + files.join(", "), "globals");
            onWrite();
          }
        },
      };
      Object.defineProperty(target, name, descriptor);
      watched.push([target, name, label, descriptor]);
    }
  };
  const checks = [];
  const onCheck = (more) => { checks.push(more); };
  const check = (testPath) => {
    const rel = relOf(testPath);
    if (rel === null || !isFrozen(rel)) return null;
    for (const more of checks) { const seen = more(); if (seen !== null) note(seen, "globals"); }
    for (const [target, name, label, descriptor] of watched) {
      const now = Object.getOwnPropertyDescriptor(target, name);
      if (now === undefined || now.get !== descriptor.get) note(label + "." + name + " was redefined (not assigned) while the file ran", "globals");
    }
    const all = [...findings.tests, ...findings.globals];
    return all.length === 0 ? null : rel + ": " + all.join("; ");
  };
  // The values any test file compared that can equal anything, the PR's own files too (null: none).
  const lies = (testPath) => findings.values.length === 0 ? null
    : (relOf(testPath) ?? testPath) + ": a value with an asymmetricMatch function, which can equal anything, reached " + findings.values.join("; ");
  const frozenRel = (file) => { const rel = relOf(file); return rel !== null && isFrozen(rel) ? rel : null; };
  return { via, note, lie, lies, watchGlobals, onCheck, check, frozenRel };
})();`;
}

/**
 * The expression a CommonJS includer hands `guardScript` for node:fs: Node's own module
 * (process.getBuiltinModule, Node 20.16 and later), never a runner's registry, which a test
 * configuration can mock; else `require`'s.
 */
export const FS_CJS = `(typeof process.getBuiltinModule === "function" ? process.getBuiltinModule("node:fs") : require("node:fs"))`;

/** The same for an ES module that imported node:fs as `imported` (`import * as imported from "node:fs"`). */
export const fsEsm = (imported: string): string => `(typeof process.getBuiltinModule === "function" ? process.getBuiltinModule("node:fs") : ${imported})`;

/** The must-pass canary's body: fails with what the guard saw in a frozen test file, and the lying values any file compared. */
export function guardCanaryBody(testPath: string): string {
  return `() => {
    const seen = guard.check(${testPath});
    const lies = guard.lies(${testPath});
    const all = [...seen === null ? [] : [seen + " (code the PR can change took part in registering a frozen test, or in what judges it)"], ...lies === null ? [] : [lies]];
    if (all.length > 0) throw new Error(all.join("; "));
  }`;
}
