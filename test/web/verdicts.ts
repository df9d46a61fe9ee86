// Signed verdicts in a real SQLite journal for the page tests: built with the real kernel, signed
// with the data dir's real key, journalled by the real recordVerdict. Hostile strings on purpose.
import { evaluate, makeGate, subjectDigest, type Detail, type Evidence, type Subject } from "../../src/kernel/index.js";
import { recordVerdict } from "../../src/judge/record.js";
import type { PageFacts } from "../../src/web/page-facts.js";

export const HOSTILE_TEST = 'tests/test_x.py::test_<script>alert("pwned")</script>';
export const QUOTED_PATH = `src/it's "quoted" & <b>bold</b>.py`;
export const HOSTILE_REASON = '"><img src=x onerror=alert(1)> and </textarea></pre><iframe src="https://evil.example">';

export function subjectFor(repository: string, head = "b".repeat(40)): Subject {
  return {
    repository, base: "a".repeat(40), head, baseTree: "c".repeat(40), headTree: "d".repeat(40),
    mergeBase: "9".repeat(40), mergedTree: "8".repeat(40),
    policy: `sha256:${"e".repeat(64)}`, task: "mul", sandbox: `sha256:${"f".repeat(64)}`,
  };
}

export function evidenceFor(subject: Subject, outcome: "pass" | "fail"): Evidence[] {
  const digest = subjectDigest(subject);
  const frozenDetails: Detail[] = outcome === "pass" ? [] : [{ message: `a frozen test file was modified: ${HOSTILE_REASON}`, path: QUOTED_PATH, kind: "modified" }];
  return [
    { claim: "diff.frozen", subject: digest, outcome, reason: outcome === "pass" ? "no frozen path changed" : `${QUOTED_PATH} was modified`, details: frozenDetails },
    { claim: "diff.scope", subject: digest, outcome: "pass", reason: "every changed path is in scope", details: [] },
    { claim: "secrets", subject: digest, outcome, reason: outcome === "pass" ? "no credential in the added lines" : "a credential was found",
      details: outcome === "pass" ? [] : [{ message: "AWS access key: AKIA************MPLE", path: "src/settings.py", line: 3, kind: "aws" }] },
    { claim: "tests.red_green", subject: digest, outcome: "pass", reason: "all 1 target tests fail on base and pass on head",
      details: [{ kind: "red-green", path: "tests/test_x.py", message: `${HOSTILE_TEST}: failed on base, passed on head` }] },
    { claim: "tests.regression", subject: digest, outcome: outcome === "pass" ? "pass" : "fail",
      reason: outcome === "pass" ? "all 3 tests that passed on base pass on head (4 tests ran on head)" : "tests that passed on base do not pass on head: tests/test_x.py::test_add",
      details: outcome === "pass" ? [] : [{ kind: "regressed", path: "tests/test_x.py", message: "tests/test_x.py::test_add passed on base, failed on head: assert 3 == 4" }] },
  ];
}

/** Judged and journalled like the app does; returns the journal id. */
export async function recordFor(dataDir: string, repository: string, outcome: "pass" | "fail", head?: string): Promise<string> {
  const subject = subjectFor(repository, head);
  const gate = makeGate(["diff.frozen", "diff.scope", "secrets", "tests.red_green", "tests.regression"]);
  const verdict = evaluate(gate, evidenceFor(subject, outcome), subject, null);
  const recorded = await recordVerdict(verdict, { dataDir, ref: "refs/pull/7/head", time: "2026-02-03T04:05:06Z" });
  return recorded.entry.id;
}

export const FACTS: PageFacts = {
  version: 1,
  timings: { fetch: 120, policy: 4, diff: 9, secrets: 310, materialise: 40, "base-cached": 0, measure: 2600, "measurer-startup": 180, "check:no-todo": 150, head: 2300, evaluate: 1, sign: 25 },
  files: [
    { status: "M", path: QUOTED_PATH, oldPath: null, oldMode: "100644", newMode: "100755", size: 120, symlinkTarget: null, submodule: false, binary: false },
    { status: "R", path: "tests/new name.py", oldPath: "tests/old.py", oldMode: "100644", newMode: "100644", size: 80, symlinkTarget: null, submodule: false, binary: false },
    { status: "A", path: "src/link", oldPath: null, oldMode: "000000", newMode: "120000", size: 9, symlinkTarget: "../<etc>/passwd", submodule: false, binary: false },
  ],
  runs: { base: null, head: { setupMs: 500, testsMs: 1650, exitCode: 0, timedOut: false, cases: 4 } },
};
