// The pull request as the judge job sees it, built from a webhook payload or a REST pull object.
import type { RepoRef } from "../check-runs.js";

export interface PullTarget {
  repo: RepoRef;
  number: number;
  head: string;
  /** The base branch's tip when the event was sent: the judge computes what lands from it and the head. */
  base: string;
  headRef: string;
  /** The base branch's name, from the payload (the branch protection is read for it). */
  baseRef?: string;
  /** From the payload: github.com or a GHES host, or a local path in tests. */
  cloneUrl: string;
  author: string;
  labels: string[];
  draft: boolean;
  body: string | null;
  /** `open` or `closed`; a closed PR gets nothing more. */
  state?: string;
}

interface PullPayload {
  number: number;
  draft?: boolean;
  state?: string;
  body: string | null;
  user: { login: string } | null;
  labels?: { name: string }[];
  head: { sha: string; ref: string };
  base: { sha: string; ref?: string };
}

interface RepositoryPayload {
  name: string;
  owner: { login: string };
  clone_url: string;
}

export function targetOf(pr: PullPayload, repository: RepositoryPayload): PullTarget {
  return {
    repo: { owner: repository.owner.login, repo: repository.name },
    number: pr.number, head: pr.head.sha, base: pr.base.sha, headRef: pr.head.ref,
    ...(pr.base.ref === undefined ? {} : { baseRef: pr.base.ref }),
    ...(pr.state === undefined ? {} : { state: pr.state }),
    cloneUrl: repository.clone_url, author: pr.user?.login ?? "", labels: (pr.labels ?? []).map((l) => l.name),
    draft: pr.draft === true, body: pr.body,
  };
}

export function fullName(repo: RepoRef): string {
  return `${repo.owner}/${repo.repo}`;
}

/** The key judge jobs of one pull request coalesce on (`owner/name#7`). */
export function pullKey(repo: RepoRef, number: number): string {
  return `${fullName(repo)}#${number}`;
}
