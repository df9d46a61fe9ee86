// Reads back, through GitHub's REST API, the journal anchors this app posted on its check runs
// (issue 13), and checks the local journal against them. GitHub keeps check runs where the operator
// cannot rewrite them, so a journal that was cut, rolled back or forked is caught from GitHub's copy.
import type { Octokit } from "@octokit/rest";
import { statementOf } from "../attest/index.js";
import { anchorPositions, parseAnchorBlock, type JournalAnchor } from "./anchor.js";
import type { Journal, JournalVerification, PublishedPosition, VerifyOptions } from "./types.js";

/** The check runs that carry a journal entry of their own. */
export const ANCHORED_CHECKS: readonly string[] = ["ranex/judge", "ranex/approval"];

export interface CheckRunRef {
  id: number;
  name: string;
  headSha: string;
  url: string | null;
}

export interface GitHubAnchors {
  /** Check runs whose text opens with a well-formed anchor. */
  anchored: { anchor: JournalAnchor; run: CheckRunRef }[];
  /** Check runs with an `external_id` (a journal entry id) but no anchor: posted before anchors existed. */
  idOnly: { entryId: string; run: CheckRunRef }[];
  /** Check runs of this app whose anchor is broken, or disagrees with their external_id. */
  invalid: { problem: string; run: CheckRunRef }[];
  commits: number;
  runs: number;
}

export interface ReadAnchorsOptions {
  owner: string;
  repo: string;
  /** Only pull requests updated, and journal entries made, at or after this time. */
  since?: Date;
  /** Only check runs this GitHub App posted (strongly advised: another app could post a `ranex/judge`). */
  appId?: number | null;
  /** Commits the local journal names for this repository: heads a force push took out of their pull request. */
  journalCommits?: Iterable<string>;
}

/**
 * Every check run of this app on the repository's pull-request heads (all states, newest update
 * first), on the commits merged pull requests landed as, and on the commits the journal names. There
 * is no REST listing of a repository's check runs, so the commits are enumerated; because each
 * entry's hash covers every entry before it, one check run naming a later position is enough to
 * catch a rewrite anywhere before that position.
 */
export async function readGitHubAnchors(octokit: Octokit, options: ReadAnchorsOptions): Promise<GitHubAnchors> {
  const repo = { owner: options.owner, repo: options.repo };
  const commits = new Set<string>();
  const since = options.since?.getTime();
  pulls: for await (const page of octokit.paginate.iterator(octokit.rest.pulls.list, { ...repo, state: "all", sort: "updated", direction: "desc", per_page: 100 })) {
    for (const pull of page.data) {
      // Newest update first: the first older one ends the listing (a pull without a time is kept).
      if (since !== undefined && Date.parse(pull.updated_at) < since) break pulls;
      commits.add(pull.head.sha);
      // A merge queue lands its group's commit, which the app judged (and approved) as a merge group:
      // found here even when the journal that named it was cut.
      if (pull.merged_at != null && typeof pull.merge_commit_sha === "string" && pull.merge_commit_sha !== "") commits.add(pull.merge_commit_sha);
    }
  }
  for (const sha of options.journalCommits ?? []) commits.add(sha);

  const found: GitHubAnchors = { anchored: [], idOnly: [], invalid: [], commits: commits.size, runs: 0 };
  for (const sha of commits) {
    const runs = await octokit.paginate(octokit.rest.checks.listForRef, {
      ...repo, ref: sha, filter: "all", per_page: 100, ...(options.appId == null ? {} : { app_id: options.appId }),
    });
    for (const run of runs) {
      if (!ANCHORED_CHECKS.includes(run.name)) continue;
      if (options.appId != null && run.app?.id !== options.appId) continue;
      found.runs++;
      classify(found, run, { id: run.id, name: run.name, headSha: run.head_sha, url: run.html_url ?? null });
    }
  }
  return found;
}

function classify(found: GitHubAnchors, run: { external_id: string | null; output: { text: string | null } }, ref: CheckRunRef): void {
  const parsed = parseAnchorBlock(run.output.text);
  const externalId = run.external_id ?? "";
  if (parsed.kind === "invalid") {
    found.invalid.push({ problem: parsed.problem, run: ref });
  } else if (parsed.kind === "anchor") {
    if (externalId !== parsed.anchor.entry.id) {
      found.invalid.push({ problem: `its anchor names entry ${parsed.anchor.entry.id} but its external_id is ${JSON.stringify(externalId)}`, run: ref });
    } else {
      found.anchored.push({ anchor: parsed.anchor, run: ref });
    }
  } else if (externalId !== "") {
    found.idOnly.push({ entryId: externalId, run: ref });
  }
}

export function describeRun(run: CheckRunRef): string {
  return `check run ${run.name} ${run.id} on ${run.headSha.slice(0, 7)}${run.url === null ? "" : ` (${run.url})`}`;
}

/** The commits the journal's signed statements name for `owner/repo` (subject name `owner/repo` or `owner/repo@ref`). */
export async function journalCommitsFor(journal: Journal, owner: string, repo: string, since?: Date): Promise<Set<string>> {
  const wanted = `${owner}/${repo}`.toLowerCase();
  const commits = new Set<string>();
  for await (const entry of journal.entries()) {
    const statement = statementOf(entry.payload);
    if (statement === null) continue;
    const time = (statement.predicate as { time?: unknown } | null)?.time;
    if (since !== undefined && typeof time === "string" && Date.parse(time) < since.getTime()) continue;
    for (const subject of statement.subject) {
      const name = typeof subject.name === "string" ? subject.name.split("@")[0]!.toLowerCase() : "";
      const commit = subject.digest?.gitCommit;
      if (name === wanted && typeof commit === "string" && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) commits.add(commit);
    }
  }
  return commits;
}

/**
 * The journal checked against what GitHub holds: the whole chain (and signatures, with a key), every
 * position an anchor pins, and every entry a check run names by id. Names the first gap.
 */
export async function verifyAgainstGitHub(journal: Journal, found: GitHubAnchors, options: Omit<VerifyOptions, "published"> = {}): Promise<JournalVerification> {
  const invalid = found.invalid[0];
  if (invalid !== undefined) {
    return { ok: false, sequence: 0, id: null, reason: `${describeRun(invalid.run)} carries a broken journal anchor: ${invalid.problem}` };
  }
  const published: PublishedPosition[] = found.anchored.flatMap(({ anchor, run }) =>
    anchorPositions(anchor).map((p) => ({ ...p, source: describeRun(run) })));
  const chain = await journal.verify({ ...options, published });
  if (!chain.ok) return chain;

  // By id: check runs from before anchors name only their entry; anchored ones must agree with their id too.
  const named = [
    ...found.anchored.map(({ anchor, run }) => ({ id: anchor.entry.id, sequence: anchor.entry.sequence as number | null, run })),
    ...found.idOnly.map(({ entryId, run }) => ({ id: entryId, sequence: null as number | null, run })),
  ];
  for (const { id, sequence, run } of named) {
    const entry = await journal.get(id);
    if (entry === null) {
      return { ok: false, sequence: sequence ?? 0, id, reason: `${describeRun(run)} names journal entry ${id}, which the journal does not hold: it was cut out or replaced` };
    }
    if (sequence !== null && entry.sequence !== sequence) {
      return { ok: false, sequence, id, reason: `${describeRun(run)} names entry ${id} at position ${sequence}, but the journal holds it at ${entry.sequence}` };
    }
  }
  return chain;
}
