import { describe, expect, it } from "vitest";
import { baseAheadDetails, BASE_AHEAD_LIMIT, carryBaseAhead } from "../../src/judge/base-ahead.js";
import { judge } from "../../src/judge/judge.js";
import type { Evidence } from "../../src/kernel/index.js";
import { git, tempDir, TestRepo } from "../helpers/git-repo.js";

// What the base tip has that the head has not rides in the signed verdict as details (issue 13):
// the reviewer's brief lists it. These judgments run no tests, so they stay fast; the runs over
// python-calc's moved base are in test/e2e/judge-cli.test.ts and test/github/commands/brief-real.test.ts.

const TIP = "1".repeat(40);
const HEAD = "2".repeat(40);

describe("baseAheadDetails", () => {
  it("says the head contains the tip when nothing is ahead", () => {
    expect(baseAheadDetails(TIP, HEAD, { total: 0, commits: [] }, [])).toEqual([
      { kind: "base-contained", message: "head 2222222 contains base tip 1111111: the base has no commit the head lacks" },
    ]);
  });

  it("lists each commit with its subject and paths, the pull request's own paths first, and counts the rest", () => {
    const details = baseAheadDetails(TIP, HEAD, {
      total: 7,
      commits: [
        { sha: "a".repeat(40), subject: "stats: total", paths: ["README.md", "a", "b", "c", "d", "e", "src/calc.py"] },
        { sha: "b".repeat(40), subject: `evil\u001b[31m ${"x".repeat(200)}`, paths: ["line\nbreak.txt"] },
        { sha: "c".repeat(40), subject: "", paths: [] },
      ],
    }, ["src/calc.py", "tests/test_mul.py"]);
    expect(details.map((d) => d.kind)).toEqual(["base-ahead", "base-ahead", "base-ahead", "base-ahead"]);
    expect(details[0]?.message).toBe("on the base tip, not in the head: aaaaaaa stats: total (changes src/calc.py, README.md, a, b, c and 2 more; the pull request changes src/calc.py too)");
    // Untrusted text stays one printable line, and long subjects are cut.
    expect(details[1]?.message).toMatch(/^on the base tip, not in the head: bbbbbbb evil\\u001b\[31m x+… \(changes "line\\nbreak\.txt"\)$/);
    expect(details[1]?.message.length).toBeLessThan(220);
    expect(details[2]?.message).toBe("on the base tip, not in the head: ccccccc (no subject) (changes no file)");
    expect(details[3]?.message).toBe("and 4 more commits on the base tip, not in the head (7 in all: git log 2222222..1111111)");
  });
});

describe("carryBaseAhead", () => {
  const ev = (claim: string, outcome: Evidence["outcome"] = "pass"): Evidence => ({ claim, subject: "s", outcome, reason: "r", details: [{ message: "own" }] });
  const extra = [{ kind: "base-ahead", message: "m" }];

  it("rides on tests.regression, else the first diff claim required, else the first required claim with evidence", () => {
    const all = [ev("diff.frozen"), ev("diff.scope"), ev("tests.regression", "fail"), ev("tests.regression")];
    const carried = carryBaseAhead(all, ["diff.frozen", "diff.scope", "tests.regression"], extra);
    expect(carried.filter((e) => e.details.length === 2).map((e) => e.claim)).toEqual(["tests.regression", "tests.regression"]);
    expect(carryBaseAhead(all, ["diff.frozen", "diff.scope"], extra).filter((e) => e.details.length === 2).map((e) => e.claim)).toEqual(["diff.scope"]);
    expect(carryBaseAhead([ev("check:lint"), ev("secrets")], ["secrets", "check:lint"], extra).filter((e) => e.details.length === 2).map((e) => e.claim)).toEqual(["secrets"]);
    // Evidence of a claim the gate does not require would be dropped by the kernel: never a carrier.
    expect(carryBaseAhead([ev("diff.scope")], ["check:lint"], extra)).toEqual([ev("diff.scope")]);
  });
});

const POLICY = 'version: 1\ntests:\n  command: "true"\nscope:\n  allow: ["src/**"]\nrequire: [diff.frozen, diff.scope, diff.safety]\n';

describe("a judgment records what the base tip has that the head has not", () => {
  it("a head behind its base: the newest commits, bounded, on diff.scope; the verdict is the same CANDIDATE", async () => {
    const repo = TestRepo.init();
    repo.commit({ ".github/ranex.yml": POLICY, "src/a.py": "a = 1\n" }, "start");
    repo.branch("pr");
    repo.commit({ "src/a.py": "a = 2\n" }, "agent: a = 2");
    repo.checkout("main");
    for (let i = 1; i <= BASE_AHEAD_LIMIT + 3; i++) repo.commit({ [`src/m${i}.py`]: `m = ${i}\n` }, `main work ${i}`);
    const newest = git(repo.dir, "rev-parse", "main");
    const { verdict } = await judge({ source: repo.dir, base: "main", head: "pr", task: null, dataDir: tempDir() });
    expect(verdict.verdict).toBe("CANDIDATE");
    const scope = verdict.claims.find((c) => c.name === "diff.scope")!;
    expect(scope.status).toBe("pass");
    const ahead = scope.details.filter((d) => d.kind === "base-ahead").map((d) => d.message);
    expect(ahead).toHaveLength(BASE_AHEAD_LIMIT + 1);
    expect(ahead[0]).toBe(`on the base tip, not in the head: ${newest.slice(0, 7)} main work ${BASE_AHEAD_LIMIT + 3} (changes src/m${BASE_AHEAD_LIMIT + 3}.py)`);
    expect(ahead.at(-1)).toMatch(/^and 3 more commits on the base tip, not in the head \(23 in all: git log [0-9a-f]{7}\.\.[0-9a-f]{7}\)$/);
    expect(verdict.claims.flatMap((c) => c.details).filter((d) => d.kind === "base-contained")).toEqual([]);
  });

  it("a head that contains the tip (up to date, or the base merged in): one base-contained detail", async () => {
    const repo = TestRepo.init();
    repo.commit({ ".github/ranex.yml": POLICY, "src/a.py": "a = 1\n" }, "start");
    repo.branch("pr");
    repo.commit({ "src/a.py": "a = 2\n" }, "agent: a = 2");
    const { verdict } = await judge({ source: repo.dir, base: "main", head: "pr", task: null, dataDir: tempDir() });
    expect(verdict.verdict).toBe("CANDIDATE");
    const details = verdict.claims.flatMap((c) => c.details.filter((d) => d.kind?.startsWith("base-")).map((d) => ({ claim: c.name, ...d })));
    expect(details).toEqual([{ claim: "diff.scope", kind: "base-contained", message: expect.stringMatching(/^head [0-9a-f]{7} contains base tip [0-9a-f]{7}: /) }]);
  });
});
