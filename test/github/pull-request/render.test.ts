import { describe, expect, it } from "vitest";
import { renderOutput } from "../../../src/github/pull-request/render.js";
import { cutTitle, cutToFit } from "../../../src/github/limits.js";
import { evaluate, makeGate, subjectDigest, type Subject } from "../../../src/kernel/index.js";

const subject: Subject = {
  repository: "acme/calc", base: "a".repeat(40), head: "b".repeat(40), baseTree: "c".repeat(40), headTree: "d".repeat(40),
  policy: `sha256:${"e".repeat(64)}`, task: "mul", sandbox: `sha256:${"f".repeat(64)}`,
};
const envelope = { payloadType: "application/vnd.in-toto+json", payload: "eyJfdHlwZSI6ImV4YW1wbGUifQ==", signatures: [{ keyid: "k1", sig: "c2ln" }] };

function verdictOf(outcome: "pass" | "fail") {
  const digest = subjectDigest(subject);
  return evaluate(makeGate(["diff.frozen", "tests.red_green"]), [
    { claim: "diff.frozen", subject: digest, outcome, reason: outcome === "pass" ? "no frozen path changed" : "tests/test_calc.py was modified",
      details: outcome === "pass" ? [] : [{ message: "modified a frozen test | on purpose?", path: "tests/test_calc.py", kind: "modified" }] },
    { claim: "tests.red_green", subject: digest, outcome: "pass", reason: "1 target went red to green", details: [] },
  ], subject, null);
}

describe("check-run output people read", () => {
  it.each(["pass", "fail"] as const)("renders the %s verdict", (outcome) => {
    const output = renderOutput({ verdict: verdictOf(outcome), timings: { fetch: 1234, tests: 5600 }, envelope, journalId: "entry-7", draft: false });
    expect(output).toMatchSnapshot();
  });

  it("shows the merge base the diff started from and the merged tree the tests ran on (issue 12)", () => {
    const merged: Subject = { ...subject, mergeBase: "9".repeat(40), mergedTree: "8".repeat(40) };
    const verdict = evaluate(makeGate(["diff.frozen"]), [{ claim: "diff.frozen", subject: subjectDigest(merged), outcome: "pass", reason: "ok", details: [] }], merged, null);
    const { summary } = renderOutput({ verdict, timings: {}, envelope, journalId: "entry-7", draft: false });
    expect(summary).toContain(`| merge base (diff from) | \`${"9".repeat(40)}\` |`);
    expect(summary).toContain(`| merged tree (tests ran on) | \`${"8".repeat(40)}\` |`);
    const conflicted = { ...merged, mergedTree: null };
    const failed = evaluate(makeGate(["diff.frozen"]), [], conflicted, null);
    expect(renderOutput({ verdict: failed, timings: {}, envelope, journalId: "entry-7", draft: false }).summary).toContain("| merged tree (tests ran on) | `none: the merge conflicts` |");
  });

  it("cuts at a line boundary with a note that says how much", () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const cut = cutToFit(text, 200, (n) => `(${n} cut)`);
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut).toMatch(/\nline \d+\n\n\(\d+ cut\)$/);
    expect(cutToFit("short", 200, () => "never")).toBe("short");
  });

  it("never splits a surrogate pair when cutting a title", () => {
    const title = cutTitle(`${"x".repeat(253)}😀😀`);
    expect(title.length).toBeLessThanOrEqual(255);
    expect(title.endsWith("…")).toBe(true);
    expect(title).not.toMatch(/[\ud800-\udbff]…$/);
  });
});
