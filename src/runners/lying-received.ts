// Values that lie about themselves, jest's and vitest's form (issue 19). Their equality (`toEqual`,
// `toStrictEqual`, `toMatchObject`, `toHaveBeenCalledWith`, ...) asks any object with an
// `asymmetricMatch` function whether it matches, on either side, before comparing anything: code
// under test that returns `{ asymmetricMatch: () => true }`, or a runner's own `expect.anything()`
// it reached through the global, passes every such assertion of a frozen test with nothing in the
// process changed. The harness scan's tripwire sees the word only when the text spells it.
//
// So the in-file setup (./canary-in-file.ts) wraps those matchers: before each runs, the value the
// test received (a mock's calls and results, for the mock matchers) is walked, bounded, for an
// object that speaks the protocol. The received side is what the code under test produced; a test
// has no reason to put a matcher there (the expected side, where `expect.any(Number)` belongs, is
// not looked at: the owner's tests use it every day). A finding voids the file's run through the
// guard's must-pass canary, naming the matcher and where in the value it was.
//
// Limits: a value behind a getter or a Proxy that answers this walk and the runner's own read
// differently; past the bound (10,000 values, 64 deep) nothing is seen; a lying value the test
// passes as the expected side (computed by code under test: an oracle).

/** The matchers whose received value the runner compares with its equality, by name (jest's aliases too). */
const EQUALITY = [
  "toEqual", "toStrictEqual", "toMatchObject", "toContainEqual", "toHaveProperty",
  "toHaveBeenCalledWith", "toBeCalledWith", "toHaveBeenLastCalledWith", "lastCalledWith",
  "toHaveBeenNthCalledWith", "nthCalledWith", "toHaveReturnedWith", "toReturnWith",
  "toHaveLastReturnedWith", "lastReturnedWith", "toHaveNthReturnedWith", "nthReturnedWith",
  "toHaveResolvedWith", "toHaveLastResolvedWith", "toHaveNthResolvedWith",
];

/**
 * A script block (after guardScript's `guard`) that declares `lyingReceived`: `look(value, matcher)`
 * walks a received value and tells the guard of an object that speaks the protocol; `jest(registry)`
 * wraps jest's matchers (its registry under Symbol.for("$$jest-matchers-object")); `chai(chai)` wraps
 * vitest's (chai assertions).
 */
export const LYING_RECEIVED = `const lyingReceived = (() => {
  const names = ${JSON.stringify(EQUALITY)};
  const getProto = Object.getPrototypeOf;
  const ownDescriptor = Reflect.getOwnPropertyDescriptor;
  // The protocol as the runners read it: an \`asymmetricMatch\` that is a function, own or inherited
  // (an accessor counts: what it returns is up to code under test).
  const speaks = (value) => {
    let at = value;
    for (let depth = 0; at !== null && depth < 32; depth++) {
      const d = ownDescriptor(at, "asymmetricMatch");
      if (d !== undefined) return d.get !== undefined || typeof d.value === "function";
      at = getProto(at);
    }
    return false;
  };
  const look = (received, matcher) => {
    const seen = new Set();
    const todo = [[received, ""]];
    // A mock matcher's received value is the mock: what it was called with and what it returned.
    const mock = typeof received === "function" ? received.mock : undefined;
    if (mock !== null && typeof mock === "object") {
      const calls = Array.isArray(mock.calls) ? mock.calls : [];
      const results = Array.isArray(mock.results) ? mock.results.map((r) => (r !== null && typeof r === "object" ? r.value : r)) : [];
      todo.push([calls, "the mock's calls"], [results, "the mock's results"]);
      if (Array.isArray(mock.settledResults)) todo.push([mock.settledResults.map((r) => (r !== null && typeof r === "object" ? r.value : r)), "the mock's results"]);
    }
    while (todo.length > 0 && seen.size < 10000) {
      const [value, where] = todo.pop();
      if (value === null || (typeof value !== "object" && typeof value !== "function") || seen.has(value)) continue;
      seen.add(value);
      let found = false;
      try {
        found = speaks(value);
      } catch {
        found = true;
      }
      if (found) {
        // Short: the runner's report keeps 200 characters of the canary's failure for all of them.
        guard.lie(matcher + (where === "" ? "" : " at " + where));
        return;
      }
      if (where.split(".").length > 64 || typeof value === "function") continue;
      const at = (key) => (where === "" ? key : where + "." + key);
      try {
        if (value instanceof Map) for (const [k, v] of value) todo.push([k, at("<a key>")], [v, at("<a value>")]);
        else if (value instanceof Set) for (const v of value) todo.push([v, at("<a member>")]);
        else if (!ArrayBuffer.isView(value)) {
          for (const key of Object.keys(value)) todo.push([value[key], at(key)]);
          for (const key of Object.getOwnPropertySymbols(value)) if (Object.prototype.propertyIsEnumerable.call(value, key)) todo.push([value[key], at(String(key))]);
        }
      } catch {
        // A value that throws when read is the runner's to report; nothing more to walk here.
      }
    }
  };
  const jest = (registry) => {
    const matchers = registry !== null && typeof registry === "object" ? registry.matchers : undefined;
    if (matchers === null || typeof matchers !== "object") return;
    for (const name of names) {
      const original = matchers[name];
      if (typeof original !== "function") continue;
      const wrapped = function (received, ...rest) {
        look(received, name);
        return original.call(this, received, ...rest);
      };
      // jest marks its own matchers (a symbol-keyed flag): the wrapper keeps their error handling.
      for (const key of Object.getOwnPropertySymbols(original)) Object.defineProperty(wrapped, key, Object.getOwnPropertyDescriptor(original, key));
      matchers[name] = wrapped;
    }
  };
  const chai = (chai) => {
    if (chai === undefined || chai === null || chai.Assertion === undefined || chai.util === undefined) return;
    const proto = chai.Assertion.prototype;
    for (const name of names) {
      if (typeof ownDescriptor(proto, name)?.value !== "function") continue;
      chai.util.overwriteMethod(proto, name, (original) => function (...args) {
        look(chai.util.flag(this, "object"), name);
        return original.apply(this, args);
      });
    }
  };
  return { look, jest, chai };
})();`;
