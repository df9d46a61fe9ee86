// Deciding `ranex/approval` for one head: when the judge's verdict lands, and again on every review.
// The judge's CANDIDATE is read back from this gate's own journal (never from a check run's word),
// the kernel decides who qualifies and gives the PASS, and a PASS is signed and journalled.
import type { Logger } from "probot";
import { overridePredicateOf, statementOf, VERDICT_PREDICATE_TYPE, type VerdictPredicate } from "../../attest/index.js";
import { approvedVerdict, bindingProblems, qualifyApprovals, type ApprovalPolicy } from "../../kernel/approval.js";
import type { Verdict } from "../../kernel/index.js";
import type { Policy } from "../../policy/index.js";
import { readBasePolicy, type BasePolicy } from "../pull-request/agents.js";
import { bindingOf, pullOfSubject, type VerdictBinding } from "./binding.js";
import { approvedTitle, postApproval, renderApproval, unchanged, type ApprovalState, type ExistingCheck } from "./check.js";
import type { MergeAuthority } from "./deps.js";
import { currentPullOf, gatherApprovalFacts } from "./facts.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import type { AppDeps } from "../deps.js";
import { APPROVAL_CHECK, JUDGE_CHECK } from "../protection/protection.js";
import { WritesRefused } from "../write-retry.js";

export interface ApprovalTarget {
  repo: RepoRef;
  number: number;
  head: string;
  author: string;
}

export interface Settle {
  octokit: GitHub;
  log: Logger;
  deps: Pick<AppDeps, "clock">;
  authority: MergeAuthority;
  target: ApprovalTarget;
  notice: string | null;
}

export function approvalPolicyOf(base: BasePolicy | Policy | null): ApprovalPolicy {
  const policy = base === null ? null : "kind" in base ? (base.kind === "valid" ? base.policy : null) : base;
  // An absent or invalid policy never lowers the bar: one approval, no teams.
  if (policy === null) return { count: 1, teams: [], operators: [] };
  return { count: policy.approval.count, teams: policy.approval.teams, operators: policy.agents.operators };
}

/**
 * When the base moved on since the judgment, both policies bind the approval: the most approvals
 * either asks for, every operator either lists, and only the teams both accept.
 */
export function strictestPolicy(a: ApprovalPolicy, b: ApprovalPolicy): ApprovalPolicy {
  const lower = (xs: readonly string[]) => new Set(xs.map((x) => x.replace(/^@/, "").toLowerCase()));
  const teamsOfB = lower(b.teams);
  const operators = [...a.operators, ...b.operators.filter((o) => !lower(a.operators).has(o.replace(/^@/, "").toLowerCase()))];
  return { count: Math.max(a.count, b.count), teams: a.teams.filter((t) => teamsOfB.has(t.replace(/^@/, "").toLowerCase())), operators };
}

/** The judge's verdict just landed: post ranex/approval for the same head. Never throws. */
export async function approvalAfterVerdict(s: Settle, verdict: Verdict, judgeEntry: string, policy: ApprovalPolicy): Promise<void> {
  await failClosed(s, null, async () => {
    const state: ApprovalState | null = verdict.verdict === "CANDIDATE"
      ? await decide(s, verdict, judgeEntry, { pull: s.target.number, base: verdict.subject.base }, policy, null)
      : { kind: "judge-fail", head: s.target.head, judgeEntry };
    if (state !== null) await postApproval(s.octokit, s.target.repo, s.target.head, renderApproval(state, s.notice), null, s.deps.clock());
  });
}

/**
 * A FAIL on this head was overridden (issue 23): ranex/approval waits for an independent approval
 * as it would for a CANDIDATE. The override is never an approval. Never throws.
 */
export async function approvalAfterOverride(s: Settle, verdict: Verdict, judgeEntry: string, override: OverrideRef, policy: ApprovalPolicy): Promise<void> {
  await failClosed(s, null, async () => {
    const state = await decide(s, verdict, judgeEntry, { pull: s.target.number, base: verdict.subject.base }, policy, null, override);
    if (state !== null) await postApproval(s.octokit, s.target.repo, s.target.head, renderApproval(state, s.notice), null, s.deps.clock());
  });
}

/** A PR that is not an agent's: ranex/approval is neutral, like ranex/judge. */
export async function approvalNeutral(s: Settle, why: string): Promise<void> {
  await failClosed(s, null, () => postApproval(s.octokit, s.target.repo, s.target.head, renderApproval({ kind: "neutral", why }, s.notice), null, s.deps.clock()));
}

/**
 * A review was submitted, edited or dismissed: decide again for the PR's current head. While the
 * judge is still running nothing is posted; the verdict, when it lands, reads the reviews itself.
 */
export async function recheckApproval(s: Settle, findEntry: AppDeps["findEntry"], readPolicy: (base: string) => Promise<ApprovalPolicy>): Promise<void> {
  const runs = await s.octokit.paginate(s.octokit.rest.checks.listForRef, { ...s.target.repo, ref: s.target.head, filter: "latest", per_page: 100 });
  const judgeRun = runs.find((r) => r.name === JUDGE_CHECK);
  const approvalRun = runs.find((r) => r.name === APPROVAL_CHECK);
  const existing: ExistingCheck | null = approvalRun === undefined ? null
    : { id: approvalRun.id, conclusion: approvalRun.conclusion, title: approvalRun.output.title, summary: approvalRun.output.summary };
  if (judgeRun === undefined || judgeRun.status !== "completed") {
    s.log.info({ head: s.target.head }, "review arrived while the judge is running: decided when the verdict lands");
    return;
  }
  // Neutral (not an agent PR, superseded) or a FAIL: the approval check already says so.
  if (judgeRun.conclusion !== "success") return;
  await failClosed(s, existing, async () => {
    const candidate = await candidateFromJournal(findEntry, judgeRun.external_id ?? null, s.target.head);
    const binding = { pull: pullOfSubject(candidate.subjectName, s.target.repo), base: candidate.verdict.subject.base };
    const state = await decide(s, candidate.verdict, candidate.entry, binding, await readPolicy(candidate.verdict.subject.base), existing, candidate.override);
    if (state === null) return;
    const output = renderApproval(state, s.notice);
    if (unchanged(existing, output)) return;
    await postApproval(s.octokit, s.target.repo, s.target.head, output, existing, s.deps.clock());
  });
}

/**
 * Null when the head is already approved by the same people: nothing to sign again. The verdict
 * must be this pull request's own, against the base it targets now (`bindingProblems`), and every
 * hand in the change must be known (`decision.blocked`); else nobody's approval counts. Also decides
 * each agent pull request of a merge group (../merge-queue/approval.ts).
 */
export async function decide(s: Settle, candidate: Verdict, judgeEntry: string, verdictBinding: VerdictBinding, verdictPolicy: ApprovalPolicy, existing: ExistingCheck | null, override: OverrideRef | null = null): Promise<ApprovalState | null> {
  const { octokit, target } = s;
  const pull = await currentPullOf(octokit, target.repo, target.number);
  if (pull.head !== target.head) throw new Error(`the pull request's head moved to ${pull.head.slice(0, 7)}: that head is judged on its own`);
  const problems = bindingProblems(await bindingOf(octokit, target.repo, pull, verdictBinding));
  // A base that moved on since the judgment: its policy binds too (an operator listed there is one).
  const policy = pull.base === verdictBinding.base ? verdictPolicy
    : strictestPolicy(verdictPolicy, approvalPolicyOf(await readBasePolicy(octokit, target.repo, pull.base)));
  const recordedPushes = await s.authority.pushes.pushesOf(`${target.repo.owner}/${target.repo.repo}`, target.number);
  const facts = await gatherApprovalFacts(octokit, target, pull, { policy, appLogin: s.authority.appLogin, recordedPushes });
  const decision = qualifyApprovals(facts);
  const blocked = [...problems, ...decision.blocked];
  const over = override === null ? {} : { override };
  if (blocked.length > 0) return { kind: "blocked", head: target.head, judgeEntry, decision, reasons: blocked, ...over };
  if (!decision.satisfied) return { kind: "waiting", head: s.target.head, judgeEntry, decision, teams: policy.teams, ...over };
  if (existing?.conclusion === "success" && existing.title === approvedTitle(decision)) return null;
  // An overridden FAIL stays a FAIL: the approval is signed beside the override, not as a kernel PASS.
  const verdict = override === null ? approvedVerdict(candidate, decision) : candidate;
  if (verdict === null) return { kind: "error", head: s.target.head, reason: `the kernel gave no PASS for ${s.target.head.slice(0, 7)}` };
  const recorded = await s.authority.recordApproval({
    repository: `${s.target.repo.owner}/${s.target.repo.repo}`, pullRequest: s.target.number, head: s.target.head,
    approvers: decision.qualifying, judgeEntry, verdict, time: s.deps.clock().toISOString(), ...(override === null ? {} : { override: override.journalId }),
  });
  s.log.info({ approvers: decision.qualifying.map((q) => q.login), journal: recorded.journalId }, "independent approval recorded");
  return { kind: "approved", head: s.target.head, judgeEntry, decision, journalId: recorded.journalId, envelope: recorded.envelope, anchor: recorded.anchor, ...over };
}

/** The override a ranex/judge check run stands on: its journal entry and who gave it. */
export interface OverrideRef {
  journalId: string;
  by: string;
}

export interface JudgedCandidate {
  verdict: Verdict;
  entry: string;
  subjectName: string | undefined;
  /** Set when the check run is an override of this FAIL (issue 23): the FAIL stands, overridden. */
  override: OverrideRef | null;
}

/**
 * The CANDIDATE behind a judge check run, from this gate's journal, bound to the head; or the FAIL
 * an override entry (the check run of an overridden head) stands against, with the override.
 */
export async function candidateFromJournal(findEntry: AppDeps["findEntry"], entryId: string | null, head: string): Promise<JudgedCandidate> {
  const missing = `the judge's verdict for ${head.slice(0, 7)} is not in this gate's journal`;
  if (entryId === null || entryId === "") throw new Error(missing);
  const first = await findEntry(entryId) as { kind?: unknown; payload?: unknown } | null;
  let override: OverrideRef | null = null;
  let entry = first;
  let verdictId = entryId;
  if (first?.kind === "override") {
    const o = overridePredicateOf(statementOf(first.payload));
    if (o === null || o.head !== head) throw new Error(`journal entry ${entryId} is not an override of ${head.slice(0, 7)}`);
    override = { journalId: entryId, by: o.by };
    verdictId = o.overrides.entry;
    entry = await findEntry(verdictId) as { kind?: unknown; payload?: unknown } | null;
  }
  const statement = entry === null ? null : statementOf(entry.payload);
  if (entry?.kind !== "verdict" || statement === null || statement.predicateType !== VERDICT_PREDICATE_TYPE) throw new Error(missing);
  const p = statement.predicate as VerdictPredicate;
  if (p.subject?.head !== head || statement.subject[0]?.digest.gitCommit !== head) throw new Error(`journal entry ${verdictId} judged another commit, not ${head.slice(0, 7)}`);
  if (p.verdict !== "CANDIDATE" && override === null) throw new Error(`journal entry ${verdictId} is a ${p.verdict}, not a CANDIDATE`);
  return {
    verdict: { verdict: p.verdict, class: p.class, subject: p.subject, claims: p.claims, missing: p.missing, reasons: p.reasons },
    entry: verdictId, subjectName: statement.subject[0]?.name, override,
  };
}

/** Every path ends in a completed ranex/approval: an error is `failure` with its reason. */
async function failClosed(s: Settle, existing: ExistingCheck | null, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    // Refused for the whole write window (issue 21): posting an error now would wait another window.
    if (err instanceof WritesRefused) {
      s.log.error({ reason }, "GitHub refused ranex/approval's writes for the whole window");
      return;
    }
    s.log.error(err, "deciding ranex/approval failed; completing it as failure");
    try {
      await postApproval(s.octokit, s.target.repo, s.target.head, renderApproval({ kind: "error", head: s.target.head, reason }, s.notice), existing, s.deps.clock());
    } catch (postErr) {
      s.log.error(postErr, "could not complete ranex/approval after an error");
    }
  }
}
