import { evaluate, evidenceDigest, makeGate, subjectDigest, type Evidence, type Subject, type Verdict } from "../../src/kernel/index.js";
import { git, TestRepo } from "../helpers/git-repo.js";

// A real verdict from the real kernel about two real commits, for signing tests.
export interface VerdictFixture {
  verdict: Verdict;
  evidence: string[];
  base: string;
  head: string;
  otherCommit: string;
}

export function makeVerdictFixture(outcome: "pass" | "fail" = "pass"): VerdictFixture {
  const repo = TestRepo.init();
  const base = repo.commit({ "README.md": "hello\n" }, "base");
  const head = repo.commit({ "src/a.ts": "export const a = 1;\n" }, "head");
  const otherCommit = repo.commit({ "src/b.ts": "export const b = 2;\n" }, "other");
  const subject: Subject = {
    repository: "acme/widgets", base, head,
    baseTree: git(repo.dir, "rev-parse", `${base}^{tree}`), headTree: git(repo.dir, "rev-parse", `${head}^{tree}`),
    // The head contains the base: the diff starts at the base and the head's tree is what lands.
    mergeBase: base, mergedTree: git(repo.dir, "rev-parse", `${head}^{tree}`),
    policy: null, task: null, sandbox: null,
  };
  const evidence: Evidence[] = [{
    claim: "diff.scope", subject: subjectDigest(subject), outcome,
    reason: outcome === "pass" ? "every path is in scope" : "src/a.ts is out of scope", details: [],
  }];
  const verdict = evaluate(makeGate(["diff.scope"]), evidence, subject, null);
  return { verdict, evidence: evidence.map(evidenceDigest), base, head, otherCommit };
}
