import { expect, it } from "vitest";
import { deliveryId, requests, useStrictNock, type Fixture } from "../../helpers/probot.js";
import {
  commitOf, HEAD, journalEntries, mergeApp, mockApprovalCheck, mockCheckRuns, mockFacts, mockJudgment, mockPolicy, mockProtected,
  NEW_HEAD, opened, REPO, reviewEvent, reviewOf,
} from "./helpers.js";

// The approval flow, step by step, against the recorded webhook payloads in fixtures/webhooks
// (docs/merge-authority.md walks through the same steps). Run it alone:
//   npx vitest run test/github/approval-walkthrough.test.ts

useStrictNock();

/** What ranex/approval says after each step: conclusion and title. */
function lastApproval(): string {
  const bodies = [...requests("POST", /check-runs$/), ...requests("PATCH", /check-runs\/77$/)]
    .map((r) => r.body as Fixture).filter((b) => b.name === "ranex/approval" || b.name === undefined);
  const last = bodies.at(-1);
  return last === undefined ? "none" : `${last.conclusion}: ${last.output.title}`;
}

it("walks an agent's PR from CANDIDATE to an independent approval, through an operator, a push and a dismissal", async () => {
  const { probot, runner, api, dataDir } = await mergeApp();
  const entryOf = async (head: string) => (await journalEntries(dataDir)).filter((e) => e.kind === "verdict").at(head === HEAD ? 0 : -1)!.id;
  const receiveReview = async (action: "submitted" | "dismissed", login: string, head: string, reviews: Fixture[], roles: Record<string, string>, existing?: Fixture) => {
    mockCheckRuns(api, { externalId: await entryOf(head) }, existing, head);
    mockPolicy(api);
    mockFacts(api, { reviews, roles, pull: { head } });
    if (existing === undefined) mockApprovalCheck(api);
    else api.patch(`${REPO}/check-runs/77`).reply(200, {});
    await probot.receive({ id: deliveryId(), name: "pull_request_review", payload: reviewEvent(action, login, (p) => { p.pull_request.head.sha = head; }) as never });
  };

  // 1. The agent opens the PR; the judge finds it CANDIDATE; nobody has approved yet.
  mockProtected(api);
  mockJudgment(api);
  mockFacts(api, {});
  mockApprovalCheck(api);
  await probot.receive({ id: deliveryId(), name: "pull_request", payload: opened() as never });
  await runner.idle();
  expect(lastApproval()).toBe("action_required: waiting for an independent approval of ec26c3e");

  // 2. Carol runs the agent and approves its work: that does not count.
  const carol = reviewOf(21, "carol");
  await receiveReview("submitted", "carol", HEAD, [carol], { carol: "admin" });
  expect(lastApproval()).toBe("action_required: waiting for an independent approval of ec26c3e");

  // 3. The agent pushes again: a new head, judged again, and nothing carried over.
  mockJudgment(api, NEW_HEAD);
  mockFacts(api, { commits: [commitOf("a".repeat(40)), commitOf(NEW_HEAD)], reviews: [carol], pull: { head: NEW_HEAD } });
  mockApprovalCheck(api);
  await probot.receive({ id: deliveryId(), name: "pull_request", payload: opened(NEW_HEAD, "pull_request.synchronize") as never });
  await runner.idle();
  expect(lastApproval()).toBe("action_required: waiting for an independent approval of 1111111");

  // 4. Alice, a maintainer with no hand in the change, approves the new head: success, signed.
  const alice = reviewOf(22, "alice", "APPROVED", NEW_HEAD);
  await receiveReview("submitted", "alice", NEW_HEAD, [carol, alice], { alice: "maintain" }, { conclusion: "action_required", output: { title: "waiting for an independent approval of 1111111", summary: "s" } });
  expect(lastApproval()).toBe("success: approved by @alice on 1111111");

  // 5. Her review is dismissed: back to action_required.
  await receiveReview("dismissed", "alice", NEW_HEAD, [carol, { ...alice, state: "DISMISSED" }], {}, { conclusion: "success", output: { title: "approved by @alice on 1111111", summary: "s" } });
  expect(lastApproval()).toBe("action_required: waiting for an independent approval of 1111111");

  expect((await journalEntries(dataDir)).map((e) => e.kind)).toEqual(["verdict", "verdict", "approval"]);
});
