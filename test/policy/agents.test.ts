import { describe, expect, it } from "vitest";
import { formatIssues, parsePolicy } from "../../src/policy/index.js";

// Issue 14: where the policy expects logins, an entry that could match nobody is an error at its key
// and line, not a silent miss (a team under agents.operators would let its members approve).

function issues(agents: string): string[] {
  const result = parsePolicy(`version: 1\nrequire: [diff.frozen]\nagents:\n${agents}`);
  return result.ok ? [] : formatIssues(result.errors);
}

describe("agents: logins", () => {
  it("accepts logins, bots, Enterprise managed users, and @login under operators", () => {
    const result = parsePolicy("version: 1\nrequire: [diff.frozen]\nagents:\n  authors: [\"copilot-swe-agent[bot]\", \"devin-ai-integration[bot]\", Codertocat]\n  operators: [alice, \"@Bob\", octo_acme]\n");
    expect(result.ok && result.policy.agents).toMatchObject({ authors: ["copilot-swe-agent[bot]", "devin-ai-integration[bot]", "Codertocat"], operators: ["alice", "@Bob", "octo_acme"] });
  });

  it("refuses a team under operators, at its line", () => {
    expect(issues("  operators:\n    - alice\n    - \"@octo-org/agent-runners\"\n")).toEqual([
      ".github/ranex.yml:6: agents.operators[1]: \"@octo-org/agent-runners\" is a team, but only logins are matched here (a team's members are not looked up): list each person's login",
    ]);
  });

  it("refuses stray whitespace in operators and authors", () => {
    expect(issues("  operators: [\" oscar\"]\n  authors: [\"agent-bot[bot] \"]\n")).toEqual([
      ".github/ranex.yml:4: agents.operators[0]: \" oscar\" has blanks in it, and a GitHub login has none: write \"oscar\"",
      ".github/ranex.yml:5: agents.authors[0]: \"agent-bot[bot] \" has blanks in it, and a GitHub login has none: write \"agent-bot[bot]\"",
    ]);
  });

  it("refuses @ under authors (matched exactly) and what is no login at all", () => {
    expect(issues("  authors: [\"@copilot\", \"a.b\"]\n")).toEqual([
      ".github/ranex.yml:4: agents.authors[0]: \"@copilot\": write the login without @ (\"copilot\")",
      ".github/ranex.yml:4: agents.authors[1]: \"a.b\" is not a GitHub login (letters, digits, '-' or '_', a bot's ending in [bot])",
    ]);
  });
});
