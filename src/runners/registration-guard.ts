// Who registered the frozen tests (issue 19): code under test that wraps the runner's registration
// (`globalThis.test`, vitest's chainable `test.each`, jest-circus's state reached through its symbol) can
// register the owner's frozen test with another body, an empty one, and every canary stays honest.
// This is the part of the in-file setup (./canary-in-file.ts) that watches for it, the same for jest
// and vitest: it runs before the test file and what it imports, and keeps what it sees for one more
// must-pass canary, which fails naming the test and the file that took part.
//
// The rule is by provenance, not by text: in a frozen test file, a test, hook or registration global
// must come from frozen files (the test file, its frozen helpers, the configuration's setup files) and
// the runner's own packages. A file of the tree the run can write (the code under test, a test helper
// the policy released) found on the stack of a registration, or of a write to a registration global,
// is code the PR can change taking part in how a frozen test is registered. Compared this way,
// `test.each`, `describe.each`, loops and wrappers of the test files themselves are what they were
// (their frames are frozen files and the runner's), and transformed files (babel, TypeScript, vite)
// need no reading of their text: the stack names the file, whatever its compiled form.
// A body swapped after registration leaves no such stack: the body each test had when registered is
// kept and compared when the test starts.

export interface GuardFacts {
  /** The tree's root as the run sees it. */
  treeRoot: string;
  /** The frozen paths (files, or folders whose files all are), relative to the tree. */
  frozen: readonly string[];
  /** The gate's folder as the run sees it (its setup files and launchers' frames are the gate's). */
  gate?: string;
}

/**
 * A script block (no import or require: both setup files, CommonJS and ES module, include it) that
 * declares `guard`. `guard.watchGlobals(names, target?, label?, onWrite?)` puts an accessor on each
 * registration function (of the global by default) that notes writes by changeable files; `guard.via()` names the changeable files on the current stack;
 * `guard.note(what)` keeps a finding; `guard.onCheck(fn)` adds a last look (a finding or null); `guard.check(testPath)` says what voids a frozen file's run (null: nothing);
 * `guard.frozenRel(file)` is the file's path in the tree when it is frozen, else null.
 */
export function guardScript(facts: GuardFacts): string {
  const q = JSON.stringify;
  return `const guard = (() => {
  const root = ${q(facts.treeRoot.replace(/\/+$/, ""))};
  const frozen = new Set(${q([...facts.frozen])});
  // The path or a folder above it is frozen: as many lookups as the path has folders.
  const isFrozen = (rel) => {
    for (let at = rel; at !== ""; at = at.includes("/") ? at.slice(0, at.lastIndexOf("/")) : "") if (frozen.has(at)) return true;
    return false;
  };
  const relOf = (file) => {
    let path = String(file ?? "");
    if (path.startsWith("file://")) { try { path = decodeURIComponent(new URL(path).pathname); } catch { return null; } }
    path = path.replace(/[?#].*$/, "");
    if (!path.startsWith(root + "/")) return null;
    const rel = path.slice(root.length + 1);
    return rel.split("/").includes("node_modules") ? null : rel;
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
  const judgeFile = (file) => {
    if (file === UNREAD || file === "(code compiled at run time)") return file;
    if (!inTree(file)) return scratch(file) ? String(file) : null;
    const rel = relOf(file);
    return rel !== null && !isFrozen(rel) ? rel : null;
  };
  const via = () => [...new Set(stackFiles().map(changeable).filter((file) => file !== null))];
  // A test's own finding first: the report keeps the first line of a failure, 200 characters.
  const findings = { tests: [], globals: [] };
  const note = (what, kind = "tests") => { const list = findings[kind]; if (list.length < 20 && !list.includes(what)) list.push(what); };
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
  const frozenRel = (file) => { const rel = relOf(file); return rel !== null && isFrozen(rel) ? rel : null; };
  return { via, note, watchGlobals, onCheck, check, frozenRel };
})();`;
}

/** The must-pass canary's body: fails with what the guard saw in a frozen test file. */
export function guardCanaryBody(testPath: string): string {
  return `() => { const seen = guard.check(${testPath}); if (seen !== null) throw new Error(seen + " (code the PR can change took part in registering a frozen test)"); }`;
}
