import { describe, expect, it } from "vitest";
import { agentsReport, latencyOf, median, percentile, weekRange, weekStart, type JudgmentRow } from "../../src/web/agents/stats.js";

// The agents page's numbers (issue 23): a pure function of journal rows, shared with `ranex agents`.

function row(n: number, over: Partial<JudgmentRow>): JudgmentRow {
  return { id: `v${n}`, sequence: n, pull: 1, head: `${n}`.repeat(40), agent: "bot", verdict: "CANDIDATE", class: null, failing: [], time: "2026-01-06T10:00:00Z", queuedAt: null, ...over };
}

describe("agentsReport", () => {
  it("is empty for an empty journal", () => {
    expect(agentsReport([], [])).toEqual({ judgments: 0, overrides: 0, weeks: [], agents: [] });
  });

  it("counts one verdict: one week, its latency as both median and p90", () => {
    const report = agentsReport([row(1, { queuedAt: "2026-01-06T09:59:00Z" })], []);
    expect(report.weeks).toEqual(["2026-01-05"]);
    expect(report.agents[0]).toMatchObject({ agent: "bot", pullRequests: 1, judgments: 1, candidates: 1, candidateRate: 1, retries: 0, latency: { median: 60_000, p90: 60_000, measured: 1 } });
  });

  it("counts FAILs by class and claim, retries, overrides by who, per agent, on one week axis with empty weeks", () => {
    const rows = [
      row(1, { verdict: "FAIL", class: "incomplete", failing: ["tests.regression", "tests.regression"], pull: 1 }),
      row(2, { verdict: "FAIL", class: "unsafe", failing: ["secrets"], pull: 2, time: "2026-01-20T10:00:00Z" }),
      row(3, { agent: "label:x", verdict: "FAIL", class: "incomplete", failing: ["diff.scope", "tests.regression"], pull: 9, time: "2026-01-21T00:00:00Z" }),
    ];
    const report = agentsReport(rows, [{ id: "o1", verdictEntry: "v3", pull: 9, by: "maria", reason: "r", time: "t" }, { id: "o2", verdictEntry: "elsewhere", pull: 1, by: "z", reason: "r", time: "t" }]);
    expect(report.weeks).toEqual(["2026-01-05", "2026-01-12", "2026-01-19"]);
    expect(report.overrides).toBe(1);
    const [bot, label] = report.agents;
    expect(bot).toMatchObject({ agent: "bot", fails: 2, failsByClass: { unsafe: 1, incomplete: 1 }, retries: 1, overrides: 0, candidateRate: 0 });
    expect(bot!.failsByClaim).toEqual([{ name: "secrets", count: 1 }, { name: "tests.regression", count: 1 }]);
    expect(bot!.weeks.map((w) => w.judgments)).toEqual([1, 0, 1]);
    expect(label).toMatchObject({ agent: "label:x", overrides: 1, overridesBy: [{ name: "maria", count: 1 }] });
    expect(label!.weeks.map((w) => w.overrides)).toEqual([0, 0, 1]);
    expect(label!.last[0]).toMatchObject({ id: "v3", overriddenBy: "maria" });
  });
});

describe("the small measures", () => {
  it("median, nearest-rank p90, latency that ignores a missing or backwards clock", () => {
    expect(median([3, 1, 2, 10])).toBe(2.5);
    expect(percentile([30, 45, 60, 90, 120], 0.9)).toBe(120);
    expect(percentile([100, 200, 300], 0.9)).toBe(300);
    expect(percentile(Array.from({ length: 20 }, (_, i) => i + 1), 0.9)).toBe(18);
    expect(latencyOf({ time: "2026-01-01T00:00:00Z", queuedAt: "2026-01-01T00:01:00Z" })).toBeNull();
    expect(latencyOf({ time: "2026-01-01T00:00:00Z", queuedAt: null })).toBeNull();
  });

  it("weeks start on Monday, UTC", () => {
    expect(weekStart("2026-01-05T00:00:00Z")).toBe("2026-01-05");
    expect(weekStart("2026-01-11T23:59:59Z")).toBe("2026-01-05");
    expect(weekRange(["2026-01-27T00:00:00Z", "2026-01-06T00:00:00Z"])).toEqual(["2026-01-05", "2026-01-12", "2026-01-19", "2026-01-26"]);
  });
});
