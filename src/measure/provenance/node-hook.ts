// The Node half of the provenance record: a preload (`--require` on NODE_OPTIONS, from the gate's
// read-only folder) that runs before any code of the tree in every Node process of the run. It
// records each CommonJS module of the tree that is resolved (and which tree file required it), what the tree's CommonJS modules
// export (./node-exports.ts), and whether node:assert's functions are still the ones the process started with when it ends. ES modules are not followed: Node 20's
// module.register runs its hooks in a thread of their own, which cost about 0.3 s of every process
// (measured on the bench's node:test suite), far past the record's budget. Lines go into the record's
// FIFO (./pipe.ts), which code under test can add to but never take back from.
//
// Every Node process of the run pays for the preload before its own code starts (node --test starts
// one per test file), so it loads nothing it can do without: its nonce is the kernel's random UUID
// (node:crypto's, about 5 ms of CPU to load, only where /proc is missing), and it asks no module whether it runs in a worker thread
// (node:worker_threads, as much again). In a worker it runs again, with a nonce of its own under the
// process's pid: the record keeps the first start line a pid sends, so the worker's start and end are
// dropped, and what it resolves or finds replaced is kept, since it ran in the run's process.

import { nodeExportsSource } from "./node-exports.js";
import { nodeLooseSource } from "./node-loose.js";
import { nodeParentSource } from "./node-parent.js";
import { nodePlantedSource } from "./node-planted.js";
import { nodeRanSource } from "./node-ran.js";

/** node:assert's functions a test's outcome passes through, on the module and on its `strict` object. */
export const NODE_ASSERT_FUNCTIONS: readonly string[] = [
  "ok", "equal", "notEqual", "deepEqual", "notDeepEqual", "strictEqual", "notStrictEqual", "deepStrictEqual",
  "notDeepStrictEqual", "throws", "doesNotThrow", "rejects", "doesNotReject", "match", "doesNotMatch", "fail", "ifError",
];

/** The file beside the preload that holds the rest of it: node --test's quiet process never parses it. */
export const NODE_PRELOAD_REST = "record-rest.cjs";

/** Where the preload may read its code cache by the fs binding (./node-cache.ts): those Node versions, a cache of at most that size. */
export interface FastRead {
  versions: readonly string[];
  bytes: number;
}

/**
 * JavaScript defining `readByBinding(path, max)`: the file's bytes read by the fs binding's open, read
 * and close, or undefined when it holds more than `max`. The preload reads its cache with it, and the
 * gate tries this very text with each Node first (./node-cache.ts): a call of another shape aborts.
 */
export const NODE_BINDING_READ = `const readByBinding = (path, max) => {
    const binding = process.binding("fs");
    const fd = binding.open(path, 0, 0);
    try {
      const bytes = new Uint8Array(max + 1);
      const read = binding.read(fd, bytes, 0, bytes.length, -1);
      return read <= max ? bytes.subarray(0, read) : undefined;
    } finally {
      binding.close(fd);
    }
  };`;

/** The rest's text is wrapped in these when it is compiled with its code cache: as require() wraps a module. */
export const NODE_REST_WRAP: readonly [string, string] = ["(function (exports, require, module, __filename, __dirname) { ", "\n})"];

/**
 * JavaScript that opens the record's FIFO (the expression `fifo`; without it the preload does
 * nothing: \`return\`), takes the process's nonce, defines \`emit\` (bounded) and \`testFile\` and writes
 * the start line. The rest starts with it.
 */
function startSource(fifo: string): string {
  return `
  const stringify = JSON.stringify;
  const writeSync = fs.writeSync;
  let fd;
  try {
    fd = fs.openSync(${fifo}, fs.constants.O_WRONLY | fs.constants.O_APPEND);
  } catch {
    return;
  }
  // The nonce: the kernel's random UUID (122 random bits, new at each read; fs.readSync of /dev/urandom
  // cost 1.5 M instructions more); node:crypto's (5 ms of CPU to load) only where /proc is not there.
  let nonce = "";
  try { nonce = fs.readFileSync("/proc/sys/kernel/random/uuid", "utf8").slice(0, 36); } catch {}
  if (nonce.length !== 36) nonce = require("node:crypto").randomUUID();
  let budget = 5000;
  const emit = (entry) => {
    if (budget <= 0) return;
    budget -= 1;
    entry.pid = process.pid;
    try { writeSync(fd, stringify(entry) + "\\n"); } catch {}
  };
  // node:test's child (its stdout is the report channel): the test file it runs, read before any tree code.
  const testFile = process.env.NODE_TEST_CONTEXT === "child-v8" && typeof process.argv[1] === "string" ? process.argv[1] : undefined;
  emit({ k: "start", lang: "node", nonce, ppid: process.ppid, argv: process.argv.slice(0, 8).join(" "), ...(testFile === undefined ? {} : { tf: testFile }) });`;
}

/**
 * The preload's text. `gateDir` is the run's gate folder as the run sees it (its preloads live in
 * `node/`), `gateReporter` the gate's node:test reporter there: both let node --test's own process
 * tell that no code of the tree can run in it (./node-parent.ts); it says nothing there. Every other process loads the rest (`nodePreloadRestSource`, from `NODE_PRELOAD_REST` beside
 * it, compiled ahead: ./node-cache.ts), which starts the record, before any code of the tree.
 */
export function nodePreloadSource(fifo: string, treeRoot: string, gateDir: string, gateReporter: string | null, fastRead: FastRead = { versions: [], bytes: 0 }): string {
  const q = JSON.stringify;
  // Short on purpose (issue 19's cost): every process compiles this file, and a test file's process
  // only needs it to load the rest, which comes compiled; node --test's own compiles the quiet path too.
  return `"use strict";
// Added by Ranex Gate for this run only: the provenance record (what ran, and from where).
(() => {
  const fs = require("node:fs");
${nodeParentSource(gateDir, gateReporter)}
  // node --test's own process, where no code of the tree can run: nothing to watch, nothing to say.
  if (process.env.NODE_TEST_CONTEXT === undefined && quietParent()) return;
  // The rest, from the V8 code cache the gate made for this node's V8 beside it (./node-cache.ts),
  // wrapped as require() wraps it; V8 compiles the text when the cache is not for its flags. No cache
  // for this V8: require() as it is.
  const file = __dirname + ${q(`/${NODE_PRELOAD_REST}`)};
  let rest;
  let cachedData;
  const cache = __dirname + "/record-rest." + process.versions.v8 + ".cache";
  // Read by the fs binding where the gate saw that work on this very Node version (./node-cache.ts:
  // a first binary readFileSync makes Node compile its whole read path, three times the cost).
  if (${q(fastRead.versions)}.includes(process.version) && process.binding.name === "binding") {
    ${NODE_BINDING_READ}
    try { cachedData = readByBinding(cache, ${fastRead.bytes}); } catch {}
  } else try { cachedData = fs.readFileSync(cache); } catch {}
  if (cachedData === undefined) rest = require(file);
  else {
    const loaded = { exports: {} };
    new (require("node:vm").Script)(${q(NODE_REST_WRAP[0])} + fs.readFileSync(file, "utf8") + ${q(NODE_REST_WRAP[1])}, { filename: file, cachedData })
      .runInThisContext()(loaded.exports, require, loaded, file, __dirname);
    rest = loaded.exports;
  }
  rest({ fs, fifo: ${q(fifo)}, tree: ${q(`${treeRoot.replace(/\/+$/, "")}/`)}, Module: module.constructor });
})();
`;
}

/**
 * The rest of the preload, in a file of its own: node --test's quiet process (./node-parent.ts) does
 * not even parse it (about 4 M instructions under callgrind, against 0.4 M for the preload's start).
 */
export function nodePreloadRestSource(): string {
  const q = JSON.stringify;
  return `"use strict";
// Added by Ranex Gate for this run only: the rest of the provenance record's preload (./record.cjs).
// In parentheses: V8 then compiles it at once instead of parsing it twice (ahead, then when called).
// The record's FIFO and the tree come as arguments: the text, and so its code cache, is the same for every run.
module.exports = (function ({ fs, fifo, tree: TREE, Module: loader }) {${startSource("fifo")}
  const budgetLeft = () => budget;
  const seen = new Set();
  const code = (path) => {
    if (typeof path !== "string" || !path.startsWith(TREE) || seen.has(path)) return;
    seen.add(path);
    emit({ k: "code", p: path, kind: "module" });
  };
  // The CommonJS loader's Module: the preload's own module's constructor (node:module is the same
  // class, but loading it loads Node's source map parser too: about 1 M instructions a process).
  const Module = typeof loader === "function" && typeof loader._resolveFilename === "function" ? loader : require("node:module");
  const resolve = Module._resolveFilename;
  // Set below, once the exports watch (./node-exports.ts) has wrapped the loader.
  let exportsWatch;
  // Which tree file asked for which (once per pair): the frozen tests' helpers are read from it.
  const asked = new Set();
  Module._resolveFilename = function (...args) {
    const found = resolve.apply(this, args);
    code(found);
    if (exportsWatch !== undefined) exportsWatch.resolved(found);
    const by = args[1] != null ? args[1].filename : undefined;
    if (typeof found === "string" && found.startsWith(TREE) && typeof by === "string" && by.startsWith(TREE)) {
      const key = found + "\u0000" + by;
      if (!asked.has(key)) {
        asked.add(key);
        emit({ k: "imp", n: found, by });
      }
    }
    return found;
  };
  // Test data (issue 19): a tree file that is not code, read through fs (readFileSync, readFile,
  // createReadStream, fs.promises.readFile: what tests use, and what require() of a .json goes
  // through), with the tree file whose code read it. Each file once; bounded apart from the budget.
  const { resolve: absolute } = require("node:path");
  const { fileURLToPath } = require("node:url");
  // Code, not data: [cm]?[jt]sx?, .node, .map, or under node_modules. String tests, not a pattern: V8
  // compiles a pattern in every process at its first use (issue 19's cost).
  const CODE = new Set(["js", "jsx", "ts", "tsx", "cjs", "cjsx", "cts", "ctsx", "mjs", "mjsx", "mts", "mtsx", "node", "map"]);
  const notData = (path) => {
    if (path.includes("/node_modules/")) return true;
    const dot = path.lastIndexOf(".");
    return dot > path.lastIndexOf("/") && CODE.has(path.slice(dot + 1));
  };
  const dataSeen = new Set();
  let dataLeft = 1000;
  const opener = () => {
    const prepare = Error.prepareStackTrace;
    const limit = Error.stackTraceLimit;
    const holder = {};
    try {
      Error.prepareStackTrace = (_, frames) => frames;
      Error.stackTraceLimit = 40;
      Error.captureStackTrace(holder, opener);
      for (const frame of holder.stack) {
        let file = frame.getFileName();
        if (typeof file !== "string") continue;
        if (file.startsWith("file://")) file = fileURLToPath(file);
        if (file.startsWith(TREE) && !file.includes("/node_modules/")) return file;
      }
    } catch {} finally {
      Error.prepareStackTrace = prepare;
      Error.stackTraceLimit = limit;
    }
    return "";
  };
  const dataRead = (target) => {
    try {
      let path = typeof target === "string" ? target : target instanceof URL && target.protocol === "file:" ? fileURLToPath(target) : null;
      if (path === null || dataLeft <= 0) return;
      if (path.charCodeAt(0) !== 47 || path.includes("/.")) path = absolute(path);
      if (!path.startsWith(TREE) || notData(path) || dataSeen.has(path) || budgetLeft() <= 1000) return;
      dataSeen.add(path);
      dataLeft -= 1;
      emit({ k: "data", p: path, by: opener() });
    } catch {}
  };
  // fs.promises.readFile opens through the fs binding's \`openFileHandle\` (Node 20's
  // internal/fs/promises reads it off the binding at each call), so on Node 20 that is wrapped instead:
  // \`fs.promises\` loads internal/fs/promises, which a CommonJS test file's process never loads
  // otherwise (2.3 M instructions a process, issue 19's cost), and an ES module's
  // \`import { readFile } from "node:fs/promises"\` reaches the binding all the same. Every open there
  // that can read and does not truncate counts (FileHandle's readFile, an \`open(path, "r")\` too).
  // Elsewhere, or where \`process.binding\` is the deprecation wrapper (--pending-deprecation: it
  // would print a warning), fs.promises.readFile is wrapped as before.
  const wrapped = [[fs, "readFileSync"], [fs, "readFile"], [fs, "createReadStream"]];
  let binding = null;
  try {
    if (process.version.startsWith("v20.") && process.binding.name === "binding") binding = process.binding("fs");
  } catch {}
  const openFileHandle = binding === null ? undefined : binding.openFileHandle;
  if (typeof openFileHandle === "function") {
    const { O_WRONLY, O_RDWR, O_TRUNC } = fs.constants;
    const apply = Reflect.apply;
    binding.openFileHandle = function (target, flags) {
      if (typeof flags === "number" && (flags & (O_WRONLY | O_RDWR)) !== O_WRONLY && (flags & O_TRUNC) === 0) dataRead(target);
      return apply(openFileHandle, this, arguments);
    };
  } else wrapped.push([fs.promises, "readFile"]);
  for (const [owner, name] of wrapped) {
    const original = owner[name];
    owner[name] = function (target, ...rest) {
      dataRead(target);
      return original.call(this, target, ...rest);
    };
  }
${nodeRanSource()}
${nodePlantedSource()}
${nodeExportsSource()}
  exportsWatch = watchExports(emit, Module);
  const replaced = watchReplaced(emit);
${nodeLooseSource()}
  const assert = require("node:assert");
  // Before the originals are taken: the wrappers are what must stay in place.
  watchLoose(assert, emit);
  const names = ${q(NODE_ASSERT_FUNCTIONS)};
  // One flat list (owner, name, label, function): no destructuring in the loops, whose bytecode V8 also
  // compiles again with Sparkplug as the look runs (issue 19's cost).
  const originals = [];
  for (const name of names) originals.push(assert, name, "node:assert." + name, assert[name]);
  for (const name of names) originals.push(assert.strict, name, "node:assert.strict." + name, assert.strict[name]);
  // Looked at as each test ends too (node:test's reporter, mocha's guard): a swap put back before exit.
  const assertReplaced = new Set();
  const lookAssert = () => {
    for (let i = 0; i < originals.length; i += 4) if (originals[i][originals[i + 1]] !== originals[i + 3]) assertReplaced.add(originals[i + 2]);
  };
  lookReplaced = () => {
    replaced.look();
    lookAssert();
    exportsWatch.look();
  };
  // For the gate's own launchers, which know when a test ends where node:test's reporter is not the
  // one (mocha's guard, ./../../runners/mocha-guard.ts): fixed on \`process\` (not writable, not
  // configurable), so code under test can call it, never replace it.
  Object.defineProperty(process, Symbol.for("ranex.lookReplaced"), { value: lookReplaced });
  process.on("exit", () => {
    lookAssert();
    for (const what of assertReplaced) emit({ k: "tamper", ev: "replaced", what, by: "", line: 0 });
    replaced.atExit();
    exportsWatch.atExit();
    reportRan();
    emit({ k: "end", nonce });
  });
});
`;
}
