import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import examples from "@octokit/webhooks-examples";
import { describe, expect, it } from "vitest";
import { payloadProblem } from "../../src/queue/door.js";

// Validation at the door: every real payload of the events the app handles passes; what the handlers
// could not use (null, arrays, wrong types, a missing pull request, a head that is not a sha, a number
// that is not whole) is refused with a reason naming the field.

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "webhooks");
const HANDLED = ["pull_request", "pull_request_review", "push", "issue_comment", "check_run", "check_suite", "merge_group", "installation", "installation_repositories", "ping"];

function fixture(name: string): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8")) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe("payloadProblem", () => {
  it("accepts every example payload GitHub documents for the events the app handles", () => {
    const checked: string[] = [];
    for (const event of examples as unknown as { name: string; examples: unknown[] }[]) {
      if (!HANDLED.includes(event.name)) continue;
      for (const payload of event.examples) {
        expect(payloadProblem(event.name, payload), `${event.name} ${(payload as { action?: string }).action ?? ""}`).toBeNull();
        checked.push(event.name);
      }
    }
    // Every handled event has examples, so none of them is accepted by default.
    expect(new Set(checked)).toEqual(new Set(HANDLED));
  });

  it("accepts the repository's own recorded payloads", () => {
    const files = readdirSync(FIXTURES).filter((name) => name.endsWith(".json"));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const event = file.split(".")[0] as string;
      expect(payloadProblem(event, fixture(file.replace(/\.json$/, ""))), file).toBeNull();
    }
  });

  it("refuses what is not an object, for any event", () => {
    expect(payloadProblem("pull_request", null)).toBe("the payload is null, not an object");
    expect(payloadProblem("ping", [])).toBe("the payload is an array, not an object");
    expect(payloadProblem("zen", "hi")).toBe("the payload is a string, not an object");
    expect(payloadProblem("ping", 7)).toBe("the payload is a number, not an object");
  });

  it("refuses a pull_request payload missing what a judgment needs, naming the field", () => {
    const missing = fixture("pull_request.opened");
    delete missing.pull_request;
    expect(payloadProblem("pull_request", missing)).toMatch(/^pull_request payload: pull_request: /);

    const badSha = fixture("pull_request.opened");
    badSha.pull_request.head.sha = "main; rm -rf /";
    expect(payloadProblem("pull_request", badSha)).toBe("pull_request payload: pull_request.head.sha: is not a 40-hex commit sha");

    const shortSha = fixture("pull_request.synchronize");
    shortSha.pull_request.head.sha = "abc123";
    expect(payloadProblem("pull_request", shortSha)).toContain("pull_request.head.sha");

    const fraction = fixture("pull_request.opened");
    fraction.number = 1.5;
    expect(payloadProblem("pull_request", fraction)).toMatch(/^pull_request payload: number: /);

    const text = fixture("pull_request.opened");
    text.pull_request.number = "2";
    expect(payloadProblem("pull_request", text)).toMatch(/^pull_request payload: pull_request\.number: /);

    const noOwner = fixture("pull_request.opened");
    noOwner.repository.owner = null;
    expect(payloadProblem("pull_request", noOwner)).toMatch(/repository\.owner/);
  });

  it("refuses malformed shas and ids on the other handled events", () => {
    const push = fixture("push");
    push.after = "HEAD";
    expect(payloadProblem("push", push)).toContain("after: is not a 40-hex commit sha");
    const rerun = fixture("check_run.rerequested");
    rerun.check_run.head_sha = "A".repeat(40);
    expect(payloadProblem("check_run", rerun)).toContain("check_run.head_sha");
    const comment = fixture("issue_comment.created");
    comment.issue.number = -3;
    expect(payloadProblem("issue_comment", comment)).toContain("issue.number");
    const group = fixture("merge_group.checks_requested");
    delete group.merge_group.base_sha;
    expect(payloadProblem("merge_group", group)).toContain("merge_group.base_sha");
    const review = fixture("pull_request_review.submitted");
    review.review = [];
    expect(payloadProblem("pull_request_review", review)).toContain("review");
  });
});
