// The reconcile sweep. GitHub never redelivers a webhook that failed, so a head whose delivery was
// lost would never be judged, and a required check that never appears blocks people while a missing
// verdict says nothing. On start and every few minutes, each installation's open pull requests are
// listed, and a head with no `ranex/judge` check run of this app is handed to the queue as if its
// webhook had arrived (the synthetic action RECONCILE_ACTION): the same handlers decide and judge.
// One sweep at a time, at most `maxPulls` pull requests looked at, each head at most once an hour.
import type { GitHub } from "../check-runs.js";
import { CHECK_NAME } from "../deps.js";
import { RECONCILE_ACTION } from "./events.js";

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
  log: { info: (obj: object, msg: string) => void; error: (obj: unknown, msg: string) => void };
}

export interface SweepResult {
  pulls: number;
  queued: number;
  /** True when the bound stopped the sweep before every open pull request was looked at. */
  truncated: boolean;
}

export const DEFAULT_MAX_PULLS = 300;

export async function sweepOnce(options: SweepOptions): Promise<SweepResult> {
  const max = options.maxPulls ?? DEFAULT_MAX_PULLS;
  const result: SweepResult = { pulls: 0, queued: 0, truncated: false };
  const app = await options.app();
  const installations = await app.paginate(app.rest.apps.listInstallations, { per_page: 100 });
  for (const installation of installations) {
    if (installation.suspended_at) continue;
    const octokit = await options.installation(installation.id);
    const repositories = await octokit.paginate(octokit.rest.apps.listReposAccessibleToInstallation, { per_page: 100 });
    for (const repository of repositories) {
      if (repository.archived === true) continue;
      const repo = { owner: repository.owner.login, repo: repository.name };
      const pulls = await octokit.paginate(octokit.rest.pulls.list, { ...repo, state: "open", per_page: 100 });
      for (const pull of pulls) {
        if (result.pulls >= max) {
          result.truncated = true;
          return result;
        }
        result.pulls += 1;
        const { data } = await octokit.rest.checks.listForRef({ ...repo, ref: pull.head.sha, check_name: CHECK_NAME, app_id: options.appId, per_page: 1 });
        if (data.total_count > 0) continue;
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
