import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import { judgedAsExpected } from "../helpers/expected-verdict.js";
import { claim, failing } from "../helpers/claims.js";
import { tempDir } from "../helpers/git-repo.js";

// Issue 19 on the python-src example (fixtures/repos/python-src.sh): the real judge, the real
// sandbox and pytest. Each attack made the owner's target green and got a CANDIDATE before; the
// findings below are what blocks each now. The honest head beside them stays a CANDIDATE with
// diff.needed required, its comment, blank line, README line, image and empty __init__.py listed as
// not behaviour rather than unneeded. expected.json's rows are checked through the CLI as well
// (test/e2e/judge-cli.test.ts).

const dataDir = tempDir();

/** A head judged and held to its row of expected.json (the CLI suite leaves python-src's and node-src's rows to this one). */
function judged(head: string): Promise<Judgment> {
  return judgedAsExpected("python-src", head, dataDir);
}

describe("python-src: what changes how code is loaded", () => {
  it("keeps the honest head a CANDIDATE with diff.needed: only the fix is a mutant, the rest is not behaviour", async () => {
    const judgment = await judged("honest");
    expect(failing(judgment)).toEqual([]);
    expect(judgment.verdict.verdict).toBe("CANDIDATE");
    const needed = claim(judgment, "diff.needed");
    expect(needed.reason).toBe("each of the 1 changed hunks is needed by a test");
    const byKind = needed.details.filter((d) => d.kind !== "selection").map((d) => `${d.kind}: ${d.message}`);
    expect(byKind).toEqual([
      expect.stringMatching(/^needed: src\/shapes\/stats\.py:\d+: needed by tests\/test_average\.py::test_average/),
      "not-behaviour: README.md (whole file): not behaviour, no mutant (outside code: the policy's assets (docs, images, fonts))",
      "not-behaviour: docs/diagram.png (whole file): not behaviour, no mutant (outside code: the policy's assets (docs, images, fonts))",
      "not-behaviour: src/shapes/geometry/__init__.py (added file): not behaviour, no mutant (an empty package marker)",
      "not-behaviour: src/shapes/stats.py:4: not behaviour, no mutant (only comments or whitespace: the same tokens with and without it)",
      "not-behaviour: src/shapes/stats.py:6: not behaviour, no mutant (only comments or whitespace: the same tokens with and without it)",
    ]);
    expect(claim(judgment, "diff.safety").status).toBe("pass");
  }, 300_000);

  it("fails the standard library shadowed from src/ under PYTHONPATH=src", async () => {
    const judgment = await judged("shadow-stdlib");
    // Caught twice: by the diff's shape here, and by the head run's provenance record (issue 19's run side).
    expect(failing(judgment)).toEqual(["diff.safety", "tests.regression"]);
    expect(claim(judgment, "diff.safety").details).toContainEqual({
      path: "src/statistics.py", kind: "shadow",
      message: "src/statistics.py: new top-level Python module statistics at src (on PYTHONPATH) would shadow the standard library's statistics",
    });
  }, 300_000);

  it("fails a committed dist-info (its pytest11 plugin) and an unchecked-hash .pyc as frozen loader files", async () => {
    const [plugin, pyc] = await Promise.all([judged("dist-info-plugin"), judged("pyc-cache")]);
    // Caught twice: frozen loader files here, and the tree's plugin in the head run's provenance record.
    expect(failing(plugin)).toEqual(["diff.frozen", "tests.regression"]);
    expect(plugin.verdict.class).toBe("unsafe");
    expect(claim(plugin, "diff.frozen").details.map((d) => d.message)).toEqual([
      "src/shapes_ext-1.0.dist-info/METADATA: added", "src/shapes_ext-1.0.dist-info/entry_points.txt: added",
    ]);
    expect(failing(pyc)).toEqual(["diff.frozen", "tests.regression"]);
    expect(claim(pyc, "diff.frozen").details.map((d) => d.message)).toEqual(["src/shapes/__pycache__/stats.cpython-311.pyc: added"]);
  }, 300_000);

  it("fails a requirements file (frozen like package.json) and a binary file among the code", async () => {
    const [requirements, binary] = await Promise.all([judged("requirements"), judged("binary-code")]);
    expect(failing(requirements)).toEqual(["diff.frozen"]);
    expect(claim(requirements, "diff.frozen").reason).toBe("1 frozen path changed: requirements.txt (added; a dependency manifest, frozen by default; release it with unfreeze: ['requirements.txt'])");
    expect(failing(binary)).toEqual(["diff.safety"]);
    expect(claim(binary, "diff.safety").details.map((d) => d.kind)).toEqual(["binary"]);
  }, 300_000);

  it("resolves a chain of links against the head tree: into the frozen set, and out of the tree", async () => {
    const judgment = await judged("symlink-chain");
    expect(failing(judgment)).toEqual(["diff.frozen", "diff.safety"]);
    expect(claim(judgment, "diff.frozen").details.map((d) => d.message)).toEqual([
      "src/shapes/vendor/deep/frz: symlink into frozen set -> tests/test_stats.py (through src/shapes/vendor/deep/up)",
    ]);
    expect(claim(judgment, "diff.safety").details.map((d) => d.message)).toEqual([
      "src/shapes/vendor/deep/out: symlink leaves the repository -> up/../../../.. (resolves to ../..) (through src/shapes/vendor/deep/up)",
    ]);
  }, 300_000);

  it("judges a new file named like a test that defines none as code", async () => {
    const judgment = await judged("testless-test");
    expect(failing(judgment)).toEqual(["diff.safety"]);
    expect(claim(judgment, "diff.safety").details.map((d) => d.message)).toEqual([expect.stringMatching(/^src\/test_vectors\.py:8: references sys\.modules: /)]);
    // It is no new test file: the head run holds it, and red-then-green knows only the owner's target.
    expect(claim(judgment, "tests.red_green").reason).not.toContain("test_vectors");
  }, 300_000);
});

describe("node-src: the same under node:test", () => {
  const judgedNode = (head: string): Promise<Judgment> => judgedAsExpected("node-src", head, tempDir());

  it("keeps the honest head a CANDIDATE with diff.needed: the comment and blank line are the same tokens (js-tokens)", async () => {
    const judgment = await judgedNode("honest");
    expect(failing(judgment)).toEqual([]);
    const details = claim(judgment, "diff.needed").details.filter((d) => d.kind !== "selection").map((d) => `${d.kind}: ${d.message}`);
    expect(details).toEqual([
      expect.stringMatching(/^needed: lib\/calc\.js:\d+: needed by test\/mul\.test\.js::mul multiplies two numbers/),
      "not-behaviour: README.md (whole file): not behaviour, no mutant (outside code: the policy's assets (docs, images, fonts))",
      "not-behaviour: docs/logo.png (whole file): not behaviour, no mutant (outside code: the policy's assets (docs, images, fonts))",
      expect.stringMatching(/^not-behaviour: lib\/calc\.js:5-6: not behaviour, no mutant \(only comments or whitespace/),
    ]);
  }, 300_000);

  it("fails a module named like a test that defines none, and a module on NODE_PATH named like a built-in", async () => {
    const [testless, shadow] = await Promise.all([judgedNode("testless-test"), judgedNode("shadow-builtin")]);
    expect(failing(testless)).toEqual(["diff.safety"]);
    expect(claim(testless, "diff.safety").details.map((d) => d.message)).toEqual([expect.stringMatching(/^lib\/vectors\.test\.js:6: references require\.cache: /)]);
    expect(failing(shadow)).toEqual(["diff.safety"]);
    expect(claim(shadow, "diff.safety").details.map((d) => d.message)).toEqual([
      "lib/assert.js: new top-level Node module assert at lib (on NODE_PATH) would shadow Node's built-in assert",
    ]);
  }, 300_000);
});
