import { describe, expect, it } from "vitest";
import { deliveryId, FIXED_TIME, requests, useStrictNock, type Fixture } from "../../helpers/probot.js";
import { BASE, HEAD, journalEntries, mergeApp, mockCheckRuns, mockFacts, mockPolicy, mockProtected, policyText, REPO, reviewEvent, reviewOf, type Facts } from "./helpers.js";

// Issue 14: check runs belong to a commit, not to a pull request. An approval counts only for the
// judge's CANDIDATE of this very pull request, against the base it targets now, and only while no
// other open pull request has the same head. Each case here was approved before the fix.

useStrictNock();

const NEW_BASE = "2222222bd8fca8fcc58a9a2d6c842781e32a215e";

/** A review by alice (an independent writer) on PR 2, with the judge's CANDIDATE recorded for `ref`. */
async function reviewWith(facts: Facts, options: { ref?: string; policies?: [string, string][] } = {}) {
  const app = await mergeApp();
  const judgment = await app.stand.judge({ source: "x", base: BASE, head: HEAD, task: null, dataDir: app.dataDir, repository: "Codertocat/Hello-World" }, new AbortController().signal);
  const recorded = await app.journal.record(judgment, { repository: "Codertocat/Hello-World", ref: options.ref ?? "refs/pull/2/head", time: FIXED_TIME.toISOString() });
  mockProtected(app.api);
  mockCheckRuns(app.api, { externalId: recorded.journalId });
  for (const [base, text] of options.policies ?? [[BASE, policyText()]]) mockPolicy(app.api, text, base);
  mockFacts(app.api, { reviews: [reviewOf(11, "alice")], roles: { alice: "write" }, ...facts });
  app.api.post(`${REPO}/check-runs`).reply(201, { id: 77 });
  await app.probot.receive({ id: deliveryId(), name: "pull_request_review", payload: reviewEvent("submitted", "alice") as never });
  const posted = requests("POST", /check-runs$/);
  expect(posted).toHaveLength(1);
  return { app, body: posted[0]!.body as Fixture };
}

describe("ranex/approval is bound to the verdict's pull request and base", () => {
  it("does not count a review on PR 2 toward the CANDIDATE judged for PR 3 with the same head", async () => {
    const { app, body } = await reviewWith({}, { ref: "refs/pull/3/head" });
    expect(body).toMatchObject({ name: "ranex/approval", head_sha: HEAD, conclusion: "failure" });
    expect(body.output.title).toBe("no approval can count: the judge's verdict on this commit was given for pull request #3, not #2: comment /ranex rejudge to judge it for this one");
    expect(body.output.summary).toContain("- the judge's verdict on this commit was given for pull request #3, not #2");
    expect((await journalEntries(app.dataDir)).map((e) => e.kind)).toEqual(["verdict"]);
  });

  it("fails closed while another open pull request has the same head commit", async () => {
    const { body } = await reviewWith({ sharedWith: [3] });
    expect(body.conclusion).toBe("failure");
    expect(body.output.summary).toContain("- this commit is also the head of open pull requests #3, and a check run on a commit speaks for every pull request with that head");
  });

  it("fails closed after a retarget: the new base does not descend from the judged one", async () => {
    const { body } = await reviewWith({ pull: { base: NEW_BASE, baseRef: "main" }, compares: { [`${BASE}...${NEW_BASE}`]: { status: "diverged" } } },
      { policies: [[BASE, policyText()], [NEW_BASE, policyText()]] });
    expect(body.conclusion).toBe("failure");
    expect(body.output.summary).toContain(`- the judge used base f95f852, but the pull request now targets main at 2222222, which does not descend from it (was it retargeted?): it must be judged again`);
  });

  const moved = { pull: { base: NEW_BASE }, compares: { [`${BASE}...${NEW_BASE}`]: { status: "ahead" } } };

  it("accepts a base that moved on since the judgment", async () => {
    const ok = await reviewWith(moved, { policies: [[BASE, policyText()], [NEW_BASE, policyText()]] });
    expect(ok.body).toMatchObject({ conclusion: "success", output: { title: "approved by @alice on ec26c3e" } });
  });

  it("refuses an operator the moved base's policy lists, though the judged base's did not", async () => {
    const newer = policyText().replace("operators: [carol]", "operators: [carol, alice]");
    const refused = await reviewWith(moved, { policies: [[BASE, policyText()], [NEW_BASE, newer]] });
    expect(refused.body.conclusion).toBe("action_required");
    expect(refused.body.output.summary).toContain("- @alice (review 11): runs the agents (agents.operators in .github/ranex.yml)");
  });
});
