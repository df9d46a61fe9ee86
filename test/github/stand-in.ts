import { evaluate, makeGate, subjectDigest, type Detail, type Subject } from "../../src/kernel/index.js";
import type { JudgeFn, JudgeRequest } from "../../src/github/deps.js";

// A hand-written judge implementing the JudgeFn interface, for tests of the GitHub side only. Its
// verdicts come from the real kernel; the end-to-end tests use the real judge instead.

export interface StandIn {
  judge: JudgeFn;
  requests: JudgeRequest[];
}

export interface StandInOptions {
  outcome?: "pass" | "fail";
  claim?: string;
  details?: Detail[];
  /** Awaited before answering: lets a test hold a judgment open. */
  gate?: Promise<void>;
  throws?: Error;
}

export function standInJudge(options: StandInOptions = {}): StandIn {
  const requests: JudgeRequest[] = [];
  const judge: JudgeFn = async (request) => {
    requests.push(request);
    await options.gate;
    if (options.throws !== undefined) throw options.throws;
    const subject: Subject = {
      repository: request.repository ?? request.source, base: request.base, head: request.head,
      baseTree: "b".repeat(40), headTree: "c".repeat(40), policy: `sha256:${"d".repeat(64)}`, task: request.task, sandbox: `sha256:${"e".repeat(64)}`,
    };
    const claim = options.claim ?? "diff.frozen";
    const outcome = options.outcome ?? "pass";
    const verdict = evaluate(makeGate([claim]), [{
      claim, subject: subjectDigest(subject), outcome, details: options.details ?? [],
      reason: outcome === "pass" ? "no frozen path changed" : `${options.details?.length ?? 0} frozen paths changed`,
    }], subject, null);
    return { verdict, evidence: [], facts: [], timings: { fetch: 1200, diff: 30, evaluate: 1 } };
  };
  return { judge, requests };
}
