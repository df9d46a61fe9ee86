// `/ranex override <reason>` (issue 23): a maintainer who had no hand in the change says the gate's
// FAIL on the current head is wrong. Refused with the reason for anyone else, and then nothing
// changes. Allowed, it signs and journals an override statement, posts ranex/judge as `success`
// titled with who and why (the measured verdict still shown in full), and leaves ranex/approval
// waiting for an independent approval: an override is never an approval.
import type { Logger } from "probot";
import { overrideRefusals, reasonProblem } from "../../kernel/override.js";
import { currentPullOf, type CurrentPull } from "../approval/facts.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import type { AppDeps } from "../deps.js";
import { readBasePolicy } from "../pull-request/agents.js";
import { postOverridden } from "../pull-request/overridden.js";
import { PullRequestStore, type RecordedOverride } from "../pull-request/store.js";
import { fullName, type PullTarget } from "../pull-request/target.js";
import type { Requester } from "./authorize.js";
import { overridableVerdict, overrideFactsOf } from "./override-facts.js";
import { reply } from "./rejudge.js";

export interface OverrideAsk {
  octokit: GitHub;
  log: Logger;
  repo: RepoRef;
  number: number;
  requester: Requester;
  /** Everything the comment says after `/ranex override`. */
  reason: string;
}

/** The reason of a `/ranex override` comment: the rest of the comment after the command, trimmed. */
export function overrideReasonOf(body: string): string {
  const match = /^[ \t]*\/ranex[ \t]+override\b([\s\S]*)$/im.exec(body);
  return (match?.[1] ?? "").trim();
}

export async function override(ask: OverrideAsk, deps: AppDeps): Promise<void> {
  const { octokit, repo, number, requester, log } = ask;
  const refuse = (why: readonly string[]) => {
    log.info({ requester: requester.login, reasons: why }, "override refused");
    return reply(octokit, repo, number, `Not overridden; nothing changed.\n\n${why.map((w) => `- ${w}`).join("\n")}`);
  };
  const authority = deps.mergeAuthority;
  if (authority === undefined) return refuse(["this gate runs without merge authority, so it keeps no signed overrides"]);
  // Asked first, so a bare `/ranex override` costs GitHub nothing.
  const badReason = reasonProblem(ask.reason);
  if (badReason !== null) return refuse([badReason]);
  const pull = await currentPullOf(octokit, repo, number);
  if (pull.state !== "open") return refuse([`#${number} is closed`]);
  const policy = await readBasePolicy(octokit, repo, pull.base);
  const facts = await overrideFactsOf(octokit, repo, pull, requester, ask.reason, {
    policy, recordedPushes: await authority.pushes.pushesOf(fullName(repo), number), appLogin: authority.appLogin,
  });
  const refusals = overrideRefusals(facts);
  if (refusals.length > 0) return refuse(refusals);
  const found = await overridableVerdict(octokit, repo, pull, deps.findEntry);
  if (found.kind === "not") return refuse([found.why]);

  const time = deps.clock().toISOString();
  const failing = found.verdict.claims.filter((c) => c.status !== "pass");
  const recorded = await authority.recordOverride({
    repository: fullName(repo), pullRequest: number, head: pull.head, base: pull.base, by: requester.login, role: facts.requester.role ?? "",
    reason: ask.reason, time,
    overrides: { entry: found.entry, verdict: found.verdict.verdict, class: found.verdict.class, digest: found.verdict.subject.digest, reasons: found.verdict.reasons, failing },
  });
  log.info({ requester: requester.login, journal: recorded.journalId, verdict: found.entry }, "override recorded");
  const shown: RecordedOverride = {
    verdictEntry: found.entry, head: pull.head, base: pull.base, baseRef: pull.baseRef, journalId: recorded.journalId,
    by: requester.login, reason: ask.reason, at: time, anchor: recorded.anchor ?? "unknown",
  };
  new PullRequestStore(deps.dataDir).recordOverride(fullName(repo), number, shown);
  // The escalation rules count overrides beside the FAILs they wave through.
  authority.escalations.recordFail(fullName(repo), number, { judgment: recorded.journalId, head: pull.head, class: "override", reason: `overridden by @${requester.login}: ${ask.reason}` });
  await postOverridden({ octokit, log }, deps, targetOfPull(repo, pull), found.verdict, found.entry, found.envelope, shown);
}

function targetOfPull(repo: RepoRef, pull: CurrentPull): PullTarget {
  return {
    repo, number: pull.number, head: pull.head, base: pull.base, baseRef: pull.baseRef, headRef: "", cloneUrl: "",
    author: pull.author, labels: [], draft: false, body: null, state: pull.state,
  };
}
