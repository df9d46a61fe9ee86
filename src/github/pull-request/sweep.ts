// The reconcile sweep. GitHub never redelivers a webhook that failed, so a head whose delivery was
// lost would never be judged, and a required check that never appears blocks people while a missing
// verdict says nothing. On start and every few minutes, each installation's open pull requests are
// listed, and a head with no `ranex/judge` check run of this app is handed to the queue as if its
// webhook had arrived (the synthetic action RECONCILE_ACTION): the same handlers decide and judge.
// One sweep at a time, at most `maxPulls` pull requests looked at, each head at most once an hour.
//
// It also ends check runs left open (issue 21): those whose writes GitHub refused for the whole retry
// window (marked in the queue's store; a refused creation is created now), any check run a delivery
// created and never saw completed (ranex/judge and ranex/approval, on pull request heads and merge
// group commits alike), and any ranex/judge of this app on an open head, still `queued` or
// `in_progress` past `staleAfterMs` (src/github/pull-request/settle-open.ts says what they get).
import type { GitHub } from "../check-runs.js";
import { CHECK_NAME } from "../deps.js";
import { isRefusedCreation, type CheckRecord, type DeliveryQueue } from "../../queue/types.js";
import { RECONCILE_ACTION } from "./events.js";
import { settleOpenRun, type OpenRun } from "./settle-open.js";

export interface SyntheticDelivery {
  id: string;
  name: "pull_request";
  payload: Record<string, unknown>;
}

export interface SweepOptions {
  /** The app itself (JWT): lists its installations. */
  app: () => Promise<GitHub>;
  /** An installation's Octokit. */
  installation: (id: number) => Promise<GitHub>;
  appId: number;
  /** Hands the synthetic delivery to the queue; false when it was handed over before. */
  deliver: (delivery: SyntheticDelivery) => Promise<boolean>;
  clock: () => Date;
  /** Pull requests looked at per sweep, over all installations. */
  maxPulls?: number;
  /** The queue's record of the check runs deliveries created (the outbox, refused writes). */
  checks?: Pick<DeliveryQueue, "refusedChecks" | "unpostedChecks" | "checkRecord" | "markPosted">;
  /** A run of this app open longer than this is completed (default: the lease plus the write window). */
  staleAfterMs?: number;
  log: { info: (obj: object, msg: string) => void; error: (obj: unknown, msg: string) => void };
}

export interface SweepResult {
  pulls: number;
  queued: number;
  /** Check runs left open that this sweep completed. */
  settled: number;
  /** True when the bound stopped the sweep before every open pull request was looked at. */
  truncated: boolean;
}

export const DEFAULT_MAX_PULLS = 300;

export async function sweepOnce(options: SweepOptions): Promise<SweepResult> {
  const max = options.maxPulls ?? DEFAULT_MAX_PULLS;
  const result: SweepResult = { pulls: 0, queued: 0, settled: 0, truncated: false };
  const refused = await options.checks?.refusedChecks() ?? [];
  const unposted = await options.checks?.unpostedChecks() ?? [];
  const app = await options.app();
  const installations = await app.paginate(app.rest.apps.listInstallations, { per_page: 100 });
  for (const installation of installations) {
    if (installation.suspended_at) continue;
    const octokit = await options.installation(installation.id);
    const repositories = await octokit.paginate(octokit.rest.apps.listReposAccessibleToInstallation, { per_page: 100 });
    for (const repository of repositories) {
      if (repository.archived === true) continue;
      const repo = { owner: repository.owner.login, repo: repository.name };
      const here = (r: CheckRecord): boolean => r.owner === repo.owner && r.repo === repo.repo;
      // Heads whose ranex/judge creation is still held (refused): judging them again would post twice.
      const held = new Set<string>();
      for (const record of refused.filter(here)) {
        const body = record.completion ?? {};
        const run = { ...repo, id: record.id, name: String(body.name ?? CHECK_NAME), status: "in_progress", startedAt: record.refused?.since ?? options.clock().getTime() };
        if (await settle(octokit, options, run, record)) result.settled += 1;
        else if (isRefusedCreation(record) && run.name === CHECK_NAME) held.add(String(body.head_sha));
      }
      // Any check run a delivery created and never saw completed (a merge group's, ranex/approval's,
      // one on a head no open pull request has): completed once it is open past the deadline.
      for (const record of unposted.filter(here)) {
        if (await settleIfLeftOpen(octokit, options, record)) result.settled += 1;
      }
      const pulls = await octokit.paginate(octokit.rest.pulls.list, { ...repo, state: "open", per_page: 100 });
      for (const pull of pulls) {
        if (result.pulls >= max) {
          result.truncated = true;
          return result;
        }
        result.pulls += 1;
        if (held.has(pull.head.sha)) continue;
        const { data } = await octokit.rest.checks.listForRef({ ...repo, ref: pull.head.sha, check_name: CHECK_NAME, app_id: options.appId, per_page: 1 });
        if (data.total_count > 0) {
          const latest = data.check_runs[0];
          if (latest !== undefined && await stale(options, latest)) {
            const run = { ...repo, id: latest.id, name: CHECK_NAME, status: latest.status, startedAt: Date.parse(latest.started_at ?? "") };
            if (await settle(octokit, options, run, await options.checks?.checkRecord(latest.id) ?? null)) result.settled += 1;
          }
          continue;
        }
        // The hour in the id: a head whose synthetic delivery failed outright is tried again next hour, not every sweep.
        const hour = options.clock().toISOString().slice(0, 13);
        const handed = await options.deliver({
          id: `reconcile:${repository.full_name}#${pull.number}@${pull.head.sha}:${hour}`, name: "pull_request",
          payload: { action: RECONCILE_ACTION, number: pull.number, pull_request: pull, repository, installation: { id: installation.id }, sender: { login: "ranex-reconcile", type: "Bot" } },
        });
        if (handed) {
          result.queued += 1;
          options.log.info({ repository: repository.full_name, pr: pull.number, head: pull.head.sha }, "reconcile: a head with no ranex/judge check run (its webhook was lost): queued");
        }
      }
    }
  }
  return result;
}

/**
 * A check run a delivery created and never saw completed: completed by the sweep when GitHub still
 * shows it open past the deadline; marked posted when it is completed (nothing more to watch).
 */
async function settleIfLeftOpen(octokit: GitHub, options: SweepOptions, record: CheckRecord): Promise<boolean> {
  let data;
  try {
    ({ data } = await octokit.rest.checks.get({ owner: record.owner, repo: record.repo, check_run_id: record.id }));
  } catch (err) {
    options.log.error(err, "reconcile: could not read a check run a delivery created; the next sweep tries again");
    return false;
  }
  if (data.status === "completed") {
    await options.checks?.markPosted(record.id);
    return false;
  }
  if (!await stale(options, data)) return false;
  const run = { owner: record.owner, repo: record.repo, id: record.id, name: data.name, status: data.status, startedAt: Date.parse(data.started_at ?? "") };
  return settle(octokit, options, run, record);
}

/** Default deadline for a run left open: the queue's lease (45 min) plus the write window (30 min). */
export const DEFAULT_STALE_AFTER_MS = 75 * 60_000;

async function stale(options: SweepOptions, run: { status?: string; started_at?: string | null; id: number }): Promise<boolean> {
  if (run.status !== "queued" && run.status !== "in_progress") return false;
  const started = Date.parse(run.started_at ?? "");
  if (!Number.isFinite(started)) return false;
  // A run whose writes were refused is taken over at once; any other only past the deadline.
  if ((await options.checks?.checkRecord(run.id))?.refused != null) return true;
  return options.clock().getTime() - started > (options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS);
}

/** Completes one run left open; a failure is logged, and the next sweep tries again. */
async function settle(octokit: GitHub, options: SweepOptions, run: OpenRun, record: CheckRecord | null): Promise<boolean> {
  try {
    await settleOpenRun(octokit, run, record, options.clock());
    await options.checks?.markPosted(run.id);
    options.log.info({ repository: `${run.owner}/${run.repo}`, checkRun: run.id, verdict: record?.verdict === true }, "reconcile: completed a check run left open");
    return true;
  } catch (err) {
    options.log.error(err, "reconcile: could not complete a check run left open; the next sweep tries again");
    return false;
  }
}

/** Sweeps now and every `everyMs`, one sweep at a time; `stop` ends it. Errors are logged, never thrown. */
export function startSweeps(options: SweepOptions, everyMs: number): { stop: () => void; running: () => Promise<void> } {
  let current: Promise<void> = Promise.resolve();
  let busy = false;
  const run = (): void => {
    if (busy) return;
    busy = true;
    current = sweepOnce(options)
      .then((result) => options.log.info(result, "reconcile sweep done"))
      .catch((err: unknown) => options.log.error(err, "reconcile sweep failed; the next one tries again"))
      .finally(() => { busy = false; });
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer), running: () => current };
}
