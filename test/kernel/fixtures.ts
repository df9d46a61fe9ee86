import { subjectDigest, type Evidence, type Subject } from "../../src/kernel/index.js";

// Plain data for kernel tests: the kernel is pure, so nothing here touches git or the disk.

export const SUBJECT: Subject = {
  repository: "octo/widgets",
  base: "b".repeat(40),
  head: "h".repeat(40),
  baseTree: "1".repeat(40),
  headTree: "2".repeat(40),
  policy: `sha256:${"p".repeat(64)}`,
  task: "add-login",
  sandbox: `sha256:${"s".repeat(64)}`,
};

export const DIGEST = subjectDigest(SUBJECT);

export function ev(claim: string, outcome: Evidence["outcome"], extra: Partial<Evidence> = {}): Evidence {
  return { claim, subject: DIGEST, outcome, reason: `${claim} ${outcome}`, details: [], ...extra };
}
