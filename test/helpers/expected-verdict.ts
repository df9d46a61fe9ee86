import { expect } from "vitest";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { fixtureRepo, loadExpectations, type Expectation, type FixtureName } from "./fixtures.js";

// A verdict held to its row in fixtures/repos/expected.json, whichever way it was judged: through the
// CLI (test/e2e/judge-cli.test.ts) or in process by the suites that look closer at one example
// (test/judge/loading, provenance, test-helpers, frozen-data). Each row is judged once in the suite.

interface VerdictLike {
  verdict: string;
  class: string | null;
  claims: readonly { name: string; status: string; reason: string; details: readonly { message: string; path?: string }[] }[];
  missing: readonly string[];
}

/** Everything a person reads about the failing claims: reasons, detail messages and paths. */
export function failingText(verdict: VerdictLike): string {
  return verdict.claims.filter((c) => c.status !== "pass")
    .map((c) => [c.name, c.reason, ...c.details.map((d) => `${d.message} ${d.path ?? ""}`)].join("\n")).join("\n");
}

/** The verdict, the claims that must fail (each with a reason), the class and the text the row names. */
export function expectAsExpected(verdict: VerdictLike, want: Expectation, more = ""): void {
  const context = `verdict ${verdict.verdict}; failing claims:\n${failingText(verdict)}${more}`;
  expect(verdict.verdict, context).toBe(want.verdict);
  for (const name of want.fails) {
    const claim = verdict.claims.find((c) => c.name === name);
    if (claim === undefined) throw new Error(`the verdict has no claim ${name}; it has ${verdict.claims.map((c) => c.name).join(", ")}`);
    expect(claim.status, `${name}: ${claim.reason}`).toBe("fail");
    expect(claim.reason.trim(), `${name} fails without a reason`).not.toBe("");
  }
  if (want.class !== undefined) expect(verdict.class, context).toBe(want.class);
  for (const text of want.mentions ?? []) expect(failingText(verdict), `the failing claims should name ${text}`).toContain(text);
  if (want.verdict === "CANDIDATE") {
    expect(verdict.class).toBeNull();
    expect(verdict.missing).toEqual(["approval.independent"]);
    const notPassing = verdict.claims.filter((c) => c.name !== "approval.independent" && c.status !== "pass");
    expect(notPassing.map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
  }
}

/** An example head judged in process with its row's base and task, and held to that row. */
export async function judgedAsExpected(repo: FixtureName, head: string, dataDir: string): Promise<Judgment> {
  const want = loadExpectations()[repo][head];
  if (want === undefined) throw new Error(`fixtures/repos/expected.json has no row ${repo}@${head}`);
  const judgment = await judge({ source: await fixtureRepo(repo), base: want.base ?? "main", head, task: want.task ?? null, dataDir });
  expectAsExpected(judgment.verdict, want, `\n(${repo}@${head})`);
  return judgment;
}
