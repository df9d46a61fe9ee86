import { describe, expect, it } from "vitest";
import { hunkDetail, type MutantResult } from "../../../src/measure/needed/claim.js";
import { hunkTexts, HUNK_TEXT_LIMITS } from "../../../src/measure/needed/hunk-text.js";
import { hunksOf } from "../../../src/measure/needed/hunks.js";

// The bounded copy of each hunk's lines the verdict page shows (page facts, never the signed verdict).

const lines = (n: number, prefix: string): string => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}\n`).join("");
const result = (status: MutantResult["status"], before: string | null, after: string | null, path = "src/a.py"): MutantResult => ({
  hunk: hunksOf(path, before, after)[0]!, status, killedBy: status === "killed" ? ["t.py::a"] : [], ...(status === "not-checked" ? { why: "beyond needed.max_hunks (1)" } : {}),
});

describe("hunk text for the verdict page", () => {
  it("numbers removed lines on the base side and added ones on the head side, and names the finding exactly as signed", () => {
    const r = result("survived", "a\nb\nc\n", "a\nB\nX\nc\n");
    const [text] = hunkTexts([r]);
    expect(text).toEqual({
      ...(({ kind: _, ...rest }) => rest)(hunkDetail(r)), // path, line, message: the signed detail's
      lines: [{ op: "-", line: 2, text: "b" }, { op: "+", line: 2, text: "B" }, { op: "+", line: 3, text: "X" }],
      moreRemoved: 0, moreAdded: 0,
    });
    expect(text?.message).toBe("src/a.py:2-3: no test changes its outcome without this change");
  });

  it("caps lines per hunk, keeping half for each side, and says how many were left out", () => {
    const r = result("survived", lines(40, "old"), lines(40, "new"));
    const [text] = hunkTexts([r]);
    const cap = HUNK_TEXT_LIMITS.linesPerHunk;
    expect(text?.lines.filter((l) => l.op === "-")).toHaveLength(cap / 2);
    expect(text?.lines.filter((l) => l.op === "+")).toHaveLength(cap / 2);
    expect(text?.lines.at(-1)).toEqual({ op: "+", line: cap / 2, text: `new${cap / 2}` });
    expect([text?.moreRemoved, text?.moreAdded]).toEqual([40 - cap / 2, 40 - cap / 2]);
    // A side with few lines leaves the rest of the cap to the other.
    const [added] = hunkTexts([result("survived", "x\n", `x\n${lines(40, "new")}`)]);
    expect(added?.lines).toHaveLength(cap);
    expect(added?.moreAdded).toBe(40 - cap);
  });

  it("cuts a long line by code points, never through a surrogate pair", () => {
    const long = `${"😀".repeat(HUNK_TEXT_LIMITS.charsPerLine)}tail`;
    const [text] = hunkTexts([result("survived", null, `${long}\n`)]);
    expect(text?.lines[0]?.text).toBe("😀".repeat(HUNK_TEXT_LIMITS.charsPerLine));
    expect(text?.lines[0]?.cutChars).toBe(4);
  });

  it("spends the byte budget on hunks no test needs first, then those not checked, then needed ones", () => {
    const limits = { linesPerHunk: 10, charsPerLine: 100, totalBytes: 30 };
    const texts = hunkTexts([
      result("killed", null, lines(5, "needed"), "a.py"),
      result("not-checked", null, lines(5, "checked"), "b.py"),
      result("survived", null, lines(3, "unneeded"), "c.py"),
    ], limits);
    expect(texts.map((t) => t.path)).toEqual(["a.py", "b.py", "c.py"]);
    // 3 × "unneededN" = 27 bytes; 3 left: nothing more fits.
    expect(texts[2]?.lines.map((l) => l.text)).toEqual(["unneeded1", "unneeded2", "unneeded3"]);
    expect([texts[1]?.lines.length, texts[1]?.moreAdded]).toEqual([0, 5]);
    expect([texts[0]?.lines.length, texts[0]?.moreAdded]).toEqual([0, 5]);
  });

  it("keeps the whole-file line numbers of an added or deleted file", () => {
    const [deleted] = hunkTexts([result("survived", "a\nb\n", null)]);
    expect(deleted?.lines).toEqual([{ op: "-", line: 1, text: "a" }, { op: "-", line: 2, text: "b" }]);
    expect(deleted?.line).toBeUndefined();
    expect(deleted?.message).toBe("src/a.py (deleted file): no test changes its outcome without this change");
  });
});
