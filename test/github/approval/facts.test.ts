import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import { noreplyHostsOf } from "../../../src/github/approval/facts.js";

describe("no-reply hosts", () => {
  it("are github.com, and the Enterprise Server host the app talks to", () => {
    expect(noreplyHostsOf(new ProbotOctokit())).toEqual(["github.com"]);
    expect(noreplyHostsOf(new ProbotOctokit({ baseUrl: "https://GHE.example.com/api/v3" }))).toEqual(["github.com", "ghe.example.com"]);
  });
});
