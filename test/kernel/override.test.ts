import { describe, expect, it } from "vitest";
import { overrideRefusals, reasonProblem, type OverrideFacts } from "../../src/kernel/override.js";

// Who may override a FAIL (issue 23): pure, from plain facts. The GitHub side is tested through the
// app in test/github/commands/override.test.ts.

const agent = { login: "agent-bot[bot]", name: "agent-bot", email: "99+agent-bot[bot]@users.noreply.github.com" };
const webFlow = { login: "web-flow", name: "GitHub", email: "noreply@github.com" };

function facts(over: Partial<OverrideFacts> = {}, requester: Partial<OverrideFacts["requester"]> = {}): OverrideFacts {
  return {
    requester: { login: "maria", type: "User", role: "maintain", teams: [], name: null, email: null, ...requester },
    author: "agent-bot[bot]", commits: [{ sha: "a".repeat(40), author: agent, committer: webFlow, message: "Add mul", parents: [] }],
    pushes: [], operators: ["carol"], appLogin: "ranex-gate[bot]", commitCount: 1, policy: { allowed: true, teams: [] },
    reason: "The runner is not supported on this base yet.", ...over,
  };
}

describe("overrideRefusals", () => {
  it("allows a maintainer or an admin who had no hand in the change", () => {
    expect(overrideRefusals(facts())).toEqual([]);
    expect(overrideRefusals(facts({}, { role: "admin" }))).toEqual([]);
  });

  it("refuses write and strangers: an override needs maintain or admin", () => {
    expect(overrideRefusals(facts({}, { role: "write" }))).toEqual(["@maria has write permission; an override needs maintain or admin"]);
    expect(overrideRefusals(facts({}, { role: null }))).toEqual(["@maria is not a collaborator; an override needs maintain or admin"]);
  });

  it("refuses every hand: author, operator, pusher, co-author by public e-mail, and a bot", () => {
    expect(overrideRefusals(facts({ author: "maria" }))).toContain("@maria opened this pull request");
    expect(overrideRefusals(facts({ operators: ["@Maria"] }))).toContain("@maria runs the agents (agents.operators in .github/ranex.yml)");
    expect(overrideRefusals(facts({ pushes: [{ login: "maria", before: null, after: "a".repeat(40), via: "synchronize" }] }))).toContain("@maria pushed commits to this pull request (aaaaaaa)");
    const coAuthored = facts({ commits: [{ sha: "a".repeat(40), author: agent, committer: webFlow, message: "Add\n\nCo-authored-by: M <m@example.com>", parents: [] }] }, { email: "m@example.com" });
    expect(overrideRefusals(coAuthored)).toContain("@maria is a Co-authored-by of commit aaaaaaa");
    expect(overrideRefusals(facts({}, { login: "helper[bot]", type: "Bot", role: "admin" }))[0]).toMatch(/is not a human account/);
  });

  it("follows the policy: forbidden, teams, invalid", () => {
    expect(overrideRefusals(facts({ policy: { allowed: false, teams: [] } }))).toEqual(["overrides are turned off for this repository (`override.allowed: false` in `.github/ranex.yml`)"]);
    expect(overrideRefusals(facts({ policy: { allowed: true, teams: ["org/release"] } }))).toEqual(["@maria is not in org/release, the teams `override.teams` names"]);
    expect(overrideRefusals(facts({ policy: { allowed: true, teams: ["org/release"] } }, { teams: ["@org/release"] }))).toEqual([]);
    expect(overrideRefusals(facts({ policy: null }))[0]).toMatch(/is not valid/);
  });

  it("fails closed when not every hand is known", () => {
    expect(overrideRefusals(facts({ commitCount: 300 }))[0]).toMatch(/has 300 commits but GitHub listed only 1/);
  });

  it("needs a reason of at least a sentence", () => {
    expect(reasonProblem("")).toMatch(/needs its reason/);
    expect(reasonProblem("lgtm ship it")).toMatch(/needs its reason/);
    expect(reasonProblem("The runner is unsupported here.")).toBeNull();
  });
});
