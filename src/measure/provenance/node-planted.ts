// The Node preload's check of what code under test replaced (issue 19, a fresh red team). node:test's
// child process reports each test to the runner through v8's public serializer on its stdout, so a
// module under test that patches `v8.Serializer.prototype.writeValue` or wraps `process.stdout.write`
// turns the target's `test:fail` into `test:pass` without touching node:assert; a patched `Math` or
// `JSON` changes the oracle a frozen test compares with. Node's own internals use primordials captured
// at start-up, so what code under test can reach is what is public: these objects.
//
// The preload takes the own property descriptors of each object below when it starts (before any code
// of the tree runs) and, when the process ends, names every one whose function, getter or setter is
// no longer the same object (data is not compared; keys added since are not findings: polyfills add
// what is missing). In node:test's child, whose stdout is the report, `process.stdout.write` must be
// the one its prototype holds (a test that captures output and puts the function back passes). One
// pass at start and one at exit, about 200 properties: no work while the tests run. `process` and
// EventEmitter are not compared: jest, vitest and signal-exit replace process.exit, emit and reallyExit
// in honest runs, and a forged exit status must still agree with the report.

/** [label, JavaScript expression for the object] whose own properties are compared at exit. */
export const NODE_WATCHED_OBJECTS: readonly (readonly [string, string])[] = [
  ["Math", "Math"],
  ["JSON", "JSON"],
  ["Reflect", "Reflect"],
  ["Number", "Number"],
];

/**
 * The language's intrinsics a frozen test computes its expected values with (issue 19, the third red
 * team: `Array.prototype.sort = function () { return this; }` makes `[...xs].sort(…)` agree with an
 * unsorted answer). Polyfills replace some of these in honest runs, so a replacement here is judged
 * against the base run's record (`swapped`, ./judge.ts): only what the base did not do is blamed.
 */
// Every process pays for the descriptors taken at start and compared at exit: with the 21 objects of a
// first version (the prototypes of Promise, Date, RegExp, Buffer, ... too) that was about 5 M
// instructions per bare Node process (jitless, single-threaded, under callgrind); these are the ones an
// expected value is computed with. Object's, RegExp's, Date's and Promise's prototypes (and Promise)
// came back once the record had a margin under issue 19's 5 %: about 0.5 M a node:test child and
// 0.025 M a test (a string's split or replace with a pattern goes through RegExp's). Not
// Function.prototype: core-js replaces its `toString` wherever it loads (to show its polyfills as
// native), so an honest change that brings core-js in would FAIL, and no oracle computes with it.
export const NODE_INTRINSIC_OBJECTS: readonly (readonly [string, string])[] = [
  ["Object", "Object"], ["Array", "Array"], ["Array.prototype", "Array.prototype"], ["String.prototype", "String.prototype"],
  ["Number.prototype", "Number.prototype"], ["Map.prototype", "Map.prototype"], ["Set.prototype", "Set.prototype"],
  ["TypedArray.prototype", "Object.getPrototypeOf(Uint8Array.prototype)"],
  ["Object.prototype", "Object.prototype"], ["RegExp.prototype", "RegExp.prototype"],
  ["Date.prototype", "Date.prototype"], ["Promise", "Promise"], ["Promise.prototype", "Promise.prototype"],
];

/**
 * The report channel of node:test's child: watched there only (loading them costs about 2 ms of CPU
 * elsewhere). Not v8's Deserializer: the child only writes the channel, node --test's own process reads it.
 */
// The expressions name the modules as \`v8\`, \`stream\` and \`net\`, each required once (a require() per
// object made Node's require path hot enough for V8 to compile it again: issue 19's cost).
export const NODE_CHILD_WATCHED_OBJECTS: readonly (readonly [string, string])[] = [
  ["node:v8", "v8"],
  ["node:v8.Serializer.prototype", "v8.Serializer.prototype"],
  ["node:v8.DefaultSerializer.prototype", "v8.DefaultSerializer.prototype"],
  ["node:stream.Writable.prototype", "stream.Writable.prototype"],
  ["node:stream.Duplex.prototype", "stream.Duplex.prototype"],
  ["node:net.Socket.prototype", "net.Socket.prototype"],
];

/** JavaScript for the preload's closure: `watchReplaced(emit)` takes the snapshot and returns `look` (compare now, keep what changed) and `atExit` (look, then say it). */
export function nodePlantedSource(): string {
  const list = (objects: readonly (readonly [string, string])[]): string => objects.map(([label, expr]) => `[${JSON.stringify(label)}, () => ${expr}]`).join(",\n    ");
  return `
  // What code under test may replace (./node-planted.ts): own properties, taken now, compared at exit.
  const watchReplaced = (emit) => {
    const ownKeys = Reflect.ownKeys;
    const getOne = Reflect.getOwnPropertyDescriptor;
    // One flat list of the properties that hold a function, getter or setter, taken now: the exit check
    // then reads only those (data properties are never compared), one descriptor each.
    const watched = [];
    // node:test's child process (NODE_TEST_CONTEXT=child-v8, read now, before any tree code) reports
    // to the runner through v8's serializer on its stdout: there, and only there, that is the report.
    const reportsOnStdout = process.env.NODE_TEST_CONTEXT === "child-v8";
    const child = () => {
      const v8 = require("node:v8");
      const stream = require("node:stream");
      const net = require("node:net");
      return [
      ${list(NODE_CHILD_WATCHED_OBJECTS)},
      ];
    };
    const intrinsics = [
    ${list(NODE_INTRINSIC_OBJECTS)},
    ];
    // Indexed loops, no destructuring: less bytecode to run and for Sparkplug to compile again.
    const take = (objects, intrinsic) => {
      for (let o = 0; o < objects.length; o++) {
        const label = objects[o][0];
        let owner;
        try { owner = objects[o][1](); } catch { continue; }
        if (owner == null) continue;
        const keys = ownKeys(owner);
        for (let k = 0; k < keys.length; k++) {
          const key = keys[k];
          const a = getOne(owner, key);
          // A slot that is neither configurable nor writable can never hold anything else: not
          // watched (most getters of the report channel's streams and sockets, whose descriptor
          // reads were the dearest part of each test's look, about 1,900 instructions each).
          if (a.configurable === false && a.writable !== true) continue;
          if (typeof a.value === "function" || a.get !== undefined || a.set !== undefined) watched.push(owner, key, a.value, a.get, a.set, label, intrinsic);
        }
      }
    };
    take([
    ${list(NODE_WATCHED_OBJECTS)},
    ...(reportsOnStdout ? child() : []),
    ], false);
    take(intrinsics, true);
    const getProto = Object.getPrototypeOf;
    // Compared when node:test's own reporter serializes a test's end (./node-ran.ts) and at exit: a
    // swap put back before the process ends (from \`beforeExit\`, a timer) is seen at the next test's end.
    const seen = new Set();
    const found = [];
    const swapped = [];
    const note = (i) => {
      const what = watched[i + 5] + "." + String(watched[i + 1]);
      if (!seen.has(what)) { seen.add(what); (watched[i + 6] ? swapped : found).push(what); }
    };
    // Whole descriptors, at exit: a value, a getter or a setter that is not the one taken.
    const look = () => {
      for (let i = 0; i < watched.length; i += 7) {
        const b = getOne(watched[i], watched[i + 1]);
        if (b === undefined || watched[i + 2] !== b.value || watched[i + 3] !== b.get || watched[i + 4] !== b.set) note(i);
      }
    };
    // As each test ends: a plain read of each function slot (a descriptor is an object made per slot,
    // about ten times the cost), a descriptor only for accessors. A slot made an accessor that hands
    // this read the old function is left to the exit's look.
    const glance = () => {
      for (let i = 0; i < watched.length; i += 7) {
        const value = watched[i + 2];
        if (value !== undefined ? watched[i][watched[i + 1]] !== value : watched[i + 3] !== getOne(watched[i], watched[i + 1])?.get) note(i);
      }
    };
    const atExit = () => {
      look();
      for (const what of swapped.slice(0, 40)) emit({ k: "tamper", ev: "swapped", what, by: "", line: 0 });
      for (const name of reportsOnStdout ? ["stdout"] : []) {
        const stream = process[name];
        if (stream != null && stream.write !== getProto(stream).write) found.push("process." + name + ".write");
      }
      for (const what of found) emit({ k: "tamper", ev: "replaced", what, by: "", line: 0 });
    };
    return { look: glance, atExit };
  };
`;
}
