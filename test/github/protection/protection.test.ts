import { createRequire } from "node:module";
import type nock from "nock";
import { describe, expect, it } from "vitest";
import { mergeAuthority } from "../../../src/github/approval/deps.js";
import { tempDir } from "../../helpers/git-repo.js";
import { deliveryId, githubApi, mockToken, requests, testApp, useStrictNock, type Fixture } from "../../helpers/probot.js";
import { HEAD, mergeApp, mockApprovalCheck, mockFacts, mockJudgment, opened, REPO } from "../approval/helpers.js";
import { standInJudge } from "../stand-in.js";

useStrictNock();

const CLASSIC = `${REPO}/branches/master/protection/required_status_checks`;
const RULES = `${REPO}/rules/branches/master`;
const FIX = "ranex protect --repo Codertocat/Hello-World --branch master";

function classic(api: nock.Scope, contexts: string[] | 403 | 404): void {
  if (contexts === 403) api.get(CLASSIC).reply(403, { message: "Resource not accessible by integration" });
  else if (contexts === 404) api.get(CLASSIC).reply(404, { message: "Branch not protected" });
  else api.get(CLASSIC).reply(200, { url: "u", strict: false, contexts, checks: contexts.map((context) => ({ context, app_id: null })), contexts_url: "u" });
}

function rules(api: nock.Scope, contexts: string[]): void {
  const rule = { type: "required_status_checks", ruleset_source_type: "Repository", ruleset_source: "Codertocat/Hello-World", ruleset_id: 9, parameters: { strict_required_status_checks_policy: false, required_status_checks: contexts.map((context) => ({ context })) } };
  api.get(RULES).query({ per_page: 100 }).reply(200, contexts.length === 0 ? [] : [rule]);
}

/** Judges a CANDIDATE and returns the ranex/judge and ranex/approval summaries. */
async function summaries(mockProtection: (api: nock.Scope) => void): Promise<[string, string]> {
  const { probot, runner, api } = await mergeApp();
  mockJudgment(api);
  mockProtection(api);
  mockFacts(api, {});
  mockApprovalCheck(api);
  await probot.receive({ id: deliveryId(), name: "pull_request", payload: opened() as never });
  await runner.idle();
  const judge = (requests("PATCH", /check-runs\/42$/)[1]?.body as Fixture).output.summary as string;
  const approval = (requests("POST", /check-runs$/).map((r) => r.body as Fixture).find((b) => b.name === "ranex/approval")!).output.summary as string;
  return [judge, approval];
}

describe("the decoration notice", () => {
  it("tops both summaries when classic protection requires only ranex/judge", async () => {
    const both = await summaries((api) => { classic(api, ["ranex/judge"]); rules(api, []); });
    for (const summary of both) {
      expect(summary.startsWith("> ⚠️ **This gate is decoration: `master` does not require `ranex/approval`.**")).toBe(true);
      expect(summary).toContain(FIX);
    }
  });

  it("reads rulesets too: a ruleset requiring both checks is enough", async () => {
    const [judge, approval] = await summaries((api) => { classic(api, 404); rules(api, ["ranex/judge", "ranex/approval"]); });
    expect(judge).toMatch(/^## ✅ CANDIDATE/);
    expect(approval).toMatch(/^## ⏳ Waiting/);
  });

  it("names both checks when neither classic protection nor a ruleset requires them", async () => {
    const [judge, approval] = await summaries((api) => { classic(api, ["ci/build"]); rules(api, ["ci/lint"]); });
    expect(judge).toMatch(/^> ⚠️ \*\*This gate is decoration: `master` does not require `ranex\/judge` and `ranex\/approval`\.\*\*/);
    expect(approval.split("\n")[0]).toBe(judge.split("\n")[0]);
  });

  it("says the app may not read protection when GitHub refuses it (403)", async () => {
    const both = await summaries((api) => { classic(api, 403); rules(api, []); });
    for (const summary of both) {
      expect(summary).toMatch(/^> ⚠️ \*\*Ranex Gate may not read what `master` requires\*\*: GitHub refused the app access to the branch protection of `master` \(403\)/);
      expect(summary).toContain("`administration: read`");
      expect(summary).not.toContain("This gate is decoration");
    }
  });
});

const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples/api.github.com/index.json") as { name: string; examples: Fixture[] }[];

/** The real installation.created example that grants administration write, for Codertocat/Hello-World. */
function installationCreated(administration: string): Fixture {
  const example = structuredClone(examples.find((e) => e.name === "installation")!.examples.find((x) => x.action === "created" && x.installation.permissions.administration === "write")!);
  example.installation.permissions.administration = administration;
  return example;
}

describe("on installation", () => {
  async function install(autoProtect: boolean, administration: string) {
    const dataDir = tempDir();
    const { probot } = await testApp({ judge: standInJudge().judge, dataDir, mergeAuthority: mergeAuthority({ dataDir, autoProtect, appId: 123 }) });
    const api = githubApi();
    const event = installationCreated(administration);
    mockToken(api, event.installation.id);
    api.get(REPO).reply(200, { name: "Hello-World", default_branch: "master" });
    api.get(`${REPO}/branches/master/protection`).reply(404, { message: "Branch not protected" });
    api.get(`${REPO}/branches/master`).reply(200, { name: "master" });
    return { probot, api, event };
  }

  it("protects the default branch with RANEX_AUTO_PROTECT=1 and administration write", async () => {
    const { probot, api, event } = await install(true, "write");
    api.put(`${REPO}/branches/master/protection`).reply(200, {});
    await probot.receive({ id: deliveryId(), name: "installation", payload: event as never });
    expect(requests("PUT", /protection$/)[0]?.body).toMatchObject({
      required_status_checks: { checks: [{ context: "ranex/judge", app_id: 123 }, { context: "ranex/approval", app_id: 123 }] }, enforce_admins: true,
    });
  });

  it.each([[false, "write"], [true, "read"]])("only reads (and logs the command) when auto-protect is %s and administration is %s", async (auto, administration) => {
    const { probot, event } = await install(auto, administration);
    await probot.receive({ id: deliveryId(), name: "installation", payload: event as never });
    expect(requests("PUT", /./)).toHaveLength(0);
  });
});

it("keeps the protection answer per branch for a while: two judgments, one read", async () => {
  const { probot, runner, api } = await mergeApp();
  classic(api, ["ranex/judge", "ranex/approval"]);
  for (const head of [HEAD, "1111111e57ca3a959ca5aad62de7213c562f8c82"]) {
    mockJudgment(api, head);
    mockFacts(api, { pull: { head } });
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: opened(head, "pull_request.synchronize") as never });
    await runner.idle();
  }
  expect(requests("GET", /protection/)).toHaveLength(1);
});
