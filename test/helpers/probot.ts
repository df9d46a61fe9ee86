import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import nock from "nock";
import { Probot, ProbotOctokit } from "probot";
import { afterEach, beforeEach, expect } from "vitest";
import ranexApp from "../../src/index.js";
import type { AppDeps } from "../../src/github/deps.js";
import { InProcessRunner } from "../../src/github/pull-request/jobs.js";
import { requestProblems, type Spec } from "./openapi.js";

// A Probot test instance behind strict HTTP mocks: no request leaves the process except to
// 127.0.0.1, every mock must be used, every request must match one, and every request body must be
// valid for GitHub's OpenAPI description of that operation.

export const INSTALLATION_TOKEN = "ghs_testInstallationToken0123456789abcdef";
export const FIXED_TIME = new Date("2026-02-03T04:05:06Z");
const PRIVATE_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();

export interface SentRequest {
  method: string;
  path: string;
  body: unknown;
}

/** Every request the app sent in this test, in order. */
export const sent: SentRequest[] = [];
const problems: string[] = [];
let spec: Spec = "api.github.com";

nock.emitter.on("no match", (req: { method?: string; path?: string; href?: string }) => {
  const where = req.href ?? req.path ?? "";
  if (/^https?:\/\/(127\.0\.0\.1|localhost)[:/]/.test(where)) return;
  problems.push(`unmatched request: ${req.method ?? "?"} ${where}`);
});

export function useStrictNock(): void {
  beforeEach(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    sent.length = 0;
    problems.length = 0;
    spec = "api.github.com";
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect({ problems: [...problems], pending }).toEqual({ problems: [], pending: [] });
  });
}

/** A mock GitHub API at `baseUrl` whose every request is recorded and checked against OpenAPI. */
export function githubApi(baseUrl = "https://api.github.com", api: Spec = "api.github.com"): nock.Scope {
  spec = api;
  const scope = nock(baseUrl);
  scope.on("request", (req: { method: string; path: string }, _interceptor: unknown, body: string) => {
    const parsed = body === "" || body === undefined ? undefined : JSON.parse(body) as unknown;
    sent.push({ method: req.method, path: req.path, body: parsed });
    problems.push(...requestProblems(req.method, req.path, parsed, spec));
  });
  return scope;
}

/** The installation token exchange every judgment makes before fetching. */
export function mockToken(scope: nock.Scope, installationId = 1): nock.Scope {
  return scope.post(`/app/installations/${installationId}/access_tokens`).reply(201, {
    token: INSTALLATION_TOKEN, expires_at: "2099-01-01T00:00:00Z", permissions: { checks: "write", contents: "read" }, repository_selection: "all",
  });
}

// Probot layers its own throttle options over any plain-object defaults (a shallow merge), which
// re-enables throttling and its one-second spacing of writes; a function default has the last word.
const quietOctokit = ProbotOctokit.defaults(((options: Record<string, any>) => ({ // eslint-disable-line @typescript-eslint/no-explicit-any
  ...options, retry: { enabled: false }, throttle: { ...options.throttle, enabled: false },
})) as never);

export interface TestApp {
  probot: Probot;
  deps: AppDeps;
  runner: InProcessRunner;
}

export async function testApp(overrides: Partial<AppDeps> & Pick<AppDeps, "judge" | "dataDir">, baseUrl?: string): Promise<TestApp> {
  const runner = new InProcessRunner(2, (err) => problems.push(`job threw: ${String(err)}`));
  const deps: AppDeps = {
    record: async () => { throw new Error("record not provided by this test"); },
    recordRejudge: async () => { throw new Error("recordRejudge not provided by this test"); },
    findEntry: async () => null,
    clock: () => FIXED_TIME,
    runner,
    ...overrides,
  };
  const probot = new Probot({
    appId: 123, privateKey: PRIVATE_KEY, secret: "test-secret", ...(baseUrl === undefined ? {} : { baseUrl }),
    Octokit: quietOctokit,
    logLevel: "fatal",
  });
  await probot.load(ranexApp(deps), { cwd: process.cwd(), addHandler: () => {} });
  return { probot, deps, runner: deps.runner as InProcessRunner };
}

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "webhooks");

/** A fixture payload (`pull_request.opened`), changed only as the test says. */
export type Fixture = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function payload(name: string, edit: (p: Fixture) => void = () => {}): Fixture {
  const data = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8")) as Fixture;
  edit(data);
  return data;
}

let deliveries = 0;
export function deliveryId(): string {
  deliveries += 1;
  return `delivery-${process.pid}-${deliveries}`;
}

/** The requests to one method and path pattern. */
export function requests(method: string, path: RegExp): SentRequest[] {
  return sent.filter((r) => r.method === method && path.test(r.path));
}
