// What `/ranex override` is decided on (issue 23), read from GitHub: who asks (role, teams, public
// profile), every hand in the change (commits, pushes), and the measured verdict the head's
// ranex/judge check run carries, read back from this gate's own journal. Nothing is decided here
// except which verdict the override would stand against.
import { overridePredicateOf, statementOf, VERDICT_PREDICATE_TYPE, type DsseEnvelope, type VerdictPredicate } from "../../attest/index.js";
import { coAuthorsOf, type PushFacts } from "../../kernel/approval.js";
import type { Verdict } from "../../kernel/index.js";
import type { OverrideFacts } from "../../kernel/override.js";
import type { Policy } from "../../policy/index.js";
import type { BasePolicy } from "../pull-request/agents.js";
import { pullOfSubject } from "../approval/binding.js";
import { isTeamMember, noreplyHostsOf, pullCommits, type CurrentPull } from "../approval/facts.js";
import { roleOf } from "../approval/permission.js";
import { timelinePushes } from "../approval/pushes.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import { CHECK_NAME, type AppDeps } from "../deps.js";
import type { Requester } from "./authorize.js";

export async function overrideFactsOf(
  octokit: GitHub, repo: RepoRef, pull: CurrentPull, requester: Requester, reason: string,
  context: { policy: BasePolicy; recordedPushes: readonly PushFacts[]; appLogin: string | null },
): Promise<OverrideFacts> {
  const valid: Policy | null = context.policy.kind === "valid" ? context.policy.policy : null;
  const override = context.policy.kind === "invalid" ? null : { allowed: valid?.override.allowed ?? true, teams: valid?.override.teams ?? [] };
  const [commits, forcePushes, role] = await Promise.all([
    pullCommits(octokit, repo, pull.number),
    timelinePushes(octokit, repo, pull.number),
    roleOf(octokit, repo, requester.login),
  ]);
  const teams: string[] = [];
  for (const team of override?.teams ?? []) if (await isTeamMember(octokit, team, requester.login)) teams.push(team);
  // A profile is read only when some identity in the change is not an account GitHub matched.
  let name: string | null = null;
  let email: string | null = null;
  if (commits.some((c) => c.author.login === null || c.committer.login === null || coAuthorsOf(c.message).length > 0)) {
    const { data } = await octokit.rest.users.getByUsername({ username: requester.login });
    name = data.name ?? null;
    email = data.email ?? null;
  }
  return {
    requester: { ...requester, role, teams, name, email }, author: pull.author, commits, pushes: [...context.recordedPushes, ...forcePushes],
    operators: valid?.agents.operators ?? [], appLogin: context.appLogin, commitCount: pull.commits, noreplyHosts: noreplyHostsOf(octokit),
    policy: override, reason,
  };
}

/** The measured FAIL an override would stand against, or why there is none to override. */
export type Overridable =
  | { kind: "fail"; verdict: Verdict; entry: string; envelope: DsseEnvelope }
  | { kind: "not"; why: string };

export async function overridableVerdict(octokit: GitHub, repo: RepoRef, pull: CurrentPull, findEntry: AppDeps["findEntry"]): Promise<Overridable> {
  const sha7 = pull.head.slice(0, 7);
  const runs = await octokit.paginate(octokit.rest.checks.listForRef, { ...repo, ref: pull.head, filter: "latest", per_page: 100 });
  const judge = runs.filter((r) => r.name === CHECK_NAME).sort((a, b) => b.id - a.id)[0];
  if (judge === undefined) return { kind: "not", why: `\`${CHECK_NAME}\` has no verdict on \`${sha7}\` yet: there is nothing to override.` };
  if (judge.status !== "completed") return { kind: "not", why: `\`${sha7}\` is being judged right now: override the verdict once \`${CHECK_NAME}\` completes, if it is still wrong.` };
  const entryId = judge.external_id ?? "";
  const first = entryId === "" ? null : await findEntry(entryId) as { kind?: unknown; payload?: unknown } | null;
  if (first?.kind === "override") {
    const by = overridePredicateOf(statementOf(first.payload))?.by ?? "someone";
    return { kind: "not", why: `\`${sha7}\` is already overridden by @${by} (journal entry \`${entryId}\`).` };
  }
  if (judge.conclusion === "success") return { kind: "not", why: `\`${CHECK_NAME}\` found \`${sha7}\` CANDIDATE: there is no FAIL to override. It still needs an independent approval.` };
  const statement = first === null ? null : statementOf(first.payload);
  if (first?.kind !== "verdict" || statement === null || statement.predicateType !== VERDICT_PREDICATE_TYPE) {
    return { kind: "not", why: `the latest \`${CHECK_NAME}\` on \`${sha7}\` ended \`${judge.conclusion ?? "without a conclusion"}\` without a measured verdict in this gate's journal, so there is nothing to override: a person with write access can ask for \`/ranex rejudge\`.` };
  }
  const p = statement.predicate as VerdictPredicate;
  if (p.subject?.head !== pull.head || statement.subject[0]?.digest.gitCommit !== pull.head) return { kind: "not", why: `journal entry \`${entryId}\` judged another commit, not \`${sha7}\`.` };
  if (p.verdict !== "FAIL") return { kind: "not", why: `journal entry \`${entryId}\` is a ${p.verdict}: only a FAIL can be overridden.` };
  const judgedPull = pullOfSubject(statement.subject[0]?.name, repo);
  if (judgedPull !== pull.number) {
    return { kind: "not", why: `the verdict on \`${sha7}\` was given for ${judgedPull === null ? "no pull request" : `#${judgedPull}`}, not #${pull.number}: an override applies to the verdict of this pull request only.` };
  }
  if (p.subject.base !== pull.base) {
    return { kind: "not", why: `the verdict on \`${sha7}\` was measured on base \`${p.subject.base.slice(0, 7)}\`, and the pull request now targets \`${pull.base.slice(0, 7)}\`: an override stands against the verdict of the current base only. Ask for \`/ranex rejudge\` first.` };
  }
  return {
    kind: "fail", entry: entryId, envelope: first.payload as DsseEnvelope,
    verdict: { verdict: p.verdict, class: p.class, subject: p.subject, claims: p.claims, missing: p.missing, reasons: p.reasons },
  };
}
