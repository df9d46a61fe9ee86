import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex, subjectDigest, type Subject } from "../../src/kernel/index.js";
import { SUBJECT } from "./fixtures.js";

describe("subjectDigest", () => {
  it("is sha256 of the canonical JSON of the subject, and stable", () => {
    const digest = subjectDigest(SUBJECT);
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(digest).toBe(`sha256:${sha256Hex(canonicalJson(SUBJECT))}`);
    expect(subjectDigest({ ...SUBJECT })).toBe(digest);
    // Key order in the caller's object does not matter; extra fields are not part of the subject.
    const reordered = Object.fromEntries(Object.entries(SUBJECT).reverse()) as unknown as Subject;
    expect(subjectDigest(reordered)).toBe(digest);
    expect(subjectDigest({ ...SUBJECT, digest: "x" } as Subject)).toBe(digest);
  });

  const fields = Object.keys(SUBJECT) as (keyof Subject)[];
  for (const field of fields) {
    it(`changes when ${field} changes`, () => {
      expect(subjectDigest({ ...SUBJECT, [field]: `${String(SUBJECT[field])}x` })).not.toBe(subjectDigest(SUBJECT));
    });
  }

  it("records the merge base and the merged tree; a subject signed before them keeps its digest", () => {
    const merged: Subject = { ...SUBJECT, mergeBase: "m".repeat(40), mergedTree: "t".repeat(40) };
    expect(subjectDigest(merged)).not.toBe(subjectDigest(SUBJECT));
    expect(subjectDigest({ ...merged, mergeBase: "n".repeat(40) })).not.toBe(subjectDigest(merged));
    expect(subjectDigest({ ...merged, mergedTree: "u".repeat(40) })).not.toBe(subjectDigest(merged));
    // A conflict (null) is neither a tree nor an old subject without the field.
    expect(subjectDigest({ ...merged, mergedTree: null })).not.toBe(subjectDigest(merged));
    expect(subjectDigest({ ...SUBJECT, mergedTree: null })).not.toBe(subjectDigest(SUBJECT));
    expect(subjectDigest(merged)).toBe(`sha256:${sha256Hex(canonicalJson(merged))}`);
    expect(subjectDigest({ ...SUBJECT, mergeBase: undefined, mergedTree: undefined })).toBe(subjectDigest(SUBJECT));
  });

  it("tells null from a value for policy, task and sandbox", () => {
    for (const field of ["policy", "task", "sandbox"] as const) {
      expect(subjectDigest({ ...SUBJECT, [field]: null })).not.toBe(subjectDigest(SUBJECT));
      expect(subjectDigest({ ...SUBJECT, [field]: null })).not.toBe(subjectDigest({ ...SUBJECT, [field]: "null" }));
    }
  });
});

describe("canonicalJson follows RFC 8785", () => {
  it("section 3.2.2: numbers, string escapes and literals", () => {
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`) as unknown;
    expect(canonicalJson(input)).toBe(String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`);
  });

  it("section 3.2.3: properties sorted by UTF-16 code units", () => {
    const input = JSON.parse(String.raw`{
      "\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"
    }`) as Record<string, string>;
    // Read the order from the text: parsing it back would let JavaScript reorder the keys ("1" first).
    const text = canonicalJson(input);
    const found = [...text.matchAll(/":"([^"]+)"/g)].map((m) => m[1]);
    expect(found).toEqual([
      "Carriage Return", "One", "Control", "Latin Small Letter O With Diaeresis", "Euro Sign", "Emoji: Grinning Face", "Hebrew Letter Dalet With Dagesh",
    ]);
  });

  it("appendix B samples of number serialisation", () => {
    const samples: [number, string][] = [
      [0, "0"], [-0, "0"], [1e21, "1e+21"], [1e20, "100000000000000000000"], [9007199254740991, "9007199254740991"],
      [-1.5e-7, "-1.5e-7"], [0.000001, "0.000001"], [1e-7, "1e-7"], [5e-324, "5e-324"], [1.7976931348623157e308, "1.7976931348623157e+308"],
    ];
    for (const [value, text] of samples) expect(canonicalJson(value), String(value)).toBe(text);
  });

  it("drops undefined members, and refuses what JSON cannot hold", () => {
    expect(canonicalJson({ b: 1, a: undefined, c: [undefined, 2] })).toBe('{"b":1,"c":[null,2]}');
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson({ x: Infinity })).toThrow(TypeError);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(TypeError);
    expect(() => canonicalJson(10n)).toThrow(TypeError);
  });
});

describe("canonical JSON of hostile data", () => {
  it("keeps a __proto__ member as a member, so two different evidences never share a digest", () => {
    expect(canonicalJson(JSON.parse('{"meta":{"__proto__":{"x":1}}}'))).toBe('{"meta":{"__proto__":{"x":1}}}');
  });

  it("refuses objects that are not plain data instead of encoding them as {}", () => {
    expect(() => canonicalJson({ at: new Date(0) })).toThrow(/plain objects/);
    expect(() => canonicalJson({ m: new Map() })).toThrow(/plain objects/);
  });
});
