// Values that lie about themselves, node:assert's form (issue 19). The legacy `equal` and `notEqual`
// compare with `==` and `!=`, and the legacy `deepEqual` and `notDeepEqual` compare a function or a
// primitive with `==` wherever they meet one (at any depth): both ask an object to convert itself
// (`valueOf`, `toString`, `Symbol.toPrimitive`). Code under test that returns `{ valueOf: () => 3 }`
// passes every frozen `assert.equal(count(…), 3)` whatever it counts, with nothing in the process
// replaced; the canaries, which compare other values, stay honest. Python's form is a lying `__eq__`
// (./python-lying.ts); jest's and vitest's an `asymmetricMatch` (src/runners/lying-received.ts).
//
// So the preload wraps those four functions of node:assert (before the watched originals are taken,
// so the wrappers are what must stay in place) and notes every comparison where such a conversion
// decides: an object or a function on one side, a primitive on the other (not null or undefined,
// which no object equals loosely), with the first file of the tree on the stack (the test that asked).
// An owner's test that compares a URL or a Date with a string does the same on the base, where the
// judgment (./judge.ts) finds it and leaves it to them; only what the base run did not do is blamed.
// The strict functions (`assert.strict`, `node:assert/strict`) compare with Object.is: no conversion.
// A Map's values are compared as deepEqual compares them, by key. Not looked at: a Set's members
// (deepEqual matches a primitive there only with a primitive), a Map's keys matched loosely (`1` and
// `"1"`), past 1000 pairs or 20 levels of one comparison.

/** node:assert's functions that compare loosely, and whether they walk their operands. */
export const NODE_LOOSE_FUNCTIONS: readonly (readonly [string, boolean])[] = [
  ["equal", false], ["notEqual", false], ["deepEqual", true], ["notDeepEqual", true],
];

/** Findings per process at most. */
export const NODE_LOOSE_LIMIT = 40;

/**
 * JavaScript for the preload's rest: `watchLoose(assert, emit)` wraps the loose functions of the
 * node:assert module it is given. Needs `TREE` and `opener()` (the first tree file on the stack) in scope.
 */
export function nodeLooseSource(): string {
  return `
  // --- Values that convert themselves in node:assert's loose comparisons (./node-loose.ts) ---
  const watchLoose = (assert, emit) => {
    const said = new Set();
    const getProto = Reflect.getPrototypeOf;
    const getOne = Reflect.getOwnPropertyDescriptor;
    // Taken now, before any code of the tree runs: how a Map is told and read.
    const apply = Reflect.apply;
    const tagOf = Object.prototype.toString;
    const mapHas = Map.prototype.has;
    const mapGet = Map.prototype.get;
    const mapEach = Map.prototype.forEach;
    const primitive = (v) => v !== null && v !== undefined && typeof v !== "object" && typeof v !== "function";
    const convertible = (v) => v !== null && (typeof v === "object" || typeof v === "function");
    const kindOf = (v) => {
      if (typeof v === "function") return "a function";
      try {
        const proto = getProto(v);
        const ctor = proto === null ? undefined : getOne(proto, "constructor");
        const name = ctor !== undefined && typeof ctor.value === "function" ? getOne(ctor.value, "name") : undefined;
        return "an object of " + (name !== undefined && typeof name.value === "string" && name.value !== "" ? name.value : "an unnamed class");
      } catch {
        return "an object";
      }
    };
    const note = (fn, object, other) => {
      if (said.size >= ${NODE_LOOSE_LIMIT}) return;
      let file = opener();
      file = file.startsWith(TREE) ? file.slice(TREE.length) : file === "" ? "code the gate cannot place" : file;
      const what = "node:assert." + fn + " compared " + kindOf(object) + " with a " + typeof other + " (" + file + ")";
      if (said.has(what)) return;
      said.add(what);
      emit({ k: "tamper", ev: "loose", what, by: "", line: 0 });
    };
    // equal/notEqual: the operands themselves.
    const pair = (fn, a, b) => {
      if (convertible(a) && primitive(b)) note(fn, a, b);
      else if (primitive(a) && convertible(b)) note(fn, b, a);
    };
    // deepEqual: where the legacy comparison meets a function or a primitive on one side, it uses ==;
    // two objects are compared key by key (their own enumerable keys, as it does).
    const walk = (fn, a, b) => {
      const stack = [a, b, 0];
      const seen = new Set();
      let pairs = 0;
      while (stack.length > 0 && pairs < 1000) {
        const depth = stack.pop();
        const y = stack.pop();
        const x = stack.pop();
        pairs += 1;
        const xObject = x !== null && typeof x === "object";
        const yObject = y !== null && typeof y === "object";
        if (!xObject && !yObject) {
          if (typeof x === "function" && primitive(y)) note(fn, x, y);
          else if (primitive(x) && typeof y === "function") note(fn, y, x);
          continue;
        }
        if (!xObject || !yObject || depth >= 20 || seen.has(x)) continue;
        seen.add(x);
        // Two Maps: their values under the same key, as deepEqual pairs them.
        // (Function.prototype.call is not watched: the methods taken are applied by Reflect's, which is.
        // No more pairs are kept than the walk reads.)
        if (apply(tagOf, x, []) === "[object Map]" && apply(tagOf, y, []) === "[object Map]") {
          try {
            apply(mapEach, x, [(value, key) => {
              if (stack.length < 3000 && apply(mapHas, y, [key])) stack.push(value, apply(mapGet, y, [key]), depth + 1);
            }]);
          } catch {}
        }
        for (const key of Object.keys(x)) {
          const dx = getOne(x, key);
          const dy = getOne(y, key);
          if (dx !== undefined && dy !== undefined && "value" in dx && "value" in dy) stack.push(dx.value, dy.value, depth + 1);
        }
      }
    };
    const list = ${JSON.stringify(NODE_LOOSE_FUNCTIONS)};
    for (let i = 0; i < list.length; i++) {
      const fn = list[i][0];
      const deep = list[i][1];
      const original = assert[fn];
      if (typeof original !== "function") continue;
      const wrapped = {
        [fn](actual, expected, message) {
          try { (deep ? walk : pair)(fn, actual, expected); } catch {}
          try {
            return Reflect.apply(original, this, arguments);
          } catch (error) {
            // node:assert starts the stack above its own function, which is now below this one: the
            // failure's first frame is the test's again, not the gate's.
            try {
              if (error instanceof assert.AssertionError) {
                const text = String(error.stack);
                const at = text.indexOf("\\n    at ");
                Error.captureStackTrace(error, wrapped);
                const now = String(error.stack);
                const from = now.indexOf("\\n    at ");
                if (at >= 0 && from >= 0) error.stack = text.slice(0, at) + now.slice(from);
              }
            } catch {}
            throw error;
          }
        },
      }[fn];
      assert[fn] = wrapped;
    }
  };
`;
}
