import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { evaluate, makeGate, subjectDigest, type Subject } from "../../src/kernel/index.js";
import { healthCheck } from "../../src/ops/health.js";
import { Metrics } from "../../src/ops/metrics.js";
import { opsRoutes } from "../../src/ops/routes.js";
import { SqliteQueue } from "../../src/queue/sqlite.js";
import { GATE_VERSION } from "../../src/version.js";
import { tempDir } from "../helpers/git-repo.js";

// /healthz names the part that fails; /metrics carries judge stages, verdicts and timeouts.

const subject: Subject = { repository: "o/r", base: "a".repeat(40), head: "b".repeat(40), baseTree: "c".repeat(40), headTree: "d".repeat(40), policy: null, task: null, sandbox: null };

async function serve(handler: ReturnType<typeof opsRoutes>): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => void handler(req, res).then((done) => { if (!done) res.writeHead(404).end(); }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe("ops routes", () => {
  it("answers /healthz 200 when all parts hold, 503 naming the journal when it does not", async () => {
    const queue = new SqliteQueue(tempDir("ranex-ops-"));
    await queue.enqueue({ id: "x", name: "pull_request", payload: {} }, null);
    let journalUp = true;
    const health = healthCheck({ queue, judges: true, sandbox: async () => ({ ok: true }), journalHead: async () => { if (!journalUp) throw new Error("connection refused"); return null; } });
    const { url, close } = await serve(opsRoutes({ health, metrics: new Metrics(queue) }));
    try {
      const up = await fetch(`${url}/healthz`);
      expect(up.status).toBe(200);
      expect(await up.json()).toEqual({ ok: true, version: GATE_VERSION, journal: { ok: true }, sandbox: { ok: true }, queue: { ok: true, kind: "sqlite", queued: 1, active: 0 } });
      journalUp = false;
      const down = await fetch(`${url}/healthz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({ ok: false, journal: { ok: false, error: "connection refused" } });
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toContain('ranex_queue_depth{state="queued"} 1');
    } finally {
      close();
      await queue.stop(100);
    }
  });

  it("skips the sandbox on a webhook-only replica", async () => {
    const queue = new SqliteQueue(tempDir("ranex-ops-"));
    const health = await healthCheck({ queue, judges: false, journalHead: async () => null, sandbox: async () => ({ ok: false, problem: "no bwrap" }) })();
    expect(health).toMatchObject({ ok: true, sandbox: { ok: true, skipped: "this replica does not judge" } });
    await queue.stop(100);
  });

  it("records judge stages, the verdict with its class, claim results and sandbox timeouts", async () => {
    const metrics = new Metrics();
    const verdict = evaluate(makeGate(["tests.regression"]), [{
      claim: "tests.regression", subject: subjectDigest(subject), outcome: "fail", details: [], reason: "the head run timed out after 300 s",
    }], subject, null);
    metrics.observeJudgment({ verdict, evidence: [], facts: [], timings: { fetch: 1500, measure: 42_000 } });
    const text = await metrics.registry.metrics();
    expect(text).toContain('ranex_judge_stage_duration_seconds_count{stage="fetch"} 1');
    expect(text).toContain('ranex_judge_stage_duration_seconds_bucket{le="60",stage="measure"} 1');
    expect(text).toContain('ranex_judge_stage_duration_seconds_bucket{le="30",stage="measure"} 0');
    expect(text).toContain(`ranex_verdicts_total{verdict="FAIL",class="${verdict.class}"} 1`);
    expect(text).toContain('ranex_claim_results_total{claim="tests.regression",status="fail"} 1');
    expect(text).toContain('ranex_sandbox_timeouts_total{claim="tests.regression"} 1');
  });
});
