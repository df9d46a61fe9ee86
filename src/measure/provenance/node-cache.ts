// Node's preload compiled ahead by the gate (issue 19's cost). Every Node process of a run compiled the
// rest of the preload (./node-hook.ts, `NODE_PRELOAD_REST`) from source, and each of its functions
// again when first called: about 3.7 M instructions of the 15.6 M the preload costs a node:test child
// (callgrind, V8's --predictable). A V8 code cache made after the rest has run holds those functions
// compiled, so the measuring process makes one per text and `node` binary: it runs each `node` the
// sandbox's PATH finds (/usr is the host's, bound read-only) outside the sandbox on the gate's own text
// (nothing of the tree: a scratch folder stands for it), exercises what a test file's process calls,
// and writes the cache; each run's read-only `node/` folder gets a copy named by V8's version.
//
// V8 takes a cache only from its own version and build, for a text of the same length, made under the
// same flags (a hash of every flag set, `--predictable` and `--random-seed` left out, so the bench's
// counting run reads the cache a real run reads). A process whose flags differ (`--max-old-space-size`,
// `--stack-size`) gets it rejected and compiles the text as before; no cache for its V8 at all, and it
// `require`s the rest as before. The cache decides nothing but speed: the text it was made from is the
// text the run has, and the gate folder is read-only to the run.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { copyFile, mkdtemp, readdir, realpath, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { NODE_BINDING_READ, NODE_REST_WRAP, nodePreloadRestSource, type FastRead } from "./node-hook.js";

const run = promisify(execFile);

/** The folders of the sandbox's PATH that hold `node` (its /bin is /usr/bin). */
const NODE_DIRS = ["/usr/local/bin", "/usr/bin"];
/** The cache file of one V8: the preload's loader reads `record-rest.<process.versions.v8>.cache`. */
const CACHE_NAME = /^record-rest\.[0-9A-Za-z.-]+\.cache$/;

/**
 * argv: the rest's file, the cache file's folder (the rest's), the rest's path as the runs see it (V8
 * keeps the name a script was compiled under in its cache: a stack frame of the rest read from the
 * cache names that, whatever name the run's compile gives). Prints the cache
 * file's name. It loads the rest as the preload does, with a scratch folder as the tree, calls what a
 * node:test child calls (a module resolved and its exports taken, data read every way, a test:pass
 * serialized, node:assert's loose comparisons, the exit check), and writes the cache after the rest's
 * exit handler ran.
 */
const GENERATE = `"use strict";
const fs = require("node:fs");
const vm = require("node:vm");
const [, file, out, seenAs] = process.argv;
const tree = fs.mkdtempSync(require("node:os").tmpdir() + "/ranex-node-cache-tree-");
fs.writeFileSync(tree + "/a.js", "module.exports = { a() {}, b: { c() {} } };\\n");
fs.writeFileSync(tree + "/a.txt", "a\\n");
const script = new vm.Script(${JSON.stringify(NODE_REST_WRAP[0])} + fs.readFileSync(file, "utf8") + ${JSON.stringify(NODE_REST_WRAP[1])}, { filename: seenAs });
const mod = { exports: {} };
script.runInThisContext()(mod.exports, require, mod, file, out);
fs.writeFileSync(tree + "/record", "");
mod.exports({ fs, fifo: tree + "/record", tree: tree + "/", Module: module.constructor });
require(tree + "/a.js");
fs.readFileSync(tree + "/a.txt");
fs.readFile(tree + "/a.txt", () => {});
fs.createReadStream(tree + "/a.txt").destroy();
fs.promises.readFile(tree + "/a.txt").catch(() => {});
new (require("node:v8").Serializer)().writeValue({ type: "test:pass", data: { name: "a" } });
process[Symbol.for("ranex.lookReplaced")]();
// node:assert's loose comparisons, as a test calls them (./node-loose.ts).
const assert = require("node:assert");
assert.equal(1, 1);
assert.notEqual(1, 2);
assert.deepEqual({ a: [1] }, { a: [1] });
assert.notDeepEqual({ a: 1 }, { a: 2 });
process.on("exit", () => {
  fs.rmSync(tree, { recursive: true, force: true });
  const name = "record-rest." + process.versions.v8 + ".cache";
  fs.writeFileSync(out + "/" + name, script.createCachedData());
  process.stdout.write(name);
});
`;

/**
 * Reading the cache by the fs binding (what the preload's loader does where it can): `fs.readFileSync`
 * without an encoding is the first binary read of a test file's process, and Node compiles its whole
 * general read path for it (open, stat, buffer, `readSync`'s checks): about 0.95 M instructions a
 * process under callgrind, against 0.27 M for the binding's open, read and close (the utf8 reads
 * Node's loader uses have a fast path of their own). The binding's calls changed shape within Node 20
 * (an older one aborts the process on a call of the newer shape), so the preload takes that path
 * only on a Node whose exact version read a cache this way here, in a process of its own, first.
 * argv: the cache file. Prints the Node version when the read (the preload's own text) held.
 */
const VERIFY_FAST_READ = `"use strict";
const expected = require("node:fs").readFileSync(process.argv[1]);
if (process.binding.name === "binding") {
  ${NODE_BINDING_READ}
  const read = readByBinding(process.argv[1], expected.length);
  if (read !== undefined && expected.equals(read)) process.stdout.write(process.version);
}
`;

interface Compiled {
  dir: string;
  /** Cache file names in `dir`: one per V8 that compiled the text. */
  files: string[];
  /** The preload's fast read of its cache (VERIFY_FAST_READ): the Node versions it held on, and the largest cache's size. */
  fastRead: FastRead;
}

/** By the text's digest and the rest's path as the runs see it: one compile per text, path and measuring process. */
const compiled = new Map<string, Promise<Compiled>>();
let binaries: Promise<string[]> | null = null;

/** The `node` binaries the sandbox's PATH finds, by their real path. */
function findNodes(): Promise<string[]> {
  binaries ??= (async () => {
    const found = new Set<string>();
    for (const folder of NODE_DIRS) {
      if (!(await readdir(folder).catch(() => [] as string[])).includes("node")) continue;
      const real = await realpath(join(folder, "node")).catch(() => null);
      if (real !== null) found.add(real);
    }
    return [...found];
  })();
  return binaries;
}

/**
 * Makes the code caches of the preload's rest with every `node` found, once per text and `seenAs` (the
 * rest's path as the runs see it). V8 keeps the name a script was compiled under in the cache and a
 * frame of the rest names it, whatever the compile that reads the cache says: the stack checks that
 * tell the gate's frames from the tree's (src/runners/registration-guard.ts) read that name. Under
 * bwrap every run sees the gate folder at one path, so one cache serves every run. Never fails:
 * without a cache the run compiles the text.
 */
export function compileNodeRest(seenAs: string): Promise<Compiled> {
  const source = nodePreloadRestSource();
  const key = createHash("sha256").update(source).update("\u0000").update(seenAs).digest("hex");
  let entry = compiled.get(key);
  if (entry === undefined) {
    entry = build(source, seenAs).catch(() => ({ dir: "", files: [], fastRead: { versions: [], bytes: 0 } }));
    compiled.set(key, entry);
  }
  return entry;
}

async function build(source: string, seenAs: string): Promise<Compiled> {
  const dir = await mkdtemp(join(tmpdir(), "ranex-node-cache-"));
  // The runs have their copies: the folder leaves with the measuring process.
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "record-rest.cjs");
  await writeFile(file, source);
  const files = new Set<string>();
  const versions: string[] = [];
  let bytes = 0;
  await Promise.all((await findNodes()).map(async (node) => {
    // An environment of its own: no NODE_OPTIONS (the flags a run has by default), a node:test child's context.
    const env = { PATH: "/usr/bin:/bin", NODE_TEST_CONTEXT: "child-v8" };
    const name = await run(node, ["-e", GENERATE, file, dir, seenAs], { timeout: 30_000, env, cwd: dir }).then((r) => r.stdout.trim(), () => "");
    if (!CACHE_NAME.test(name)) return;
    files.add(name);
    const cache = join(dir, name);
    // A process of its own: where the binding's calls have another shape, it is this one that aborts.
    const version = await run(node, ["-e", VERIFY_FAST_READ, cache], { timeout: 30_000, env: { PATH: env.PATH }, cwd: dir }).then((r) => r.stdout.trim(), () => "");
    if (/^v\d+\.\d+\.\d+$/.test(version)) {
      versions.push(version);
      bytes = Math.max(bytes, (await stat(cache)).size);
    }
  }));
  return { dir, files: [...files], fastRead: { versions, bytes } };
}

/** Writes the caches of the preload's rest into a run's `node` folder, beside the rest, which the run sees as `seenAs`. */
export async function placeNodeRestCache(nodeDir: string, seenAs: string): Promise<FastRead> {
  const { dir, files, fastRead } = await compileNodeRest(seenAs);
  // A file that cannot be copied leaves that node to compile the text: slower, never less recorded.
  await Promise.all(files.map((name) => copyFile(join(dir, name), join(nodeDir, name)).catch(() => undefined)));
  return fastRead;
}
