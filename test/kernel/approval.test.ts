import { describe, expect, it } from "vitest";
import {
  approvalInputs, approvedVerdict, bindingProblems, coAuthorsOf, noreplyLogin, qualifyApprovals,
  type ApprovalFacts, type CommitFacts, type PushFacts, type ReviewFacts, type ReviewerFacts,
} from "../../src/kernel/approval.js";
import { evaluate, makeGate } from "../../src/kernel/index.js";
import { ev, SUBJECT } from "./fixtures.js";

const HEAD = SUBJECT.head;
const OLD = "0".repeat(40);

function commit(sha: string, extra: Partial<CommitFacts> = {}): CommitFacts {
  return {
    sha, message: "Add mul",
    author: { login: "agent-bot[bot]", name: "agent-bot", email: "1+agent-bot[bot]@users.noreply.github.com" },
    committer: { login: "web-flow", name: "GitHub", email: "noreply@github.com" },
    ...extra,
  };
}

function review(login: string, extra: Partial<ReviewFacts> = {}): ReviewFacts {
  return { id: 100 + login.length, login, userType: "User", state: "APPROVED", commitId: HEAD, ...extra };
}

const WRITER: ReviewerFacts = { role: "write", teams: [], name: null, email: null };

function facts(extra: Partial<ApprovalFacts> = {}): ApprovalFacts {
  return {
    head: HEAD, author: "agent-bot[bot]", commits: [commit("a".repeat(40))],
    reviews: [review("alice")], reviewers: { alice: WRITER },
    policy: { count: 1, teams: [], operators: [] }, appLogin: "ranex-gate[bot]",
    pushes: [], commitCount: 1,
    ...extra,
  };
}

function refusal(f: ApprovalFacts, login = "alice"): string[] {
  const decision = qualifyApprovals(f);
  expect(decision.satisfied).toBe(false);
  return decision.refused.find((r) => r.login === login)?.reasons ?? [];
}

describe("qualifyApprovals", () => {
  it("counts an approval of the head by an independent writer", () => {
    const decision = qualifyApprovals(facts());
    expect(decision).toMatchObject({ satisfied: true, needed: 1, qualifying: [{ login: "alice", reviewId: 105 }], refused: [] });
  });

  it.each([["write"], ["maintain"], ["admin"]])("accepts role %s", (role) => {
    expect(qualifyApprovals(facts({ reviewers: { alice: { ...WRITER, role } } })).satisfied).toBe(true);
  });

  it("refuses the PR author", () => {
    expect(refusal(facts({ author: "alice" }))).toEqual(["opened this pull request"]);
  });

  it("refuses a commit author matched by login", () => {
    const c = commit("a".repeat(40), { author: { login: "Alice", name: "A", email: "a@example.com" } });
    expect(refusal(facts({ commits: [c] }))).toEqual(["authored commit aaaaaaa"]);
  });

  it("refuses a committer", () => {
    const c = commit("c".repeat(40), { committer: { login: "alice", name: "Alice", email: "alice@example.com" } });
    expect(refusal(facts({ commits: [c] }))).toEqual(["committed ccccccc"]);
  });

  it("refuses a commit author GitHub matched to no account, by the reviewer's public e-mail", () => {
    const c = commit("a".repeat(40), { author: { login: null, name: "Someone", email: "Alice@Example.com" } });
    expect(refusal(facts({ commits: [c], reviewers: { alice: { ...WRITER, email: "alice@example.com" } } }))).toEqual(["authored commit aaaaaaa"]);
  });

  it("refuses a Co-authored-by by no-reply e-mail (id+login form)", () => {
    const c = commit("a".repeat(40), { message: "Add mul\n\nCo-authored-by: Someone Else <583231+alice@users.noreply.github.com>\n" });
    expect(refusal(facts({ commits: [c] }))).toEqual(["is a Co-authored-by of commit aaaaaaa"]);
  });

  it("refuses a Co-authored-by by plain e-mail: the public profile e-mail", () => {
    const c = commit("a".repeat(40), { message: "Add mul\n\nco-authored-by: A. L. <alice@corp.example>" });
    expect(refusal(facts({ commits: [c], reviewers: { alice: { ...WRITER, email: "ALICE@corp.example" } } }))).toEqual(["is a Co-authored-by of commit aaaaaaa"]);
  });

  it("refuses a Co-authored-by by plain e-mail GitHub attributed to the reviewer in another commit", () => {
    const first = commit("a".repeat(40), { message: "x\n\nCo-authored-by: Nobody <me@home.example>" });
    const second = commit("b".repeat(40), { committer: { login: "alice", name: "x", email: "me@home.example" } });
    expect(refusal(facts({ commits: [first, second] }))).toEqual(["is a Co-authored-by of commit aaaaaaa", "committed bbbbbbb"]);
  });

  it("refuses a Co-authored-by by name (profile name or login)", () => {
    const c = commit("a".repeat(40), { message: "x\n\nCo-authored-by: Alice Liddell <unknown@example.com>" });
    expect(refusal(facts({ commits: [c], reviewers: { alice: { ...WRITER, name: "alice liddell" } } }))).toEqual(["is a Co-authored-by of commit aaaaaaa"]);
    const byLogin = commit("a".repeat(40), { message: "x\n\nCo-authored-by: alice <x@y.example>" });
    expect(refusal(facts({ commits: [byLogin] }))).toEqual(["is a Co-authored-by of commit aaaaaaa"]);
  });

  it("does not refuse a co-author it cannot match (private e-mail, other name)", () => {
    const c = commit("a".repeat(40), { message: "x\n\nCo-authored-by: Bob <bob@private.example>" });
    expect(qualifyApprovals(facts({ commits: [c] })).satisfied).toBe(true);
  });

  it("refuses an agent operator named in the policy, with or without @", () => {
    expect(refusal(facts({ policy: { count: 1, teams: [], operators: ["@Alice"] } }))).toEqual(["runs the agents (agents.operators in .github/ranex.yml)"]);
  });

  it("refuses a bot and the app itself", () => {
    const bot = review("helper[bot]", { userType: "Bot" });
    expect(refusal(facts({ reviews: [bot], reviewers: { "helper[bot]": WRITER } }), "helper[bot]")).toEqual(["is not a human account (type Bot)"]);
    const app = review("ranex-gate[bot]", { userType: "Bot" });
    expect(refusal(facts({ reviews: [app], reviewers: { "ranex-gate[bot]": WRITER } }), "ranex-gate[bot]")).toEqual(["is this app", "is not a human account (type Bot)"]);
  });

  it("refuses an approval of an older sha", () => {
    expect(refusal(facts({ reviews: [review("alice", { commitId: OLD })] }))).toEqual([`approved commit 0000000, not the head ${HEAD.slice(0, 7)}`]);
  });

  it("refuses missing permission, and names the teams when the policy has some", () => {
    expect(refusal(facts({ reviewers: { alice: { ...WRITER, role: "read" } } }))).toEqual(["has read permission; approving needs write, maintain or admin"]);
    expect(refusal(facts({ reviewers: { alice: { ...WRITER, role: null } }, policy: { count: 1, teams: ["octo/reviewers"], operators: [] } })))
      .toEqual(["is not a collaborator; approving needs write, maintain or admin, or membership in octo/reviewers"]);
    expect(refusal(facts({ reviewers: {} }))).toEqual(["their permission could not be determined"]);
  });

  it("accepts a member of an approval team without write permission", () => {
    const f = facts({ reviewers: { alice: { ...WRITER, role: "read", teams: ["Octo/Reviewers"] } }, policy: { count: 1, teams: ["octo/reviewers"], operators: [] } });
    expect(qualifyApprovals(f).satisfied).toBe(true);
  });

  it("takes each reviewer's latest review; a comment does not withdraw, a dismissal or change request does", () => {
    const approvedThenCommented = [review("alice", { id: 1 }), review("alice", { id: 2, state: "COMMENTED" })];
    expect(qualifyApprovals(facts({ reviews: approvedThenCommented })).qualifying).toEqual([{ login: "alice", reviewId: 1 }]);
    const dismissed = [review("alice", { id: 1, state: "DISMISSED" })];
    expect(refusal(facts({ reviews: dismissed }))).toEqual(["their approval was dismissed"]);
    const changes = [review("alice", { id: 1 }), review("alice", { id: 2, state: "CHANGES_REQUESTED" })];
    expect(qualifyApprovals(facts({ reviews: changes }))).toMatchObject({ satisfied: false, qualifying: [], refused: [] });
    const olderThenHead = [review("alice", { id: 1, commitId: OLD }), review("alice", { id: 2 })];
    expect(qualifyApprovals(facts({ reviews: olderThenHead })).qualifying).toEqual([{ login: "alice", reviewId: 2 }]);
  });

  it("needs approval.count qualifying approvals; two approvals where one is disqualified are one", () => {
    const reviews = [review("alice"), review("bob")];
    const reviewers = { alice: WRITER, bob: WRITER };
    const c = commit("a".repeat(40), { author: { login: "bob", name: "Bob", email: "bob@example.com" } });
    const decision = qualifyApprovals(facts({ reviews, reviewers, commits: [c], policy: { count: 2, teams: [], operators: [] } }));
    expect(decision).toMatchObject({ satisfied: false, needed: 2, qualifying: [{ login: "alice" }], refused: [{ login: "bob", reasons: ["authored commit aaaaaaa"] }] });
    expect(qualifyApprovals(facts({ reviews, reviewers, policy: { count: 2, teams: [], operators: [] } })).satisfied).toBe(true);
    expect(qualifyApprovals(facts({ reviews, reviewers, commits: [c] })).satisfied).toBe(true);
  });

  it("lists everyone with a hand in the change, once, and never GitHub's web committer", () => {
    const c = commit("a".repeat(40), { message: "x\n\nCo-authored-by: Pat <pat@example.com>\nCo-authored-by: Pat <pat@example.com>" });
    const decision = qualifyApprovals(facts({ commits: [c], policy: { count: 1, teams: [], operators: ["carol"] } }));
    expect(decision.ineligible).toEqual([
      { who: "@agent-bot[bot]", reason: "opened this pull request" },
      { who: "@agent-bot[bot]", reason: "authored commit aaaaaaa" },
      { who: "Pat <pat@example.com>", reason: "is a Co-authored-by of commit aaaaaaa" },
      { who: "@carol", reason: "runs the agents (agents.operators in .github/ranex.yml)" },
    ]);
  });
});

describe("trailers and no-reply addresses", () => {
  it("reads Co-authored-by trailers in any case", () => {
    expect(coAuthorsOf("t\n\nCo-authored-by: A B <a@b.c>\nCO-AUTHORED-BY:C<c@d.e>\nSigned-off-by: X <x@y.z>")).toEqual([
      { name: "A B", email: "a@b.c" }, { name: "C", email: "c@d.e" },
    ]);
  });

  it("takes the login out of both no-reply forms, and nothing else", () => {
    expect(noreplyLogin("583231+octocat@users.noreply.github.com")).toBe("octocat");
    expect(noreplyLogin("octocat@users.noreply.github.com")).toBe("octocat");
    expect(noreplyLogin("41898282+github-actions[bot]@users.noreply.github.com")).toBe("github-actions[bot]");
    expect(noreplyLogin("octocat@example.com")).toBeNull();
    expect(noreplyLogin("octocat@users.noreply.github.com.evil.example")).toBeNull();
  });
});

describe("the approval through the kernel", () => {
  const candidate = evaluate(makeGate(["diff.frozen", "secrets"]), [ev("diff.frozen", "pass"), ev("secrets", "pass")], SUBJECT, null);

  it("turns a CANDIDATE into a PASS naming the approver, byte-identical to evaluating the original evidence", () => {
    const passed = approvedVerdict(candidate, qualifyApprovals(facts()));
    expect(passed?.verdict).toBe("PASS");
    expect(passed?.claims.at(-1)).toMatchObject({ name: "approval.independent", status: "pass", reason: `approved by alice on ${HEAD}` });
    const direct = evaluate(makeGate(["diff.frozen", "secrets"]), [ev("diff.frozen", "pass"), ev("secrets", "pass")], SUBJECT, { login: "alice", sha: HEAD });
    expect(passed?.claims.map((c) => [c.name, c.status, c.reason])).toEqual(direct.claims.map((c) => [c.name, c.status, c.reason]));
  });

  it("gives no PASS without enough approvals, or for another head", () => {
    expect(approvedVerdict(candidate, qualifyApprovals(facts({ reviews: [] })))).toBeNull();
    expect(approvedVerdict(candidate, { ...qualifyApprovals(facts()), head: OLD })).toBeNull();
  });

  it("refuses to approve a FAIL", () => {
    const fail = evaluate(makeGate(["diff.frozen"]), [ev("diff.frozen", "fail")], SUBJECT, null);
    expect(() => approvalInputs(fail)).toThrow(/only a CANDIDATE can be approved/);
  });
});

// Issue 14: every hand counts, real reviewers are not refused, and identities are read as git and
// GitHub write them. Each case below gave the wrong answer before the issue was fixed.
describe("every hand in the change (issue 14)", () => {
  const A = "a".repeat(40);
  const B = "b".repeat(40);
  const M = "d".repeat(40);
  const BASE_TIP = "e".repeat(40);
  const person = (login: string) => ({ login, name: login, email: `${login}@example.com` });

  it("refuses the pusher of a commit written under the agent's identity", () => {
    const f = facts({ pushes: [{ login: "alice", before: null, after: A, via: "synchronize" }] });
    expect(refusal(f)).toEqual(["pushed commits to this pull request (aaaaaaa)"]);
  });

  it("refuses a pusher whose pushed head is no longer in the pull request: the work may live on rebased", () => {
    const f = facts({ pushes: [{ login: "alice", before: null, after: OLD, via: "force-push" }] });
    expect(refusal(f)).toEqual(["pushed commits to this pull request (0000000)"]);
  });

  it("fails closed when the pull request has more commits than GitHub listed", () => {
    const decision = qualifyApprovals(facts({ commitCount: 251 }));
    expect(decision.satisfied).toBe(false);
    expect(decision.blocked).toEqual([
      "the pull request has 251 commits but GitHub listed only 1 (it lists at most 250), so not every hand in the change can be known: split the pull request",
    ]);
    expect(qualifyApprovals(facts({ commitCount: null })).blocked).toEqual(["the pull request's commit count could not be read, so not every hand in the change can be known"]);
  });

  describe("Update branch merges", () => {
    // A, the agent's commit; M merges the base tip into it, authored and pushed by the maintainer.
    const agentCommit = commit(A, { parents: [BASE_TIP] });
    const merge = (changedFrom: Record<string, string[] | null>, parents = [A, BASE_TIP]) => commit(M, {
      parents, author: person("alice"), committer: { login: "web-flow", name: "GitHub", email: "noreply@github.com" },
      message: "Merge branch 'main' into agent/fix", changedFrom,
    });
    const withMerge = (m: CommitFacts, pushes: PushFacts[] = [{ login: "alice", before: A, after: M, via: "synchronize" }]) =>
      facts({ head: M, commits: [agentCommit, m], commitCount: 2, pushes, reviews: [review("alice", { commitId: M })] });

    it("does not make the maintainer who clicked Update branch a hand", () => {
      const decision = qualifyApprovals(withMerge(merge({ [A]: ["README.md"], [BASE_TIP]: ["src/mul.ts"] })));
      expect(decision).toMatchObject({ satisfied: true, qualifying: [{ login: "alice" }] });
      expect(decision.baseMerges).toEqual([M]);
    });

    it("does make the author of a merge that adds content of its own a hand (an evil merge)", () => {
      const evil = merge({ [A]: ["README.md", "src/mul.ts"], [BASE_TIP]: ["src/mul.ts"] });
      expect(refusal(withMerge(evil))).toEqual(["authored commit ddddddd", "pushed commits to this pull request (ddddddd)"]);
    });

    it("does not take a merge of another pull-request line for the base", () => {
      const both = merge({ [A]: ["x"], [B]: ["y"] }, [A, B]);
      const f = withMerge(both);
      expect(refusal({ ...f, commits: [...f.commits, commit(B)], commitCount: 3 })).toContain("authored commit ddddddd");
    });

    it("makes the merge's author a hand when its diff could not be read", () => {
      expect(refusal(withMerge(merge({ [A]: null, [BASE_TIP]: ["src/mul.ts"] })))).toContain("authored commit ddddddd");
    });

    it("still refuses a pusher who pushed agent commits along with the merge", () => {
      const pushes = [{ login: "alice", before: null, after: M, via: "synchronize" }];
      expect(refusal(withMerge(merge({ [A]: ["README.md"], [BASE_TIP]: ["src/mul.ts"] }), pushes))).toEqual(["pushed commits to this pull request (ddddddd)"]);
    });
  });

  it("skips GitHub's own web-flow committer only, not anyone who names noreply@github.com", () => {
    const spoof = commit(A, { committer: { login: null, name: "alice", email: "noreply@github.com" } });
    expect(refusal(facts({ commits: [spoof] }))).toEqual(["committed aaaaaaa"]);
    const byAlice = commit(A, { committer: { login: "alice", name: "GitHub", email: "noreply@github.com" } });
    expect(refusal(facts({ commits: [byAlice] }))).toEqual(["committed aaaaaaa"]);
    expect(qualifyApprovals(facts({ commits: [commit(A)] })).ineligible.map((i) => i.who)).not.toContain("@web-flow");
  });

  it("refuses a co-author named by a GitHub Enterprise no-reply address of the reviewer", () => {
    const hosts = ["github.com", "ghe.example.com"];
    for (const email of ["12+alice@users.noreply.ghe.example.com", "alice@users.noreply.ghe.example.com"]) {
      const c = commit(A, { message: `x\n\nCo-authored-by: Someone <${email}>` });
      expect(refusal(facts({ commits: [c], noreplyHosts: hosts }))).toEqual(["is a Co-authored-by of commit aaaaaaa"]);
    }
  });

  it("compares names with whitespace collapsed", () => {
    const c = commit(A, { message: "x\n\nCo-authored-by:   Alice    Liddell   <private@example.com>" });
    expect(refusal(facts({ commits: [c], reviewers: { alice: { ...WRITER, name: " Alice\tLiddell " } } }))).toEqual(["is a Co-authored-by of commit aaaaaaa"]);
  });
});

describe("binding the approval to the judged pull request and base (issue 14)", () => {
  const bound = { verdictPull: 2, pull: 2, verdictBase: SUBJECT.base, base: SUBJECT.base, baseRef: "main", baseDescends: null, sharedWith: [] };

  it("has no problem for the verdict's own pull request and base", () => {
    expect(bindingProblems(bound)).toEqual([]);
    expect(bindingProblems({ ...bound, base: "f".repeat(40), baseDescends: true })).toEqual([]);
  });

  it("refuses a verdict given for another pull request with the same head", () => {
    expect(bindingProblems({ ...bound, verdictPull: 3 })).toEqual(["the judge's verdict on this commit was given for pull request #3, not #2: comment /ranex rejudge to judge it for this one"]);
    expect(bindingProblems({ ...bound, verdictPull: null })).toEqual(["the judge's verdict on this commit names no pull request, so it cannot be bound to #2: comment /ranex rejudge"]);
  });

  it("refuses when the pull request now targets a base the judge did not use (retarget)", () => {
    const moved = { ...bound, base: "f".repeat(40), baseDescends: false };
    expect(bindingProblems(moved)).toEqual([`the judge used base ${SUBJECT.base.slice(0, 7)}, but the pull request now targets main at fffffff, which does not descend from it (was it retargeted?): it must be judged again`]);
    expect(bindingProblems({ ...moved, baseDescends: null })).toEqual([`the judge used base ${SUBJECT.base.slice(0, 7)}, but the pull request now targets main at fffffff, and whether that descends from it could not be read: it must be judged again`]);
  });

  it("refuses when another open pull request has the same head: the check on the commit would speak for both", () => {
    expect(bindingProblems({ ...bound, sharedWith: [3, 5] })).toEqual([
      "this commit is also the head of open pull requests #3, #5, and a check run on a commit speaks for every pull request with that head: close the others, then review again",
    ]);
  });
});

describe("Co-authored-by as git reads trailers", () => {
  // Each message was checked with `git interpret-trailers --parse` (git 2.39): everything git reads is read here.
  it.each<[string, string, { name: string; email: string }[]]>([
    ["any case", "t\n\nco-AUTHORED-BY: B <b@x>", [{ name: "B", email: "b@x" }]],
    ["a space before the separator", "t\n\nCo-authored-by : C <c@x>", [{ name: "C", email: "c@x" }]],
    ["a tab before the separator", "t\n\nCo-authored-by\t: H <h@x>", [{ name: "H", email: "h@x" }]],
    ["a value folded over two lines", "t\n\nCo-authored-by: D\n  <d@x>", [{ name: "D", email: "d@x" }]],
    ["a folded name", "t\n\nCo-authored-by: Alice\n\tLiddell <al@x>\nSigned-off-by: x <x@y>", [{ name: "Alice Liddell", email: "al@x" }]],
    ["spaces inside the name, collapsed", "t\n\nCo-authored-by:    F   Name   <f@x>   ", [{ name: "F Name", email: "f@x" }]],
    ["CRLF line ends", "t\r\n\r\nCo-authored-by: R <r@x>\r\n", [{ name: "R", email: "r@x" }]],
  ])("reads %s", (_, message, expected) => {
    expect(coAuthorsOf(message)).toEqual(expected);
  });

  it("reads more than git where reading more only refuses more: Unicode hyphens, trailers outside the last paragraph", () => {
    expect(coAuthorsOf("t\n\nCo\u2010authored\u2011by: E <e@x>")).toEqual([{ name: "E", email: "e@x" }]);
    expect(coAuthorsOf("t\n\nCo-authored-by: K <k@x>\n\nlast paragraph")).toEqual([{ name: "K", email: "k@x" }]);
  });

  it("does not read another separator or another key", () => {
    expect(coAuthorsOf("t\n\nCo-authored-by= G <g@x>\nCo-authored: Z <z@x>")).toEqual([]);
  });
});

describe("no-reply addresses on GitHub Enterprise", () => {
  it("takes the login out of both forms on the hosts given, and nothing else", () => {
    const hosts = ["github.com", "ghe.example.com"];
    expect(noreplyLogin("12+octocat@users.noreply.ghe.example.com", hosts)).toBe("octocat");
    expect(noreplyLogin("octocat@users.noreply.ghe.example.com", hosts)).toBe("octocat");
    expect(noreplyLogin("octocat@users.noreply.other.example", hosts)).toBeNull();
    expect(noreplyLogin("octocat@users.noreply.ghe.example.com.evil.example", hosts)).toBeNull();
  });
});
