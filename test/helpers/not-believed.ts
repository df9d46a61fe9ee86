import { expect } from "vitest";
import { judge } from "../../src/judge/judge.js";
import type { Verdict } from "../../src/kernel/types.js";
import { fixtureRepo, type FixtureName } from "./fixtures.js";

// The in-process forgery suites (test/judge/provenance.test.ts, redteam.test.ts): a head of a fixture
// judged end to end, and what a run the gate does not believe looks like.

export async function judgedHead(repoName: FixtureName, head: string, dataDir: string, task: string | null = "median"): Promise<Verdict> {
  const { verdict } = await judge({ source: await fixtureRepo(repoName), base: "main", head, task, dataDir });
  return verdict;
}

/** FAIL, class unsafe, tests.regression failing, its reason and details naming every string given. */
export function notBelieved(verdict: Verdict, ...mentions: string[]): void {
  const regression = verdict.claims.find((c) => c.name === "tests.regression");
  const text = `${regression?.reason ?? ""}\n${(regression?.details ?? []).map((d) => d.message).join("\n")}`;
  expect(verdict.verdict, text).toBe("FAIL");
  expect(regression?.status, text).toBe("fail");
  expect(verdict.class, text).toBe("unsafe");
  for (const mention of mentions) expect(text).toContain(mention);
}
