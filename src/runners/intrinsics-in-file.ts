// The language's intrinsics in the context a jest or vitest test file runs in (issue 19). jest runs
// each test file in a `vm` context of its own, whose `Object.is`, `Array.prototype` and `JSON` are not
// the process's: the preload compares only the main context's, at exit (src/measure/provenance/
// node-planted.ts). And a swap put back before the process ends (from `beforeExit`, a timer) is not
// seen there at all. `expect`'s equality reads these intrinsics where the test runs: code under test
// that makes `Object.is` say true for its own wrong answer, and only for it, passes every frozen
// `toBe` and `toEqual` of that answer while the canaries, which compare other values, stay honest.
//
// So the in-file setup (./canary-in-file.ts) takes the own function, getter and setter of each object
// below in the test file's context before the file and what it imports are loaded, compares them after
// each of the file's tests and once more in a must-pass canary that runs after them, and that canary
// fails naming what was replaced. A replacement is judged against the base run (the canary's member is
// `againstBase`): a polyfill or a spy the base's tests make too is the owner's, not the change's.
// Still not seen: a swap made and put back within one test's call.
import { NODE_INTRINSIC_OBJECTS, NODE_WATCHED_OBJECTS } from "../measure/provenance/node-planted.js";

/** The objects compared, as [label, expression], the preload's own lists (its Node-only modules aside). */
const OBJECTS = [...NODE_WATCHED_OBJECTS, ...NODE_INTRINSIC_OBJECTS];

/**
 * A script block for the in-file setup that declares `intrinsicsWatch`: `look()` compares now and
 * keeps what differs, `replaced()` says everything kept, in the order the slots were taken (so the base
 * run and the head run say the same text for the same replacements).
 */
export const INTRINSICS_IN_FILE = `const intrinsicsWatch = (() => {
  const getOne = Reflect.getOwnPropertyDescriptor;
  const ownKeys = Reflect.ownKeys;
  const slots = [];
  for (const [label, find] of [${OBJECTS.map(([label, expr]) => `[${JSON.stringify(label)}, () => ${expr}]`).join(", ")}]) {
    let owner;
    try { owner = find(); } catch { continue; }
    if (owner === null || owner === undefined) continue;
    for (const key of ownKeys(owner)) {
      const d = getOne(owner, key);
      if (typeof d.value === "function" || d.get !== undefined || d.set !== undefined) slots.push([owner, key, d.value, d.get, d.set, label + "." + String(key)]);
    }
  }
  const seen = new Set();
  const look = () => {
    for (const [owner, key, value, get, set, label] of slots) {
      if (seen.has(label)) continue;
      const d = getOne(owner, key);
      if (d === undefined || d.value !== value || d.get !== get || d.set !== set) seen.add(label);
    }
  };
  const replaced = () => slots.map((slot) => slot[5]).filter((label) => seen.has(label));
  return { look, replaced };
})();`;

/** The must-pass canary's body: fails naming the intrinsics replaced while the file ran. */
export const INTRINSICS_CANARY_BODY = `() => {
    intrinsicsWatch.look();
    const replaced = intrinsicsWatch.replaced();
    if (replaced.length > 0) throw new Error("replaced in the test file's context while it ran: " + replaced.slice(0, 8).join(", ") + (replaced.length > 8 ? " and " + (replaced.length - 8) + " more" : ""));
  }`;
