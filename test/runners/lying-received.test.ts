import { describe, expect, it } from "vitest";
import { LYING_RECEIVED } from "../../src/runners/lying-received.js";

// The walk the in-file setup runs over each received value of jest's and vitest's equality matchers
// (src/runners/lying-received.ts), on its own with a guard that keeps what it is told. The real
// runners meet it in test/judge/js-lying-values.test.ts.
interface Lying {
  look(value: unknown, matcher: string): void;
  jest(registry: unknown): void;
}

function walker(): { lying: Lying; lies: string[] } {
  const lies: string[] = [];
  const guard = { lie: (what: string) => lies.push(what) };
  const lying = new Function("guard", `${LYING_RECEIVED}\nreturn lyingReceived;`)(guard) as Lying;
  return { lying, lies };
}

describe("the received values' walk", () => {
  const liar = (): object => ({ ["asymmetric" + "Match"]: () => true });

  it("finds a liar anywhere in the value: nested, in an array, a Map, a Set, a symbol key, inherited, behind a getter", () => {
    class Inherits {}
    Object.defineProperty(Inherits.prototype, "asymmetricMatch", { value: () => true });
    const cases: [unknown, string][] = [
      [liar(), ""],
      [{ a: [1, { b: liar() }] }, " at a.1.b"],
      [new Map([["k", liar()]]), " at <a value>"],
      [new Set([liar()]), " at <a member>"],
      [{ [Symbol("s")]: liar() }, " at Symbol(s)"],
      [new Inherits(), ""],
      [Object.defineProperty({}, "asymmetricMatch", { get: () => () => true }), ""],
    ];
    for (const [value, where] of cases) {
      const { lying, lies } = walker();
      lying.look(value, "toEqual");
      expect(lies).toEqual([`toEqual${where}`]);
    }
  });

  it("reads a mock's calls and results, not its own properties", () => {
    const { lying, lies } = walker();
    const mock = Object.assign(() => undefined, { mock: { calls: [[1, liar()]], results: [{ type: "return", value: 2 }] } });
    lying.look(mock, "toHaveBeenCalledWith");
    expect(lies).toEqual(["toHaveBeenCalledWith at the mock's calls.0.1"]);
  });

  it("leaves honest values alone: cycles, typed arrays, class instances, an asymmetricMatch that is not a function", () => {
    const { lying, lies } = walker();
    const cycle: Record<string, unknown> = { n: 1 };
    cycle.self = cycle;
    class Point { constructor(readonly x: number, readonly y: number) {} }
    lying.look(cycle, "toEqual");
    lying.look(new Uint8Array(100_000), "toEqual");
    lying.look([new Point(1, 2), new Date(0), /x/, "text", 3, null, undefined], "toStrictEqual");
    lying.look({ asymmetricMatch: "a field named so" }, "toEqual");
    expect(lies).toEqual([]);
  });

  it("stops at its bound: a value past 10,000 objects is not walked further", () => {
    const { lying, lies } = walker();
    const wide = Array.from({ length: 20_000 }, () => ({}));
    wide.unshift(liar());
    lying.look(wide, "toEqual");
    expect(lies).toEqual([]);
  });

  it("wraps jest's matchers in its registry, keeping their flags, and looks before each runs", () => {
    const { lying, lies } = walker();
    const flag = Symbol("jest-matcher-flag");
    const toEqual = Object.assign(function (this: unknown, received: unknown, expected: unknown) {
      return { pass: received === expected, message: () => "" };
    }, { [flag]: true });
    const registry = { matchers: { toEqual, toBe: toEqual } };
    lying.jest(registry);
    expect(registry.matchers.toEqual).not.toBe(toEqual);
    expect(registry.matchers.toBe).toBe(toEqual);
    expect((registry.matchers.toEqual as unknown as Record<symbol, unknown>)[flag]).toBe(true);
    expect(registry.matchers.toEqual.call(null, 1, 1).pass).toBe(true);
    registry.matchers.toEqual.call(null, liar(), 1);
    expect(lies).toHaveLength(1);
  });
});
