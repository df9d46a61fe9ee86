// Handles one delivery taken from the queue: settles what an earlier try left behind, replays the
// delivery through the app's own handlers, and then checks that every check run it created was
// completed. A try that left one open throws, so the queue retries it with backoff; the last try
// completes whatever is still open as `failure` with the reason, so nothing stays in progress.
import type { Logger, Probot } from "probot";
import type { GitHub } from "../github/check-runs.js";
import { handling, type HandlingContext } from "./check-recorder.js";
import { WritesRefused } from "../github/write-retry.js";
import { payloadProblem, permanentReason } from "./permanent.js";
import { isRefusedCreation, type CheckRecord, type CreateIntent, type DeliveryHandler, type DeliveryQueue } from "./types.js";

export interface WorkerOptions {
  queue: DeliveryQueue;
  /** A Probot with the app loaded and the check recorder among its Octokit plugins. */
  probot: Probot;
  log: Logger;
  clock?: () => Date;
  /** The app's id: an earlier try's unrecorded check runs are found among this app's runs only. */
  appId?: number | string;
  /** Seconds each delivery waited in the queue before its first try. */
  onWait?: (seconds: number) => void;
}

export function deliveryHandler(options: WorkerOptions): DeliveryHandler {
  const clock = options.clock ?? (() => new Date());
  return async (delivery) => {
    const log = options.log.child({ delivery: delivery.id, event: delivery.name, attempt: delivery.attempt });
    if (delivery.attempt === 1) options.onWait?.(Math.max(0, Date.now() - delivery.enqueuedAt) / 1000);
    // Deterministic: a payload without what its event needs fails the same way on every try.
    const problem = payloadProblem(delivery.name, delivery.payload);
    if (problem !== null) {
      log.warn({ reason: problem }, `delivery dropped, not retried: ${problem}`);
      return;
    }
    const installation = installationOf(delivery.payload);
    const octokit = (): Promise<GitHub> => options.probot.auth(installation) as Promise<GitHub>;
    if (delivery.attempt > 1) {
      const earlier = await options.queue.checksOf(delivery.id);
      if (earlier.length > 0 && await settleEarlier(earlier, await octokit(), options.queue, clock, log)) {
        log.info("an earlier try's verdict is now posted: not judged again");
        return;
      }
      const intents = await options.queue.creatingOf(delivery.id);
      // Not this try's verdict: a failure here is logged and the head judged anyway; a run it could
      // not complete is left to the reconcile sweep, which completes whatever stays open.
      if (intents.length > 0 && options.appId !== undefined) {
        await settleUnrecorded(intents, options.appId, await octokit(), options.queue, clock, log)
          .catch((err: unknown) => log.warn({ err: messageOf(err) }, "could not look for check runs an earlier try never recorded; the reconcile sweep completes any left open"));
      }
    }
    const context: HandlingContext = { delivery: delivery.id, queue: options.queue, jobs: [] };
    let failure: unknown = null;
    const started = Date.now();
    try {
      await handling.run(context, async () => {
        await options.probot.receive({ id: delivery.id, name: delivery.name, payload: delivery.payload } as Parameters<Probot["receive"]>[0]);
        // Jobs may be submitted while earlier ones run; wait until none is left.
        for (let seen = 0; seen < context.jobs.length; seen = context.jobs.length) await Promise.allSettled(context.jobs);
      });
    } catch (err) {
      failure = err;
    }
    const open = (await options.queue.checksOf(delivery.id)).filter((check) => !check.posted && check.refused === null);
    const refused = failure instanceof WritesRefused || (failure instanceof AggregateError && failure.errors.some((e) => e instanceof WritesRefused));
    if ((failure === null || refused) && open.length === 0) {
      // Refused for the whole window: trying the delivery again would wait another window. The
      // reconcile sweep completes what is left open (or judges a head left without a check run).
      if (refused) log.error({ reason: messageOf(failure) }, "GitHub refused check run writes for the whole window: left to the reconcile sweep, not retried");
      else log.info({ durationMs: Date.now() - started }, "delivery handled");
      return;
    }
    const reason = failure !== null ? messageOf(failure) : `GitHub did not accept the completion of check run ${open.map((c) => c.id).join(", ")}`;
    const permanent = failure === null ? null : permanentReason(failure);
    if (!delivery.lastAttempt && permanent === null) {
      log.warn({ reason }, "delivery not finished: the queue will try again");
      throw new Error(reason);
    }
    if (permanent !== null) log.error({ reason: permanent }, `delivery dropped, not retried: ${permanent}`);
    else log.error({ reason }, "delivery failed on its last try: completing its open checks as failure");
    const github = open.length > 0 ? await octokit() : null;
    for (const check of open) {
      await complete(github as GitHub, check, "failure", `error: ${reason}`.slice(0, 200),
        `Ranex Gate could not finish this judgment after ${delivery.attempt} tries, so it fails closed.\n\n**Reason:** ${reason}\n\nA person with write access can comment \`/ranex rejudge\` after fixing the cause.`, clock())
        .then(() => options.queue.markPosted(check.id), (err: unknown) => log.error(err, "could not complete the check run after the last try"));
    }
    // Dropped: done, not failed, so the queue does not try it again.
    if (permanent !== null) return;
    throw new Error(reason);
  };
}

/**
 * Finishes an earlier try's check runs. A stored verdict completion (the outbox) is sent again; any
 * other open check was cut off (a crash, an error that could not even be posted) and is completed as
 * interrupted before the delivery is handled again. True when a verdict is out: no new judgment.
 */
async function settleEarlier(checks: CheckRecord[], octokit: GitHub, queue: DeliveryQueue, clock: () => Date, log: Logger): Promise<boolean> {
  let verdictOut = false;
  for (const check of checks) {
    // A creation GitHub refused exists only in the outbox: the reconcile sweep creates it.
    if (isRefusedCreation(check)) continue;
    if (!check.posted) {
      const { data } = await octokit.rest.checks.get({ owner: check.owner, repo: check.repo, check_run_id: check.id });
      if (data.status !== "completed") {
        if (check.verdict && check.completion !== null) {
          log.info({ checkRun: check.id }, "re-posting a completion GitHub never acknowledged");
          await octokit.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", { owner: check.owner, repo: check.repo, check_run_id: check.id, ...check.completion });
        } else {
          // Never a passing conclusion: this run has no verdict, and the head is judged again.
          await complete(octokit, check, "cancelled", "interrupted: judged again",
            "This judgment was cut off before it finished (the process judging it stopped), so it has no verdict. The same head is being judged again; see the newer `ranex/judge` check run.", clock());
        }
      }
      await queue.markPosted(check.id);
    }
    if (check.verdict && check.completion !== null) verdictOut = true;
  }
  return verdictOut;
}

/**
 * Finishes check runs an earlier try asked GitHub to create but never recorded (the process died
 * between GitHub's answer and the record): this app's runs of that name on that head, still open,
 * that no delivery of this store names. Completed as interrupted, never passing.
 */
async function settleUnrecorded(intents: CreateIntent[], appId: number | string, octokit: GitHub, queue: DeliveryQueue, clock: () => Date, log: Logger): Promise<void> {
  for (const intent of intents) {
    const { data } = await octokit.rest.checks.listForRef({ owner: intent.owner, repo: intent.repo, ref: intent.head, check_name: intent.name, app_id: Number(appId), filter: "all", per_page: 100 });
    for (const run of data.check_runs) {
      if (run.status === "completed" || await queue.checkRecord(run.id) !== null) continue;
      log.info({ checkRun: run.id }, "completing a check run an earlier try created but never recorded");
      await complete(octokit, { owner: intent.owner, repo: intent.repo, id: run.id }, "cancelled", "interrupted: judged again",
        "This judgment was cut off before it finished (the process judging it stopped), so it has no verdict. The same head is being judged again; see the newer check run.", clock());
    }
  }
}

function complete(octokit: GitHub, check: Pick<CheckRecord, "owner" | "repo" | "id">, conclusion: "failure" | "cancelled", title: string, summary: string, at: Date): Promise<unknown> {
  return octokit.rest.checks.update({
    owner: check.owner, repo: check.repo, check_run_id: check.id, status: "completed", conclusion,
    completed_at: at.toISOString().replace(/\.\d{3}Z$/, "Z"), output: { title, summary },
  });
}

function installationOf(payload: unknown): number | undefined {
  const id = (payload as { installation?: { id?: unknown } } | null)?.installation?.id;
  return typeof id === "number" ? id : undefined;
}

function messageOf(err: unknown): string {
  // Probot wraps handler errors in an AggregateError; the first inner one says what happened.
  const inner = err instanceof AggregateError && err.errors.length > 0 ? err.errors[0] as unknown : err;
  return inner instanceof Error ? inner.message : String(inner);
}
