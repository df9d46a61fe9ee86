import { describe, expect, it } from "vitest";
import { judge } from "../../src/judge/judge.js";
import { git, tempDir, TestRepo } from "../helpers/git-repo.js";

// Issue 12, "what is judged": the diff claims see the pull request's own change (from the merge
// base), the tests what would land (head merged into the base tip). These judgments need no test
// run, so they stay fast; the runs over a moved base are in test/e2e/judge-cli.test.ts.

const POLICY = 'version: 1\ntests:\n  command: "true"\nscope:\n  allow: ["src/**"]\nrequire: [diff.frozen, diff.scope, diff.safety]\n';

describe("a criss-cross history cannot hide a change that lands", () => {
  // The agent's branch and main each merged the other once, so they have two merge bases. From
  // one of them (A1, which still has the old test) the revert of the owner's stronger test does
  // not show, yet git's merge (which first merges the two merge bases) lands it.
  function crissCross(): { repo: TestRepo; a1: string; m1: string } {
    const repo = TestRepo.init();
    repo.commit({ ".github/ranex.yml": POLICY, "tests/test_a.py": "def test_a():\n    assert True\n", "src/x.py": "x = 0\n" }, "c0");
    repo.branch("agent");
    const a1 = repo.commit({ "src/x.py": "x = 1\n" }, "a1: earlier agent work");
    repo.checkout("main");
    const m1 = repo.commit({ "tests/test_a.py": "def test_a():\n    assert 1 + 1 == 2\n" }, "m1: a stronger test");
    git(repo.dir, "merge", "-q", "--no-edit", a1);
    repo.checkout("agent");
    git(repo.dir, "merge", "-q", "--no-edit", m1);
    repo.commit({ "tests/test_a.py": "def test_a():\n    assert True\n", "src/x.py": "x = 2\n" }, "agent: x = 2 (and the old test back)");
    return { repo, a1, m1 };
  }

  it("the attack: from one merge base the revert is invisible, and the merge lands it", () => {
    const { repo, a1 } = crissCross();
    expect(git(repo.dir, "merge-base", "--all", "main", "agent").split("\n")).toHaveLength(2);
    // The merge base git (and so `git diff main...agent` and GitHub) picks is the blind one.
    expect(git(repo.dir, "merge-base", "main", "agent")).toBe(a1);
    expect(git(repo.dir, "diff", "--name-only", a1, "agent")).toBe("src/x.py");
    const merged = git(repo.dir, "merge-tree", "--write-tree", "main", "agent");
    expect(git(repo.dir, "show", `${merged}:tests/test_a.py`)).toContain("assert True");
  });

  it("is judged from every merge base: diff.frozen fails and says why", async () => {
    const { repo } = crissCross();
    const { verdict } = await judge({ source: repo.dir, base: "main", head: "agent", task: null, dataDir: tempDir() });
    expect(verdict.verdict).toBe("FAIL");
    expect(verdict.class).toBe("unsafe");
    const frozen = verdict.claims.find((c) => c.name === "diff.frozen");
    expect(frozen?.status).toBe("fail");
    expect(frozen?.reason).toContain("tests/test_a.py");
    expect(frozen?.reason).toMatch(/from merge base [0-9a-f]{7} \(head and base have 2 merge bases; merge or rebase the base branch/);
    expect(verdict.subject.mergedTree).toBe(git(repo.dir, "merge-tree", "--write-tree", "main", "agent"));
  });
});

describe("the subject of a judgment", () => {
  it("records base tip, merge base, head and merged tree; policy and task come from the base tip", async () => {
    const repo = TestRepo.init();
    const fork = repo.commit({ ".github/ranex.yml": POLICY, "src/a.py": "a = 1\n", "README.md": "one\n" });
    repo.branch("pr");
    repo.commit({ "src/b.py": "b = 1\n" });
    repo.checkout("main");
    // The base tip tightens the policy after the branch left: the tip's policy judges the change.
    const tip = repo.commit({ ".github/ranex.yml": POLICY.replace('allow: ["src/**"]', 'allow: ["src/a.py"]'), "README.md": "two\n" });
    const { verdict, facts } = await judge({ source: repo.dir, base: "main", head: "pr", task: null, dataDir: tempDir() });
    const s = verdict.subject;
    expect(s.base).toBe(tip);
    expect(s.mergeBase).toBe(fork);
    expect(s.head).toBe(git(repo.dir, "rev-parse", "pr"));
    expect(s.mergedTree).toBe(git(repo.dir, "merge-tree", "--write-tree", "main", "pr"));
    expect(facts.map((f) => f.path)).toEqual(["src/b.py"]);
    expect(verdict.claims.find((c) => c.name === "diff.scope")?.status).toBe("fail");
    expect(verdict.reasons.join("\n")).toContain("src/b.py");
    expect(verdict.reasons.join("\n")).not.toContain("README.md");
  });

  it("a head the base already merged has no change to judge", async () => {
    const repo = TestRepo.init();
    repo.commit({ ".github/ranex.yml": POLICY, "src/a.py": "a = 1\n" });
    repo.branch("pr");
    repo.commit({ "src/a.py": "a = 2\n" });
    repo.checkout("main");
    git(repo.dir, "merge", "-q", "--no-ff", "--no-edit", "pr");
    repo.commit({ "src/c.py": "c = 1\n" });
    const { verdict } = await judge({ source: repo.dir, base: "main", head: "pr", task: null, dataDir: tempDir() });
    expect(verdict.verdict).toBe("FAIL");
    expect(verdict.reasons[0]).toContain("no change to judge");
  });
});
