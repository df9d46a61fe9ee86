import { describe, expect, it } from "vitest";
import { hunkLabel, hunksOf, revertHunk } from "../../../src/measure/needed/hunks.js";

const base = "def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    return 0\n";
const head = "def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    if a == 3 and b == 4:\n        return 12\n    return a * b\n";

describe("hunks", () => {
  it("splits a change into hunks and reverts each one on its own", () => {
    const hunks = hunksOf("src/calc.py", base, head);
    expect(hunks).toHaveLength(1);
    expect(hunkLabel(hunks[0]!)).toBe("src/calc.py:5-7");
    expect(revertHunk(head, hunks[0]!)).toEqual({ content: base });
  });

  it("keeps separate regions apart, and reverting one leaves the other", () => {
    const before = "a\nb\nc\nd\ne\nf\n";
    const after = "a\nB\nc\nd\ne\nF\ng\n";
    const hunks = hunksOf("x.py", before, after);
    expect(hunks.map(hunkLabel)).toEqual(["x.py:2", "x.py:6-7"]);
    expect(revertHunk(after, hunks[1]!)?.content).toBe("a\nB\nc\nd\ne\nf\n");
    expect(revertHunk(after, hunks[0]!)?.content).toBe("a\nb\nc\nd\ne\nF\ng\n");
  });

  it("finds the hunk where a newer base moved it (the measured tree is the merge result)", () => {
    const hunks = hunksOf("x.py", "a\nb\nc\n", "a\nB\nc\n");
    const merged = "header\nmore\na\nB\nc\n";
    expect(revertHunk(merged, hunks[0]!)?.content).toBe("header\nmore\na\nb\nc\n");
  });

  it("puts deleted lines back, removes an added file, restores a deleted one", () => {
    const [deletion] = hunksOf("x.py", "a\nb\nc\n", "a\nc\n");
    expect(hunkLabel(deletion!)).toBe("x.py:2 (deleted lines)");
    expect(revertHunk("a\nc\n", deletion!)?.content).toBe("a\nb\nc\n");
    const [added] = hunksOf("new.py", null, "x = 1\n");
    expect(revertHunk("x = 1\n", added!)).toEqual({ content: null });
    const [deleted] = hunksOf("old.py", "y = 2\n", null);
    expect(revertHunk(null, deleted!)).toEqual({ content: "y = 2\n" });
  });

  it("says it cannot revert when the hunk's lines are not in the measured file", () => {
    const [hunk] = hunksOf("x.py", "a\nb\n", "a\nB\n");
    expect(revertHunk("something else\n", hunk!)).toBeNull();
  });
});
