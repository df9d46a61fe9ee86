// Escalation: an agent may not re-roll forever. Each FAIL of class `incomplete` on a PR (a new head
// or a re-judgment) spends one unit of the policy's `retries`; when they are spent, or at once for
// an `unsafe` FAIL, one plain-language comment calls the people under `escalate`, the PR is labelled
// `ranex:escalated`, and a signed `escalation` entry is journalled. Once per PR, never per push.
import type { Logger } from "probot";
import type { Verdict } from "../../kernel/index.js";
import type { MergeAuthority } from "./deps.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import type { Attempt } from "./escalation-store.js";

export const ESCALATED_LABEL = "ranex:escalated";
export const DEFAULT_RETRIES = 3;

export interface EscalationInput {
  octokit: GitHub;
  log: Logger;
  clock: () => Date;
  authority: MergeAuthority;
  target: { repo: RepoRef; number: number; head: string; labels: readonly string[] };
  verdict: Verdict;
  /** The verdict's journal entry: one attempt per judgment. */
  judgeEntry: string;
  policy: { retries: number; escalate: readonly string[] };
}

/** Counts a FAIL and escalates when due. Never throws: escalation must not undo a posted verdict. */
export async function escalateIfDue(input: EscalationInput): Promise<"escalated" | "not-due" | "already"> {
  const { verdict, target, authority } = input;
  if (verdict.verdict !== "FAIL") return "not-due";
  const repository = `${target.repo.owner}/${target.repo.repo}`;
  try {
    const attempts = authority.escalations.recordFail(repository, target.number, {
      judgment: input.judgeEntry, head: target.head, class: verdict.class ?? "incomplete", reason: verdict.reasons[0] ?? "no reason given",
    });
    const spent = attempts.filter((a) => a.class === "incomplete").length;
    const reason = verdict.class === "unsafe" ? "unsafe" : spent >= input.policy.retries ? "budget" : null;
    if (reason === null) return "not-due";
    // The label is the state GitHub keeps for every replica; the store's claim settles a race here.
    if (target.labels.includes(ESCALATED_LABEL) || !authority.escalations.claimEscalation(repository, target.number, reason)) return "already";
    const mentioned = input.policy.escalate.map((who) => (who.startsWith("@") ? who : `@${who}`));
    try {
      await input.octokit.rest.issues.createComment({ ...target.repo, issue_number: target.number, body: escalationComment(reason, attempts, mentioned, input.policy.retries) });
    } catch (err) {
      authority.escalations.releaseEscalation(repository, target.number);
      throw err;
    }
    await input.octokit.rest.issues.addLabels({ ...target.repo, issue_number: target.number, labels: [ESCALATED_LABEL] });
    const { journalId } = await authority.recordEscalation({
      repository, pullRequest: target.number, head: target.head, reason, mentioned, time: input.clock().toISOString(),
      attempts: attempts.map((a) => ({ head: a.head, class: a.class, reason: a.reason, judgeEntry: a.judgment })),
    });
    authority.escalations.noteJournal(repository, target.number, journalId);
    input.log.info({ reason, attempts: attempts.length, journal: journalId }, "escalated to people");
    return "escalated";
  } catch (err) {
    input.log.error(err, "escalation failed");
    return "not-due";
  }
}

/** The comment: a fixed template over the attempts, no model, nothing the agent wrote. */
export function escalationComment(reason: "budget" | "unsafe", attempts: readonly Attempt[], mentioned: readonly string[], retries: number): string {
  const who = mentioned.length > 0
    ? `${mentioned.join(" ")}: this pull request needs a person.`
    : "This pull request needs a person. (Nobody is listed under `escalate` in `.github/ranex.yml`; list people or teams there to be mentioned.)";
  const why = reason === "unsafe"
    ? "The latest attempt failed a safety rule (class `unsafe`: a frozen file changed, a credential was added, or the sandbox was breached). Such a failure is never retried on the agent's word: a person must look now."
    : `The agent has spent its retry budget: ${retries === 1 ? "one attempt" : `${retries} attempts`} failed (\`retries: ${retries}\` in \`.github/ranex.yml\`), so Ranex Gate stops waiting for it to get this right alone.`;
  // Overrides (issue 23) are listed with the FAILs: people stepping in is part of the record.
  const list = attempts.map((a, i) => a.class === "override"
    ? `${i + 1}. \`${a.head.slice(0, 7)}\`: OVERRIDDEN: ${a.reason}`
    : `${i + 1}. \`${a.head.slice(0, 7)}\`: FAIL (${a.class}): ${a.reason}`);
  return [
    `### Ranex Gate: escalated to people`,
    who,
    why,
    ["What failed, attempt by attempt:", "", ...list].join("\n"),
    `Ranex Gate keeps judging new pushes and posting its checks, but will not comment again. The pull request is labelled \`${ESCALATED_LABEL}\`. A person can fix the change, take it over, or close it; \`ranex/approval\` still needs an independent approval of a CANDIDATE head before it can merge.`,
  ].join("\n\n");
}
