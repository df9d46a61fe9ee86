// Prometheus metrics (GET /metrics). One registry per process, so tests and a second server in the
// same process never mix their counts.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Judgment } from "../judge/judge.js";
import type { DeliveryQueue } from "../queue/types.js";

// Judge stages run from milliseconds (diff) to many minutes (tests on a large repository).
const STAGE_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
const WEBHOOK_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2.5, 5];

export class Metrics {
  readonly registry = new Registry();
  readonly webhook = new Histogram({ name: "ranex_webhook_duration_seconds", help: "Time to verify, store and answer a webhook delivery", labelNames: ["event", "status"], buckets: WEBHOOK_BUCKETS, registers: [this.registry] });
  readonly stage = new Histogram({ name: "ranex_judge_stage_duration_seconds", help: "Duration of each judge stage (fetch, policy, diff, measure, evaluate, ...)", labelNames: ["stage"], buckets: STAGE_BUCKETS, registers: [this.registry] });
  readonly queueWait = new Histogram({ name: "ranex_queue_wait_seconds", help: "Time a delivery waited in the queue before its first try", buckets: STAGE_BUCKETS, registers: [this.registry] });
  readonly verdicts = new Counter({ name: "ranex_verdicts_total", help: "Verdicts by outcome and fail class", labelNames: ["verdict", "class"], registers: [this.registry] });
  readonly claims = new Counter({ name: "ranex_claim_results_total", help: "Claim results in verdicts, by claim and status", labelNames: ["claim", "status"], registers: [this.registry] });
  readonly sandboxTimeouts = new Counter({ name: "ranex_sandbox_timeouts_total", help: "Claims that failed because a sandboxed run timed out", labelNames: ["claim"], registers: [this.registry] });

  constructor(queue?: DeliveryQueue) {
    collectDefaultMetrics({ register: this.registry });
    if (queue !== undefined) {
      new Gauge({
        name: "ranex_queue_depth", help: "Deliveries waiting or being handled", labelNames: ["state"], registers: [this.registry],
        async collect() {
          const depth = await queue.depth().catch(() => ({ queued: Number.NaN, active: Number.NaN }));
          this.set({ state: "queued" }, depth.queued);
          this.set({ state: "active" }, depth.active);
        },
      });
    }
  }

  /** Records what one judgment measured. */
  observeJudgment(judgment: Judgment): void {
    for (const [stage, ms] of Object.entries(judgment.timings)) this.stage.observe({ stage }, ms / 1000);
    const { verdict } = judgment;
    this.verdicts.inc({ verdict: verdict.verdict, class: verdict.class ?? "none" });
    for (const claim of verdict.claims) {
      this.claims.inc({ claim: claim.name, status: claim.status });
      // The measurer names a timeout in the claim's reason ("timed out after 300 s", "a timeout").
      if (claim.status === "fail" && /timed out|a timeout/i.test(claim.reason)) this.sandboxTimeouts.inc({ claim: claim.name });
    }
  }
}
