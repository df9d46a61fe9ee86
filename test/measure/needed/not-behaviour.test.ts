import { describe, expect, it } from "vitest";
import { neededClaim, type MutantResult } from "../../../src/measure/needed/claim.js";
import { hunkLabel, type Hunk } from "../../../src/measure/needed/hunks.js";

// Issue 19: what is not behaviour is listed, never a mutant and never "unneeded"; a file without
// lines (binary) is named as a file, never as "deleted lines".

const hunk = (over: Partial<Hunk>): Hunk => ({ path: "src/calc.py", newStart: 3, oldStart: 3, newLines: ["x"], oldLines: [], whole: null, ...over });

describe("diff.needed and changes that are not behaviour", () => {
  it("names a binary file as the whole file, never as deleted lines", () => {
    const binary = hunk({ path: "src/logo.bin", newStart: 1, oldStart: 1, newLines: [], whole: "file" });
    expect(hunkLabel(binary)).toBe("src/logo.bin (whole file)");
    const evidence = neededClaim("sha256:s", [{ hunk: binary, status: "not-checked", killedBy: [], why: "a binary file" }]);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("hunks not checked: src/logo.bin (whole file) (a binary file)");
    expect(JSON.stringify(evidence)).not.toContain("deleted lines");
  });

  it("passes a change whose hunks are all not behaviour, and counts them apart", () => {
    const results: MutantResult[] = [
      { hunk: hunk({ path: "README.md", whole: "file", newLines: [] }), status: "not-behaviour", killedBy: [], why: "outside code: the policy's assets (docs, images, fonts)" },
      { hunk: hunk({}), status: "not-behaviour", killedBy: [], why: "only comments or whitespace: the same tokens with and without it" },
    ];
    const evidence = neededClaim("sha256:s", results);
    expect(evidence.outcome).toBe("pass");
    expect(evidence.reason).toBe("the change has no hunks of non-test code that change behaviour (2 not behaviour: comments, whitespace, assets or empty package markers)");
    expect(evidence.details.map((d) => [d.kind, d.line])).toEqual([["not-behaviour", undefined], ["not-behaviour", 3]]);
    expect(evidence.meta).toMatchObject({ hunks: 0, notBehaviour: 2 });
  });

  it("judges the other hunks as before: a survivor still fails the claim, the rest is listed after", () => {
    const results: MutantResult[] = [
      { hunk: hunk({ newStart: 9 }), status: "not-behaviour", killedBy: [], why: "only comments or whitespace: the same tokens with and without it" },
      { hunk: hunk({ newStart: 5 }), status: "survived", killedBy: [] },
    ];
    const evidence = neededClaim("sha256:s", results);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("hunks no test needs: src/calc.py:5");
    expect(evidence.details.map((d) => d.kind)).toEqual(["unneeded", "not-behaviour"]);
  });
});
