// Plain data in, plain data out: the vocabulary of the judge (DESIGN.md, "Claims").

/** A claim name: `diff.frozen`, `tests.regression`, `check:typecheck`, ... */
export type ClaimName = string;

export type ClaimStatus = "pass" | "fail" | "missing";

/** Why a claim has its status. Every claim result carries one. */
export type Cause = "passed" | "failed" | "contradicted" | "absent" | "stale";

/** `unsafe`: no retry budget, escalate at once. `incomplete`: everything else. */
export type FailClass = "unsafe" | "incomplete";

export type VerdictName = "CANDIDATE" | "FAIL" | "PASS";

/** What is being judged. Every piece of evidence is bound to the digest of this. */
export interface Subject {
  /** Repository identity: `owner/name`, a URL, or a local path as given. */
  repository: string;
  /** The base branch's tip: policy and task come from it, and the merged tree is measured against it. */
  base: string;
  head: string;
  baseTree: string;
  headTree: string;
  /**
   * The commit the diff claims start from: the merge base of base and head (GitHub's "Files
   * changed", `git diff base...head`), or base itself when judged with `--exact-base`. Absent only
   * in subjects signed before it was recorded.
   */
  mergeBase?: string;
  /**
   * The tree the tests measured: head merged into base (`git merge-tree --write-tree`), the head
   * tree when head already contains base or with `--exact-base`; null when the merge conflicts.
   * Absent only in subjects signed before it was recorded.
   */
  mergedTree?: string | null;
  /** `sha256:<hex>` of the policy blob on the base, or null when the base has none. */
  policy: string | null;
  task: string | null;
  /** `sha256:<hex>` of the sandbox profile the measurements ran under, or null when none ran. */
  sandbox: string | null;
  /**
   * `sha256:<hex>` of the task's sealed file as the base holds it (issue 20): which hidden tests judged
   * the change, without saying what they are. Absent when the task seals none.
   */
  sealed?: string;
}

/** One finding behind a claim: a path and what happened to it, a test id and its results, ... */
export interface Detail {
  message: string;
  path?: string;
  line?: number;
  /** A short machine-readable tag (`modified`, `symlink`, `self-authored`, ...). */
  kind?: string;
}

/**
 * What one run of untrusted commands did (the base or head test run, a check): enough for a person to
 * see why a verdict is what it is without the gate's cache files (issue 15). Carried into the verdict
 * as measured; never decides anything by itself.
 */
export interface RunFact {
  /** `base`, `head`, `check:<name>`, ... */
  run: string;
  /** The last stage that ran: `setup`, `tests` or `check`. */
  stage: string;
  /** Of that last stage; null when a signal or the timeout ended it. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** A limit or sandbox rule the run hit (memory, processes, a containment violation), or null. */
  limit: string | null;
  /** Milliseconds per stage that ran, in order (`setup`, `tests`; `check`). */
  stages: Readonly<Record<string, number>>;
  /** What became of the JUnit report ("12 test cases", "no JUnit report …"); null for a check. */
  report: string | null;
  /** The run went as a run should (exited by itself, within limits, a readable report; a check: exit 0). */
  ok: boolean;
  /** The last lines of its output, untrusted text: escape before printing. */
  outputTail: string;
  /**
   * How the run got its dependencies when the setup ran once for all runs: `dependencies from cache
   * (installed once in 35.1 s on 2026-01-02, key sha256:…)` or `ran once for all runs in 12.3 s (key sha256:…)`. Absent for a run with its own setup or none.
   */
  setup?: string;
  /**
   * What the run's provenance record saw (src/measure/provenance): `provenance: 1 process, 12 tree
   * files ran, 0 events`. Absent for a run the gate placed no hook in.
   */
  provenance?: string;
}

/** A measurement for one claim, bound to one subject. Produced outside the kernel. */
export interface Evidence {
  claim: ClaimName;
  /** The subject digest this evidence was measured for. */
  subject: string;
  /**
   * `absent`: measured, and found nothing that could satisfy the claim (no target tests, say). It
   * counts as no evidence (the claim is `missing`), but its reason tells the person what to add.
   */
  outcome: "pass" | "fail" | "absent";
  reason: string;
  details: readonly Detail[];
  /** Marks a failure unsafe even when the claim's kind is not (a sandbox violation found while testing). */
  unsafe?: boolean;
  /** Digests, timings and resource use; carried into the verdict untouched, never decides anything. */
  meta?: Readonly<Record<string, unknown>>;
  /** The runs this evidence was read from, for the verdict to show (absent: no run, or measured before runs were recorded). */
  runs?: readonly RunFact[];
}

export interface GateClaim {
  name: ClaimName;
  /** A failure of this claim is class `unsafe`. */
  unsafe: boolean;
}

/** The claims a verdict requires. Built only by `makeGate`, which refuses a gate that cannot block. */
export interface Gate {
  readonly claims: readonly GateClaim[];
}

/** A human approval of a head sha. Whether the person qualifies is decided before it reaches here. */
export interface Approver {
  login: string;
  /** The commit the approval was given on. Counts only when it is the subject's head. */
  sha: string;
}

export interface ClaimResult {
  name: ClaimName;
  status: ClaimStatus;
  cause: Cause;
  /** Set when status is `fail`. */
  class: FailClass | null;
  reason: string;
  details: Detail[];
  /** `sha256:<hex>` of each piece of evidence the result stands on, sorted. */
  evidence: string[];
  /** The runs that evidence was read from; set only when it names any. */
  runs?: RunFact[];
}

export interface Verdict {
  verdict: VerdictName;
  class: FailClass | null;
  subject: Subject & { digest: string };
  claims: ClaimResult[];
  /** Claims still without satisfying evidence, `approval.independent` included. */
  missing: ClaimName[];
  /** One line per failing or missing claim, in gate order; the first is the headline. */
  reasons: string[];
}
