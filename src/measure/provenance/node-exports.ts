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
// is its own to rewrite.
//
// Not watched: jest (its module registry is its own, not Node's), ES modules (their exports cannot be
// assigned from outside; an exported object's properties can, and are not compared), an accessor on
// the exports (babel's re-exports: compared at exit only), an object held deeper than one level.

/** Export slots compared per process: past it the process compares no more (a bundle of thousands). */
export const NODE_EXPORT_SLOTS_LIMIT = 20000;

/**
 * JavaScript for the preload's rest: `watchExports(emit, Module)` wraps the loader and returns `look`
 * (compare now) and `atExit` (compare by descriptor, then say what changed). Needs `TREE` in scope.
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
    const loader = [
      [Module, "_load", "node:module.Module._load"], [Module, "_resolveFilename", "node:module.Module._resolveFilename"],
      [Module.prototype, "require", "node:module.Module.prototype.require"], [Module.prototype, "load", "node:module.Module.prototype.load"],
      [Module.prototype, "_compile", "node:module.Module.prototype._compile"],
      [Module._extensions, ".js", "node:module.Module._extensions['.js']"], [Module._extensions, ".json", "node:module.Module._extensions['.json']"],
    ];
    const loaderFound = new Set();
    let loaderSlots = [];
    const look = () => {
      for (let i = 0; i < slots.length; i += 5) if (slots[i][slots[i + 1]] !== slots[i + 2]) note(slots[i + 3], slots[i + 4]);
      for (let i = 0; i < modules.length; i += 4) if (modules[i].exports !== modules[i + 1]) note(modules[i + 2], modules[i + 3]);
      for (const [owner, key, label, value] of loaderSlots) if (owner[key] !== value) loaderFound.add(label);
      if (Module._cache !== cache) loaderFound.add("node:module.Module._cache");
    };
    const load = Module.prototype.load;
    const wrapped = {
      load(filename) {
        // Before it runs: a module that requires itself in a cycle meets its own, unfinished object.
        made.add(this);
        const result = Reflect.apply(load, this, arguments);
        try {
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
    Module.prototype.load = wrapped.load;
    loaderSlots = loader.map(([owner, key, label]) => [owner, key, label, owner[key]]);
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
