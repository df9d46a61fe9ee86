// What the tree's CommonJS modules export (issue 19, class 6 done at run time). A frozen test compares
// through a helper of the owner's (`support/same.js`, frozen by default as a helper the frozen tests
// import) or an unchanged module's function, taken from the module's exports object. Code under test
// that the frozen test requires first can replace that export before the test file takes it
// (`require("../support/same.js").sameCount = () => {}`), put it back once the test file has it, or
// plant a module object of its own under the helper's path in require's cache before the helper ever
// loads. The file on disk is untouched, so diff.frozen holds, and the canaries never use the helper.
//
// So the preload wraps `Module.prototype.load` (every CommonJS module of the process, whatever its
// extension, is loaded through it) and, as each module of the tree outside node_modules finishes
// loading, takes its exports' own function slots (and those of a plain object or a function's
// `prototype` one level down): what the module's own code exported. They are compared, by a plain
// read, as every later module of the tree finishes loading (a frozen test file takes its helpers while
// it loads), as each test ends (./node-ran.ts, mocha's guard) and, by descriptor, at exit. And when
// `require` resolves a file of the tree that the cache already holds, the cached object must be one
// that `load` made. Node's own loading functions are compared the same way (a `Module._load` of the
// code's own serves any module it likes). Findings are `exports` events, judged against the base run:
// a spy the owner's tests leave in place happens there too (./judge.ts); a module the change modified
// is its own to rewrite. jest's registry is its own (a Runtime per test file): its `requireModule` is
// wrapped the same way once Node loads jest-runtime (below).
//
// Not watched: vitest (it runs the tree through vite), ES modules (their exports cannot be
// assigned from outside; an exported object's properties can, and are not compared), an accessor on
// the exports (babel's re-exports: compared at exit only), an object held deeper than one level.

/** Export slots compared per process: past it the process compares no more (a bundle of thousands). */
export const NODE_EXPORT_SLOTS_LIMIT = 20000;

/**
 * JavaScript for the preload's rest: `watchExports(emit, Module)` wraps the loader and returns `look`
 * (compare now) and `atExit` (compare by descriptor, then say what changed). Needs `TREE`, `fs` and
 * `absolute` (path.resolve, taken at the rest's start) in scope.
 */
export function nodeExportsSource(): string {
  return `
  // --- What the tree's CommonJS modules export (./node-exports.ts) ---
  const watchExports = (emit, Module) => {
    const getOne = Reflect.getOwnPropertyDescriptor;
    const ownKeys = Reflect.ownKeys;
    const getProto = Reflect.getPrototypeOf;
    const ObjectProto = Object.prototype;
    const cache = Module._cache;
    const made = new WeakSet();
    // Flat: holder, key, value, label ("file: exports.name"), module path.
    const slots = [];
    // Flat: module, its exports as loaded, label, module path.
    const modules = [];
    const found = new Map();
    const note = (label, path) => { if (!found.has(label) && found.size < 200) found.set(label, path); };
    const take = (holder, prefix, file, path, deep) => {
      for (const key of ownKeys(holder)) {
        if (slots.length >= ${NODE_EXPORT_SLOTS_LIMIT * 5}) return;
        const d = getOne(holder, key);
        if (d === undefined || !("value" in d)) continue;
        const value = d.value;
        const name = prefix + String(key);
        if (typeof value === "function") slots.push(holder, key, value, file + ": " + name, path);
        if (deep && value !== null && (typeof value === "object" || typeof value === "function")) {
          const proto = getProto(value);
          if (key === "prototype" ? typeof holder === "function" : proto === ObjectProto || proto === null) take(value, name + ".", file, path, false);
        }
      }
    };
    // Node's own loading: a replacement serves any module it likes under any path.
    // Flat: owner, key, label (then, once the loader is wrapped, the value it holds).
    const loader = [
      Module, "_load", "node:module.Module._load", Module, "_resolveFilename", "node:module.Module._resolveFilename",
      Module.prototype, "require", "node:module.Module.prototype.require", Module.prototype, "load", "node:module.Module.prototype.load",
      Module.prototype, "_compile", "node:module.Module.prototype._compile",
      Module._extensions, ".js", "node:module.Module._extensions['.js']", Module._extensions, ".json", "node:module.Module._extensions['.json']",
    ];
    const loaderFound = new Set();
    const loaderSlots = [];
    const look = () => {
      for (let i = 0; i < slots.length; i += 5) if (slots[i][slots[i + 1]] !== slots[i + 2]) note(slots[i + 3], slots[i + 4]);
      for (let i = 0; i < modules.length; i += 4) if (modules[i].exports !== modules[i + 1]) note(modules[i + 2], modules[i + 3]);
      for (let i = 0; i < loaderSlots.length; i += 4) if (loaderSlots[i][loaderSlots[i + 1]] !== loaderSlots[i + 3]) loaderFound.add(loaderSlots[i + 2]);
      if (Module._cache !== cache) loaderFound.add("node:module.Module._cache");
    };
    const load = Module.prototype.load;
    const wrapped = {
      load(filename) {
        // Before it runs: a module that requires itself in a cycle meets its own, unfinished object.
        made.add(this);
        const result = Reflect.apply(load, this, arguments);
        try {
          if (typeof filename === "string" && filename.endsWith("/node_modules/jest-runtime/build/index.js")) watchJest(this.exports);
          if (typeof filename === "string" && filename.startsWith(TREE) && !filename.includes("/node_modules/")) {
            // What earlier modules export must still be theirs as this one (a frozen test file) has taken it.
            look();
            const file = filename.slice(TREE.length);
            const exported = this.exports;
            modules.push(this, exported, file + ": module.exports", filename);
            if (exported !== null && (typeof exported === "object" || typeof exported === "function")) take(exported, "exports.", file, filename, true);
          }
        } catch {}
        return result;
      },
    };
    // jest loads the tree through a registry of its own (jest-runtime's Runtime, one per test file), so
    // its \`requireModule\` (what a module's require, jest.requireActual and the test file's own load go
    // through) is wrapped as Node's load is: an exports object of the tree is taken the first time it
    // comes back (its body has run), and what was taken is compared after every module a file of the
    // tree loads or takes (a test file takes its helpers as it loads) and when the test file's runtime
    // is torn down, where it is said at once (a jest worker may be killed, not exited).
    const jestStates = new WeakMap();
    // Taken now, before any code of the tree runs (a jest configuration is the tree's, and runs before
    // jest-runtime loads): a statSync replaced by then would leave every export untaken.
    const statSync = fs.statSync;
    const treeFile = (from, name) => {
      let path;
      if (name === undefined || name === null) path = from;
      else if (typeof name !== "string") return null;
      else if (name.charCodeAt(0) === 47) path = name;
      else if (name.startsWith("./") || name.startsWith("../")) path = absolute(from, "..", name);
      else return null;
      if (!path.startsWith(TREE) || path.includes("/node_modules/")) return null;
      for (const candidate of [path, path + ".js", path + ".ts", path + ".cjs", path + ".jsx", path + ".tsx", path + "/index.js", path + "/index.ts"]) {
        try { if (statSync(candidate).isFile()) return candidate; } catch {}
      }
      return null;
    };
    const watchJest = (exported) => {
      const Runtime = exported != null ? exported.default : undefined;
      const proto = Runtime != null ? Runtime.prototype : undefined;
      if (proto == null || typeof proto.requireModule !== "function" || typeof proto.teardown !== "function") return;
      const requireModule = proto.requireModule;
      const teardown = proto.teardown;
      const stateOf = (runtime) => {
        let state = jestStates.get(runtime);
        if (state === undefined) {
          state = { seen: new WeakSet(), slots: [], found: new Map() };
          jestStates.set(runtime, state);
        }
        return state;
      };
      const compare = (state, exact) => {
        const slotsOf = state.slots;
        for (let i = 0; i < slotsOf.length; i += 5) {
          const now = exact ? getOne(slotsOf[i], slotsOf[i + 1])?.value : slotsOf[i][slotsOf[i + 1]];
          if (now !== slotsOf[i + 2] && !state.found.has(slotsOf[i + 3]) && state.found.size < 200) state.found.set(slotsOf[i + 3], slotsOf[i + 4]);
        }
      };
      const jest = {
        requireModule(from, moduleName, options) {
          const result = Reflect.apply(requireModule, this, arguments);
          try {
            if (typeof from === "string" && from.startsWith(TREE) && !from.includes("/node_modules/") && !(options != null && options.isInternalModule)) {
              const state = stateOf(this);
              compare(state, false);
              if (result !== null && (typeof result === "object" || typeof result === "function") && !state.seen.has(result)) {
                state.seen.add(result);
                const path = treeFile(from, moduleName);
                if (path !== null) {
                  const before = slots.length;
                  take(result, "exports.", path.slice(TREE.length), path, true);
                  // Kept per runtime: a test file's registry is its own.
                  state.slots.push(...slots.splice(before));
                }
              }
            }
          } catch {}
          return result;
        },
        teardown() {
          try {
            const state = jestStates.get(this);
            if (state !== undefined) {
              compare(state, true);
              for (const [label, path] of state.found) emit({ k: "tamper", ev: "exports", what: label, by: path, line: 0 });
              jestStates.delete(this);
            }
          } catch {}
          return Reflect.apply(teardown, this, arguments);
        },
      };
      proto.requireModule = jest.requireModule;
      proto.teardown = jest.teardown;
    };
    Module.prototype.load = wrapped.load;
    for (let i = 0; i < loader.length; i += 3) loaderSlots.push(loader[i], loader[i + 1], loader[i + 2], loader[i][loader[i + 1]]);
    // As require resolves a file of the tree: a cached module that load never made is planted.
    const resolved = (filename) => {
      if (typeof filename !== "string" || !filename.startsWith(TREE) || filename.includes("/node_modules/")) return;
      const cached = cache[filename];
      if (cached !== undefined && !made.has(cached)) note(filename.slice(TREE.length) + ": the module require() returns (not loaded from its file)", filename);
    };
    const atExit = () => {
      look();
      for (let i = 0; i < slots.length; i += 5) {
        const d = getOne(slots[i], slots[i + 1]);
        if (d === undefined || d.value !== slots[i + 2]) note(slots[i + 3], slots[i + 4]);
      }
      for (const [label, path] of found) emit({ k: "tamper", ev: "exports", what: label, by: path, line: 0 });
      for (const label of loaderFound) emit({ k: "tamper", ev: "swapped", what: label, by: "", line: 0 });
    };
    return { look, resolved, atExit };
  };
`;
}
