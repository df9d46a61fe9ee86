// Does the base branch require both checks? Read from classic branch protection AND rulesets, since
// either can require a status check. If not, the gate is decoration (DESIGN.md, invariant 5) and
// both check runs say so at the top of their summaries, with the command that fixes it.
import type { Octokit } from "@octokit/rest";

export const JUDGE_CHECK = "ranex/judge";
export const APPROVAL_CHECK = "ranex/approval";
export const REQUIRED_CHECKS = [JUDGE_CHECK, APPROVAL_CHECK] as const;

/** Anything that can send REST requests: the app's installation client or the CLI's token client. */
export type Requester = Pick<Octokit, "request">;

export interface RepoName {
  owner: string;
  repo: string;
}

export type ProtectionAnswer =
  | { kind: "enforced"; branch: string }
  | { kind: "decoration"; branch: string; missing: string[] }
  | { kind: "unreadable"; branch: string; reason: string };

/** Status checks the branch requires, by source; `forbidden` when the app may not read that source. */
export async function requiredChecks(octokit: Requester, repo: RepoName, branch: string): Promise<{ contexts: Set<string>; forbidden: string[] }> {
  const contexts = new Set<string>();
  const forbidden: string[] = [];
  try {
    const { data } = await octokit.request("GET /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks", { ...repo, branch });
    for (const c of data.contexts ?? []) contexts.add(c);
    for (const c of data.checks ?? []) contexts.add(c.context);
  } catch (err) {
    // 404: not protected, or protected without required checks. 403: the app may not look.
    if (statusOf(err) === 403) forbidden.push("branch protection");
    else if (statusOf(err) !== 404) throw err;
  }
  // Classic protection alone may already require both: then rulesets cannot change the answer.
  if (REQUIRED_CHECKS.every((c) => contexts.has(c))) return { contexts, forbidden };
  try {
    const rules = await octokit.request("GET /repos/{owner}/{repo}/rules/branches/{branch}", { ...repo, branch, per_page: 100 });
    for (const rule of rules.data) {
      if (rule.type !== "required_status_checks") continue;
      for (const c of rule.parameters?.required_status_checks ?? []) contexts.add(c.context);
    }
  } catch (err) {
    if (statusOf(err) === 403) forbidden.push("rulesets");
    else if (statusOf(err) !== 404) throw err;
  }
  return { contexts, forbidden };
}

export async function readProtection(octokit: Requester, repo: RepoName, branch: string): Promise<ProtectionAnswer> {
  const { contexts, forbidden } = await requiredChecks(octokit, repo, branch);
  const missing = REQUIRED_CHECKS.filter((c) => !contexts.has(c));
  if (missing.length === 0) return { kind: "enforced", branch };
  if (forbidden.length > 0) {
    return { kind: "unreadable", branch, reason: `GitHub refused the app access to the ${forbidden.join(" and ")} of \`${branch}\` (403)` };
  }
  return { kind: "decoration", branch, missing };
}

/** The notice at the top of both summaries, or null when both checks are required. */
export function protectionNotice(answer: ProtectionAnswer, repo: RepoName): string | null {
  const fix = ["```sh", `ranex protect --repo ${repo.owner}/${repo.repo} --branch ${answer.branch}`, "```"].join("\n");
  if (answer.kind === "enforced") return null;
  if (answer.kind === "decoration") {
    const what = answer.missing.map((c) => `\`${c}\``).join(" and ");
    return [
      `> ⚠️ **This gate is decoration: \`${answer.branch}\` does not require ${what}.**`,
      `> Until branch protection or a ruleset requires both \`${JUDGE_CHECK}\` and \`${APPROVAL_CHECK}\`, these checks cannot stop a merge. A repository admin fixes it with:`,
      "",
      fix,
    ].join("\n");
  }
  return [
    `> ⚠️ **Ranex Gate may not read what \`${answer.branch}\` requires**: ${answer.reason}. It cannot tell whether this gate is enforced or decoration.`,
    `> Give the app the \`administration: read\` permission, or make sure \`${answer.branch}\` requires both \`${JUDGE_CHECK}\` and \`${APPROVAL_CHECK}\`:`,
    "",
    fix,
  ].join("\n");
}

/** Protection changes rarely and is read on every judgment: each branch's answer is kept a minute. */
export class ProtectionCache {
  private readonly answers = new Map<string, { at: number; answer: ProtectionAnswer }>();

  constructor(private readonly ttlMs = 60_000, private readonly clock: () => Date = () => new Date()) {}

  async notice(octokit: Requester, repo: RepoName, branch: string): Promise<string | null> {
    const key = `${repo.owner}/${repo.repo}#${branch}`.toLowerCase();
    const now = this.clock().getTime();
    const cached = this.answers.get(key);
    if (cached !== undefined && now - cached.at < this.ttlMs) return protectionNotice(cached.answer, repo);
    let answer: ProtectionAnswer;
    try {
      answer = await readProtection(octokit, repo, branch);
    } catch (err) {
      // Not cached: a GitHub hiccup is no reason to stop asking.
      const reason = `reading it failed (${statusOf(err) ?? (err instanceof Error ? err.message : String(err))})`;
      return protectionNotice({ kind: "unreadable", branch, reason }, repo);
    }
    this.answers.set(key, { at: now, answer });
    return protectionNotice(answer, repo);
  }
}

export function statusOf(err: unknown): number | undefined {
  const status = typeof err === "object" && err !== null && "status" in err ? (err as { status: unknown }).status : undefined;
  return typeof status === "number" ? status : undefined;
}
