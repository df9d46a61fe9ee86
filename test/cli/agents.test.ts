import { describe, expect, it } from "vitest";
import { mergeAuthority } from "../../src/github/approval/deps.js";
import { journalDeps } from "../../src/github/journal-deps.js";
import { evaluate, makeGate, subjectDigest, type Subject } from "../../src/kernel/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { ranex } from "./cli-capture.js";

// `ranex agents` and `ranex journal show --overrides` (issue 23) over a real signed journal.

async function journalWithOverride() {
  const dataDir = tempDir();
  const journal = journalDeps({ dataDir });
  const specs = [{ fail: true, agent: "codex[bot]", time: "2026-01-06T10:00:00Z", pull: 1 }, { fail: false, agent: "codex[bot]", time: "2026-01-14T10:00:00Z", pull: 1 }];
  const ids: string[] = [];
  for (const [i, spec] of specs.entries()) {
    const subject: Subject = { repository: "acme/w", base: "b".repeat(40), head: `${i + 1}`.repeat(40), baseTree: "c".repeat(40), headTree: "d".repeat(40), policy: null, task: null, sandbox: null };
    const verdict = evaluate(makeGate(["diff.scope"]), [{ claim: "diff.scope", subject: subjectDigest(subject), outcome: spec.fail ? "fail" : "pass", reason: "r", details: [] }], subject, null);
    const recorded = await journal.record({ verdict, evidence: [], facts: [], timings: {} }, { repository: "acme/w", ref: `refs/pull/${spec.pull}/head`, time: spec.time, agent: spec.agent, queuedAt: new Date(Date.parse(spec.time) - 30_000).toISOString() });
    ids.push(recorded.journalId);
    if (spec.fail) {
      await mergeAuthority({ dataDir }).recordOverride({
        repository: "acme/w", pullRequest: 1, head: subject.head, base: subject.base, by: "maria", role: "admin", reason: "Scope rule predates the new folder layout.", time: spec.time,
        overrides: { entry: recorded.journalId, verdict: "FAIL", class: verdict.class, digest: verdict.subject.digest, reasons: verdict.reasons, failing: verdict.claims.filter((c) => c.status !== "pass") },
      });
    }
  }
  return { dataDir, ids };
}

describe("ranex agents", () => {
  it("prints the agents page's numbers, as JSON and as text", async () => {
    const { dataDir } = await journalWithOverride();
    const json = await ranex(["agents", "--repo", "acme/w", "--json", "--data-dir", dataDir]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ repository: "acme/w", judgments: 2, overrides: 1, weeks: ["2026-01-05", "2026-01-12"] });
    expect(report.agents[0]).toMatchObject({ agent: "codex[bot]", pullRequests: 1, judgments: 2, candidates: 1, candidateRate: 0.5, retries: 1, overridesBy: [{ name: "maria", count: 1 }], latency: { median: 30_000, p90: 30_000 } });
    const text = await ranex(["agents", "--repo", "acme/w", "--data-dir", dataDir]);
    expect(text.stdout).toContain("CANDIDATE rate    50%");
    expect(text.stdout).toContain("overrides         1 (@maria 1)");
    expect(text.stdout).toContain("push to verdict   median 30 s, p90 30 s (2 timed)");
    expect((await ranex(["agents", "--repo", "acme/none", "--data-dir", dataDir])).stdout).toBe("acme/none: no agent's pull request has been judged yet.\n");
  });

  it("needs owner/name and a journal", async () => {
    expect((await ranex(["agents", "--repo", "nope", "--data-dir", tempDir()])).code).toBe(2);
    expect((await ranex(["agents", "--repo", "a/b", "--data-dir", tempDir()])).stderr).toMatch(/no journal at/);
  });
});

describe("ranex journal show --overrides, and verify", () => {
  it("lists every override with the verdict it overrides, and the chain verifies with it", async () => {
    const { dataDir, ids } = await journalWithOverride();
    const shown = await ranex(["journal", "show", "--overrides", "--data-dir", dataDir]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^2 \\S+ 2026-01-06T10:00:00Z acme/w#1 1111111 by @maria \\(admin\\) overrides FAIL \\(incomplete\\) entry ${ids[0]} \\[diff.scope\\]: Scope rule predates the new folder layout.\\n$`));
    expect((await ranex(["journal", "show", "--overrides", "--repo", "other/repo", "--data-dir", dataDir])).stdout).toBe("no overrides\n");
    const verified = await ranex(["journal", "verify", "--data-dir", dataDir]);
    expect(verified.stdout).toMatch(/^journal ok: 3 entries/);
  });
});
