// node --test's own process (issue 19, the record's cost): in Node 20 it runs no code of the tree
// unless its command line or NODE_OPTIONS names some. It reads the test files' names from the folder,
// starts one child process per file (each child runs the preload in full: NODE_OPTIONS is inherited),
// and reads what they serialize. Code of the tree runs in it only through a preload (`--require`,
// `-r`; `--import` is not run there in Node 20, only in the children), a loader
// (`--loader`, `--experimental-loader`), a reporter that is not built in (`--test-reporter=./x.mjs` or a
// package: imported there), an env file (`--env-file`: its variables), or options of other Node
// versions (`--test-isolation=none` runs the test files in it in Node 22; a configuration file in
// Node 23). Node 20 reads no configuration file. So when its options are all among a few that load
// nothing, NODE_OPTIONS holds only the gate's own preloads (this one and the canary's, from the gate's
// read-only folder), and the process is no node:test child, the preload there returns at once: what
// it would watch (the resolved modules, the data read, node:assert, the intrinsics) no code of the tree
// can touch in that process. It used to write a start and an end line; nothing in the judgment read
// them (each child's record is held to its own file; the first process whose end must be seen is then
// a child, which runs the tree's code), and opening the record and writing them cost node --test's
// process 1.0 M instructions (callgrind outside the sandbox, three counts each way, 192.22 M against
// 191.19 M): what kept node-calc over issue 19's 5 % once the exports and loose-comparison checks came. Anything else (an option not listed,
// another Node version, a NODE_OPTIONS the gate did not write) gets the whole preload, as before.
// Native code (LD_PRELOAD, an OpenSSL engine) is out of the preload's reach in every process alike.
//
// That saves what the preload's work costs there (about 6 M instructions of node-calc's 536 M under
// callgrind); `--require` itself still costs node --test's process about 7 to 10 M (Node compiles its
// CommonJS loading path for it), since NODE_OPTIONS is the only way to reach the children and the
// parent reads it too.

/** node:test's built-in reporters (Node 20): names that load no file. */
export const NODE_BUILTIN_REPORTERS: readonly string[] = ["spec", "tap", "dot", "junit", "lcov"];

/** Options of node --test's process that load no code; the `=` ones take a value. */
export const NODE_PARENT_OPTIONS: readonly string[] = [
  "--test", "--test-only", "--test-force-exit", "--predictable", "--no-warnings",
  "--test-reporter=", "--test-reporter-destination=", "--test-name-pattern=", "--test-skip-pattern=",
  "--test-concurrency=", "--test-timeout=", "--test-shard=",
];

/**
 * JavaScript for the preload's closure: `quietParent()` is true in node --test's own process when,
 * by the rule above, no code of the tree can run in it. `gateDir` is the run's gate folder as the run
 * sees it (its preloads), `gateReporter` the gate's node:test reporter (`$RANEX_NODE_REPORTER`).
 */
export function nodeParentSource(gateDir: string, gateReporter: string | null): string {
  const q = JSON.stringify;
  const flags = NODE_PARENT_OPTIONS.filter((o) => !o.endsWith("="));
  const valued = NODE_PARENT_OPTIONS.filter((o) => o.endsWith("=")).map((o) => o.slice(0, -1));
  const reporters = [...NODE_BUILTIN_REPORTERS, ...gateReporter === null ? [] : [gateReporter]];
  // Arrays and a short pattern, not sets and the folder's whole path in a pattern: every Node process
  // parses this, node --test's own runs it (issue 19's cost). Called only where NODE_TEST_CONTEXT is unset.
  return `
  // --- node --test's own process, when no code of the tree can run there (./node-parent.ts) ---
  const quietParent = () => {
    if (!process.version.startsWith("v20.")) return false;
    const flags = ${q(flags)};
    const valued = ${q(valued)};
    const args = process.execArgv;
    let test = false;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      if (flags.includes(arg)) {
        if (arg === "--test") test = true;
        continue;
      }
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg : arg.slice(0, eq);
      if (!valued.includes(name)) return false;
      const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
      if (typeof value !== "string" || name === "--test-reporter" && !${q(reporters)}.includes(value)) return false;
    }
    if (!test) return false;
    // A gate preload: a file right in the gate folder's node/ folder, its name without dots or slashes.
    const options = String(process.env.NODE_OPTIONS ?? "").split(" ").filter((word) => word !== "");
    const folder = ${q(`${gateDir.replace(/\/+$/, "")}/node/`)};
    for (let i = 0; i < options.length; i += 2) {
      const path = options[i + 1] ?? "";
      if (options[i] !== "--require" || !path.startsWith(folder) || !/^[A-Za-z0-9_-]+\\.cjs$/.test(path.slice(folder.length))) return false;
    }
    return true;
  };
`;
}
