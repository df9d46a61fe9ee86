import { describe, expect, it } from "vitest";
import { isCheckRunWrite, refusalReason, retryDelay, retryWrite, WritesRefused } from "../../src/github/write-retry.js";
import { MemoryWriteSlots, writeKey } from "../../src/github/write-throttle.js";
import { payloadProblem, Permanent, permanentReason } from "../../src/queue/permanent.js";
import { payload } from "../helpers/probot.js";

// The retry policy of check run writes, the per-installation write slots and what the queue drops,
// each on its own (the real server through an outage: test/e2e/app-outage.test.ts).

function httpError(status: number, headers: Record<string, string> = {}, message = "refused"): Error {
  return Object.assign(new Error(message), { status, response: { headers } });
}

/** A clock whose waits pass at once. */
function fakeTime(start = 0) {
  const time = { ms: start, waits: [] as number[] };
  return {
    time,
    options: {
      windowMs: 30 * 60_000, now: () => time.ms,
      sleep: async (ms: number) => { time.waits.push(ms); time.ms += ms; },
    },
  };
}

describe("retryDelay", () => {
  it("backs off on 5xx and no answer, doubling up to a minute, and honours retry-after", () => {
    expect([1, 2, 3, 7, 12].map((n) => retryDelay(httpError(502), n, 0))).toEqual([1000, 2000, 4000, 60_000, 60_000]);
    expect(retryDelay(new TypeError("fetch failed"), 1, 0)).toBe(1000);
    expect(retryDelay(httpError(503, { "retry-after": "30" }), 1, 0)).toBe(30_000);
  });

  it("waits out a rate limit: retry-after, else the reset, else a minute for a secondary limit", () => {
    expect(retryDelay(httpError(403, { "retry-after": "7" }, "You have exceeded a secondary rate limit"), 1, 0)).toBe(7000);
    expect(retryDelay(httpError(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "100" }), 1, 40_000)).toBe(61_000);
    expect(retryDelay(httpError(403, {}, "You have exceeded a secondary rate limit"), 1, 0)).toBe(60_000);
    expect(retryDelay(httpError(429), 2, 0)).toBe(2000);
  });

  it("does not retry what waiting cannot change", () => {
    for (const status of [400, 401, 404, 410, 422]) expect(retryDelay(httpError(status), 1, 0)).toBeNull();
    expect(retryDelay(httpError(403, {}, "Resource not accessible by integration"), 1, 0)).toBeNull();
  });
});

describe("retryWrite", () => {
  it("sends again until GitHub accepts, within the window", async () => {
    const { time, options } = fakeTime();
    let calls = 0;
    const result = await retryWrite(async () => {
      calls += 1;
      if (calls <= 4) throw httpError(502);
      return "posted";
    }, options, "PATCH");
    expect(result).toBe("posted");
    expect(time.waits).toEqual([1000, 2000, 4000, 8000]);
  });

  it("gives up after the window with WritesRefused naming the outage", async () => {
    const { time, options } = fakeTime(1_000_000);
    const refused = await retryWrite(async () => { throw httpError(500); }, options, "PATCH").catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(WritesRefused);
    // The next wait (a minute) would pass the window: it gives up at 29 minutes, and says so.
    expect(refused).toMatchObject({ status: 500, since: 1_000_000, message: "GitHub refused check run writes for 29 minutes (HTTP 500)" });
    expect(time.ms - 1_000_000).toBeGreaterThan(29 * 60_000);
    expect(time.ms - 1_000_000).toBeLessThanOrEqual(30 * 60_000);
  });

  it("throws a deterministic refusal at once, and stops when told to", async () => {
    const { time, options } = fakeTime();
    await expect(retryWrite(async () => { throw httpError(422); }, options, "POST")).rejects.toMatchObject({ status: 422 });
    expect(time.waits).toEqual([]);
    const stop = new AbortController();
    stop.abort();
    await expect(retryWrite(async () => { throw httpError(502); }, options, "PATCH", stop.signal)).rejects.toMatchObject({ status: 502 });
    expect(time.waits).toEqual([]);
  });

  it("names check run writes only", () => {
    expect(isCheckRunWrite("POST", "/repos/{owner}/{repo}/check-runs")).toBe(true);
    expect(isCheckRunWrite("PATCH", "https://ghe.example.com/api/v3/repos/o/r/check-runs/42")).toBe(true);
    expect(isCheckRunWrite("GET", "/repos/o/r/check-runs/42")).toBe(false);
    expect(isCheckRunWrite("POST", "/repos/o/r/issues/1/comments")).toBe(false);
    expect(refusalReason(null, 90_000)).toBe("GitHub refused check run writes for 2 minutes (no answer)");
  });
});

describe("write slots per installation", () => {
  it("spaces one installation's writes a second apart and leaves another's free", async () => {
    let now = 5000;
    const slots = new MemoryWriteSlots(() => now);
    const a = await Promise.all([1, 2, 3].map(() => slots.reserve("installation:a", 1000)));
    expect(a).toEqual([0, 1000, 2000]);
    expect(await slots.reserve("installation:b", 1000)).toBe(0);
    now += 10_000;
    expect(await slots.reserve("installation:a", 1000)).toBe(0);
  });

  it("keys writes by the repository's owner; reads and token exchanges are not throttled", () => {
    expect(writeKey("PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}", "Codertocat")).toBe("installation:codertocat");
    expect(writeKey("POST", "https://api.github.com/repos/Octo/r/issues/1/labels", undefined)).toBe("installation:octo");
    expect(writeKey("GET", "/repos/o/r/pulls", "o")).toBeNull();
    expect(writeKey("POST", "/app/installations/1/access_tokens", undefined)).toBeNull();
  });
});

describe("what the queue drops without retrying", () => {
  it("names what a payload lacks", () => {
    expect(payloadProblem("pull_request", payload("pull_request.opened"))).toBeNull();
    expect(payloadProblem("pull_request", null)).toBe("the pull_request payload is null, not an object");
    expect(payloadProblem("pull_request", [])).toBe("the pull_request payload is an array, not an object");
    const noPull = payload("pull_request.opened", (p) => { delete p.pull_request; });
    expect(payloadProblem("pull_request", noPull)).toMatch(/^the pull_request payload's pull_request /);
    expect(payloadProblem("pull_request", payload("pull_request.opened", (p) => { p.number = "7"; }))).toMatch(/^the pull_request payload's number /);
    for (const name of ["check_run.rerequested", "check_suite.rerequested", "issue_comment.created", "merge_group.checks_requested", "pull_request_review.submitted", "push"]) {
      const event = name.split(".")[0]!;
      expect(payloadProblem(event, payload(name, (p) => { p.installation ??= { id: 1 }; })), name).toBeNull();
    }
  });

  it("tells errors no retry can cure from those one might", () => {
    expect(permanentReason(new Permanent("the head is gone"))).toBe("the head is gone");
    expect(permanentReason(new AggregateError([Object.assign(new Error("No commit found for SHA: x"), { status: 422, request: { method: "POST", url: "/repos/o/r/check-runs" } })])))
      .toBe("GitHub answered 422 to POST /repos/o/r/check-runs, which will not change on a retry: No commit found for SHA: x");
    expect(permanentReason(httpError(502))).toBeNull();
    expect(permanentReason(new Error("git fetch failed"))).toBeNull();
  });
});
