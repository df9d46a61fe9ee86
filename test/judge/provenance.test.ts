import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/kernel/types.js";
import { notBelieved } from "../helpers/not-believed.js";
import { judgedAsExpected } from "../helpers/expected-verdict.js";
import { tempDir } from "../helpers/git-repo.js";

// Issue 19, "measure what actually ran": each head of fixtures/repos/python-provenance.sh and
// node-provenance.sh gets its task's target green by changing what the run loads, not the reviewed
// source. Each got a signed CANDIDATE before the provenance record and the canary family; now the
// run is not believed (tests.regression FAILs, unsafe, naming what ran), and the honest head of the
// same repository stays CANDIDATE. Real runners in the real sandbox, judged end to end.

// Each head is held to its row of fixtures/repos/expected.json as well (the CLI suite leaves these rows to this one).
const judged = async (repoName: "python-provenance" | "node-provenance", head: string, dataDir: string): Promise<Verdict> =>
  (await judgedAsExpected(repoName, head, dataDir)).verdict;

describe("python: what the run loaded is judged (src layout, PYTHONPATH=src)", () => {
  const dataDir = tempDir("ranex-provenance-py-");

  it("the honest median stays CANDIDATE", async () => {
    const verdict = await judged("python-provenance", "honest", dataDir);
    expect(verdict.verdict, verdict.reasons.join("\n")).toBe("CANDIDATE");
  });

  it("class 1: src/xml/etree/ElementTree.py rewriting pytest's junitxml is the standard library loaded from the tree", async () => {
    notBelieved(await judged("python-provenance", "shadow-etree", dataDir), "xml", "src/xml/etree/ElementTree.py", "standard library");
  });

  it("class 1: a shadowed statistics (the frozen test's oracle)", async () => {
    notBelieved(await judged("python-provenance", "shadow-statistics", dataDir), "statistics", "src/statistics.py");
  });

  it("class 2: a committed dist-info with a pytest11 entry point is a plugin from the tree", async () => {
    notBelieved(await judged("python-provenance", "dist-plugin", dataDir), "src/stats_extras-1.0.dist-info/entry_points.txt");
  });

  it("class 3: unittest's assertEqual neutered at import voids the run (canary) and is a tampering event", async () => {
    notBelieved(await judged("python-provenance", "neuter-unittest", dataDir), "assertEqual", "src/stats_tool/__init__.py");
  });

  it("class 4: a committed unchecked-hash .pyc runs instead of the unchanged .py", async () => {
    notBelieved(await judged("python-provenance", "pyc-shadow", dataDir), "src/stats_tool/__pycache__/__init__.cpython-311.pyc");
  });
});

describe("node:test: node:assert neutered by the module under test", () => {
  const dataDir = tempDir("ranex-provenance-node-");

  it("the honest median stays CANDIDATE", async () => {
    const verdict = await judged("node-provenance", "honest", dataDir);
    expect(verdict.verdict, verdict.reasons.join("\n")).toBe("CANDIDATE");
  });

  it("class 3: assert.strict.equal replaced by a no-op at import: the assertion canary passes, the run is void", async () => {
    notBelieved(await judged("node-provenance", "neuter-assert", dataDir), "node:assert");
  });
});
