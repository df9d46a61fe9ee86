// `ranex journal verify --github owner/repo`: the GitHub side. Credentials, in this order:
// GITHUB_TOKEN (any token that may read the repository's checks and pull requests), else the app's
// own APP_ID with PRIVATE_KEY or PRIVATE_KEY_PATH (an installation token for the repository).
// GitHub Enterprise Server: GHE_HOST (and GHE_PROTOCOL), as for the app. See docs/verify.md.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createAppAuth } from "@octokit/auth-app";
import { Octokit } from "@octokit/rest";
import { journalCommitsFor, readGitHubAnchors, verifyAgainstGitHub } from "../../journal/github-anchors.js";
import type { Journal, JournalVerification, VerifyOptions } from "../../journal/index.js";
import { UsageError, type CliIo } from "../io.js";

type Env = CliIo["env"];

export interface GitHubTarget {
  owner: string;
  repo: string;
}

export function githubTarget(text: string): GitHubTarget {
  const [owner, repo, extra] = text.split("/");
  if (owner === undefined || owner === "" || repo === undefined || repo === "" || extra !== undefined) throw new UsageError(`--github must be owner/name, got ${JSON.stringify(text)}`);
  return { owner, repo };
}

export function sinceOf(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const time = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(time)) throw new UsageError(`--since must be a date (2026-01-31 or an ISO time), got ${JSON.stringify(text)}`);
  return new Date(time);
}

export function appIdOf(text: string | undefined): number | null {
  if (text === undefined || text === "") return null;
  const id = Number(text);
  if (!Number.isSafeInteger(id) || id <= 0) throw new UsageError(`the app id must be a positive number, got ${JSON.stringify(text)}`);
  return id;
}

/** https://api.github.com, or <GHE_PROTOCOL>://GHE_HOST/api/v3 for GitHub Enterprise Server. */
export function githubBaseUrl(env: Env): string {
  const host = env.GHE_HOST;
  if (host === undefined || host === "") return "https://api.github.com";
  return `${env.GHE_PROTOCOL || "https"}://${host.replace(/^https?:\/\//, "").replace(/\/.*$/, "")}/api/v3`;
}

const USER_AGENT = "ranex-gate journal-verify";

/** An Octokit that may read `target`'s check runs: the token when given, else the app's installation on it. */
export async function githubClient(env: Env, cwd: string, target: GitHubTarget, appId: number | null): Promise<{ octokit: Octokit; via: string }> {
  const baseUrl = githubBaseUrl(env);
  const request = { retries: 0 };
  if (env.GITHUB_TOKEN !== undefined && env.GITHUB_TOKEN !== "") {
    return { octokit: new Octokit({ auth: env.GITHUB_TOKEN, baseUrl, userAgent: USER_AGENT, request }), via: "GITHUB_TOKEN" };
  }
  const privateKey = privateKeyOf(env, cwd);
  if (appId === null || privateKey === null) {
    throw new UsageError("no GitHub credentials: set GITHUB_TOKEN, or APP_ID with PRIVATE_KEY or PRIVATE_KEY_PATH (the app's own key)");
  }
  const app = new Octokit({ authStrategy: createAppAuth, auth: { appId, privateKey }, baseUrl, userAgent: USER_AGENT, request });
  const { data } = await app.rest.apps.getRepoInstallation({ owner: target.owner, repo: target.repo });
  const octokit = new Octokit({ authStrategy: createAppAuth, auth: { appId, privateKey, installationId: data.id }, baseUrl, userAgent: USER_AGENT, request });
  return { octokit, via: `app ${appId}, installation ${data.id}` };
}

function privateKeyOf(env: Env, cwd: string): string | null {
  const inline = env.PRIVATE_KEY;
  if (inline !== undefined && inline !== "") {
    const pem = inline.includes("-----BEGIN") ? inline : Buffer.from(inline, "base64").toString("utf8");
    if (!pem.includes("-----BEGIN")) throw new UsageError("PRIVATE_KEY is neither a PEM key nor a base64-encoded one");
    return pem.replace(/\\n/g, "\n");
  }
  if (env.PRIVATE_KEY_PATH === undefined || env.PRIVATE_KEY_PATH === "") return null;
  try {
    return readFileSync(resolve(cwd, env.PRIVATE_KEY_PATH), "utf8");
  } catch (err) {
    throw new UsageError(`PRIVATE_KEY_PATH ${env.PRIVATE_KEY_PATH} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export interface GitHubCheck {
  target: GitHubTarget;
  result: JournalVerification;
  /** One line for the report when the journal holds everything GitHub names. */
  summary: string;
}

/** Reads one repository's anchors and checks the journal against them. GitHub errors throw (exit 2). */
export async function checkAgainstGitHub(
  journal: Journal, target: GitHubTarget, options: VerifyOptions, io: CliIo, settings: { since?: Date; appId: number | null },
): Promise<GitHubCheck> {
  const where = `${target.owner}/${target.repo}`;
  let found;
  let via;
  try {
    const client = await githubClient(io.env, io.cwd, target, settings.appId);
    via = client.via;
    const journalCommits = await journalCommitsFor(journal, target.owner, target.repo, settings.since);
    found = await readGitHubAnchors(client.octokit, { ...target, since: settings.since, appId: settings.appId, journalCommits });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const e = err as Error & { status?: number };
    throw new Error(`could not read the check runs of ${where} from ${githubBaseUrl(io.env)}: ${e.message || `HTTP ${e.status ?? "error"}`}`);
  }
  const result = await verifyAgainstGitHub(journal, found, options);
  const highest = Math.max(0, ...found.anchored.map((a) => a.anchor.entry.sequence));
  const summary = [
    `GitHub ${where}${settings.since === undefined ? "" : ` since ${settings.since.toISOString()}`} (${via}${settings.appId === null ? ", check runs of ANY app named ranex/*: pass --app-id or set APP_ID" : `, app ${settings.appId}'s check runs`}):`,
    `${found.runs} check runs on ${found.commits} commits, ${found.anchored.length} anchored (up to entry ${highest}), ${found.idOnly.length} naming an entry by id only; the journal holds all of them`,
  ].join(" ");
  return { target, result, summary };
}
