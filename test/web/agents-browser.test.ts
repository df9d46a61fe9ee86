// The agents page (issue 23) in real headless Chromium (/usr/bin/chromium, playwright-core), served
// by the real Probot server with the app's routes, over a real signed journal: judgments of two
// agents over four weeks, two of them overridden. The numbers on the page are checked against what
// that journal holds (counted by hand below), and the charts against the weeks. Screenshots go to
// test-output/web/.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { generateKeyPairSync } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot, Server } from "probot";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ranexApp from "../../src/index.js";
import { mergeAuthority } from "../../src/github/approval/deps.js";
import { InProcessRunner } from "../../src/github/pull-request/jobs.js";
import { journalDeps } from "../../src/github/journal-deps.js";
import { evaluate, makeGate, subjectDigest, type Subject } from "../../src/kernel/index.js";
import { agentsHref, pageSecret, verdictHref } from "../../src/web/index.js";
import { tempDir } from "../helpers/git-repo.js";

const CHROMIUM = process.env.RANEX_TEST_CHROMIUM ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
const OUTPUT = join(import.meta.dirname, "..", "..", "test-output", "web");
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const REPO = "acme/widgets";
const CLAIMS = ["diff.scope", "secrets", "tests.regression", "tests.red_green"];

it.runIf(!available && process.env.CI === "true")(`the browser test cannot be skipped in CI: ${CHROMIUM} is missing`, () => {
  expect.fail(`${CHROMIUM} is missing: install Debian's chromium (.ci/run does)`);
});

/** One judgment: whose, which PR, the claims that fail, when (a Monday-based week and day), seconds from push to verdict. */
interface Spec { agent: string; pull: number; failing: string[]; day: string; seconds: number; overriddenBy?: string }

// Weeks of 2026-01-05, -12, -19 and -26 (Mondays).
const SPECS: Spec[] = [
  { agent: "codex-bot[bot]", pull: 1, failing: ["tests.regression"], day: "2026-01-06T10:00:00Z", seconds: 60 },
  { agent: "label:claude", pull: 10, failing: [], day: "2026-01-07T10:00:00Z", seconds: 200 },
  { agent: "codex-bot[bot]", pull: 1, failing: [], day: "2026-01-08T10:00:00Z", seconds: 120 },
  { agent: "codex-bot[bot]", pull: 2, failing: ["secrets"], day: "2026-01-13T10:00:00Z", seconds: 30 },
  { agent: "codex-bot[bot]", pull: 3, failing: ["diff.scope"], day: "2026-01-20T10:00:00Z", seconds: 90, overriddenBy: "maria" },
  { agent: "label:claude", pull: 11, failing: ["tests.red_green", "tests.regression"], day: "2026-01-21T10:00:00Z", seconds: 300, overriddenBy: "oscar" },
  { agent: "label:claude", pull: 11, failing: ["tests.regression"], day: "2026-01-22T10:00:00Z", seconds: 100 },
  { agent: "codex-bot[bot]", pull: 4, failing: [], day: "2026-01-27T10:00:00Z", seconds: 45 },
];

describe.skipIf(!available)(`the agents page in headless Chromium${available ? "" : " (skipped: chromium is missing)"}`, () => {
  let server: Server;
  let base: string;
  let secret: string;
  let context: BrowserContext;
  let profile: string;
  const ids: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    const dataDir = tempDir();
    const journal = journalDeps({ dataDir });
    const authority = mergeAuthority({ dataDir });
    for (const [i, spec] of SPECS.entries()) {
      const head = String(i + 1).repeat(40).slice(0, 40).replace(/[^0-9a-f]/g, "a");
      const subject: Subject = {
        repository: REPO, base: "b".repeat(40), head, baseTree: "c".repeat(40), headTree: "d".repeat(40),
        policy: `sha256:${"e".repeat(64)}`, task: null, sandbox: `sha256:${"f".repeat(64)}`,
      };
      const evidence = CLAIMS.map((claim) => ({ claim, subject: subjectDigest(subject), outcome: spec.failing.includes(claim) ? "fail" as const : "pass" as const, reason: spec.failing.includes(claim) ? `${claim} does not hold` : "holds", details: [] }));
      const verdict = evaluate(makeGate(CLAIMS), evidence, subject, null);
      const queuedAt = new Date(Date.parse(spec.day) - spec.seconds * 1000).toISOString();
      const recorded = await journal.record({ verdict, evidence: [], facts: [], timings: {} }, { repository: REPO, ref: `refs/pull/${spec.pull}/head`, time: spec.day, agent: spec.agent, queuedAt });
      ids.push(recorded.journalId);
      if (spec.overriddenBy !== undefined) {
        await authority.recordOverride({
          repository: REPO, pullRequest: spec.pull, head, base: subject.base, by: spec.overriddenBy, role: "maintain", reason: "The failing claim measured a flaky runner; checked by hand.",
          time: new Date(Date.parse(spec.day) + 3_600_000).toISOString(),
          overrides: { entry: recorded.journalId, verdict: verdict.verdict, class: verdict.class, digest: verdict.subject.digest, reasons: verdict.reasons, failing: verdict.claims.filter((c) => c.status !== "pass") },
        });
      }
    }
    // A repository with a single verdict, for the page's smallest case.
    const lone = SPECS[0]!;
    const subject: Subject = { repository: "acme/lone", base: "b".repeat(40), head: "9".repeat(40), baseTree: "c".repeat(40), headTree: "d".repeat(40), policy: null, task: null, sandbox: null };
    const verdict = evaluate(makeGate(["diff.scope"]), [{ claim: "diff.scope", subject: subjectDigest(subject), outcome: "pass", reason: "in scope", details: [] }], subject, null);
    await journal.record({ verdict, evidence: [], facts: [], timings: {} }, { repository: "acme/lone", ref: "refs/pull/5/head", time: lone.day, agent: "solo-agent", queuedAt: "2026-01-06T09:59:00Z" });

    const deps = { judge: async () => { throw new Error("nothing is judged here"); }, ...journal, dataDir, clock: () => new Date("2026-02-03T04:05:06Z"), runner: new InProcessRunner(1) } as Parameters<typeof ranexApp>[0];
    secret = pageSecret(dataDir);
    const port = await freePort();
    const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    const options = { appId: 1, privateKey, secret: "test-secret", logLevel: "fatal" } as const;
    const quiet = new Probot(options);
    await quiet.load(() => {});
    server = new Server({ Probot: Probot.defaults(options), port, host: "127.0.0.1", log: quiet.log });
    await server.load(ranexApp(deps));
    await server.start();
    base = `http://127.0.0.1:${port}`;
    profile = mkdtempSync(join(tmpdir(), "ranex-chromium-"));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, viewport: { width: 1200, height: 900 } });
    context.on("request", (request) => requests.push(request.url()));
    mkdirSync(OUTPUT, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await server?.stop();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  });

  async function open(repository: string, shot: string): Promise<Page> {
    const page = await context.newPage();
    const response = await page.goto(`${base}${agentsHref(secret, repository)}`);
    expect(response?.status()).toBe(200);
    expect(response!.headers()["content-security-policy"]).toContain("default-src 'none'");
    expect(await page.locator("script").count()).toBe(0);
    await page.screenshot({ path: join(OUTPUT, `${shot}.png`), fullPage: true });
    return page;
  }

  const cell = (page: Page, agent: string, key: string) => page.locator(`#summary tr[data-agent="${agent}"] td[data-k="${key}"]`).innerText();

  it("shows each agent's numbers as the journal holds them", async () => {
    const page = await open(REPO, "agents");
    await expect.poll(() => page.locator("h1").innerText()).toBe(`Agents of ${REPO}`);
    expect(await page.locator("#summary tbody tr").count()).toBe(2);
    // codex-bot[bot]: PRs 1-4, five judgments, two CANDIDATE; FAILs: regression (incomplete), secrets (unsafe), scope (incomplete, overridden by maria).
    const codex = { prs: "4", judgments: "5", "candidate-rate": "40%", fails: "3", unsafe: "1", incomplete: "2", retries: "2", overrides: "1", median: "60 s", p90: "2.0 min" };
    for (const [key, value] of Object.entries(codex)) expect([key, await cell(page, "codex-bot[bot]", key)]).toEqual([key, value]);
    // label:claude: PRs 10-11, three judgments, one CANDIDATE; two incomplete FAILs, one overridden by oscar. Push to verdict 200, 300, 100 s.
    const claude = { prs: "2", judgments: "3", "candidate-rate": "33%", fails: "2", unsafe: "0", incomplete: "2", retries: "2", overrides: "1", median: "3.3 min", p90: "5.0 min" };
    for (const [key, value] of Object.entries(claude)) expect([key, await cell(page, "label:claude", key)]).toEqual([key, value]);

    const codexSection = page.locator('section.agent[data-agent="codex-bot[bot]"]');
    expect(await codexSection.locator("table.fails-by-claim tbody tr").allInnerTexts()).toEqual(["diff.scope\t1", "secrets\t1", "tests.regression\t1"]);
    expect(await codexSection.locator("table.overrides-by tbody tr").allInnerTexts()).toEqual(["@maria\t1"]);
    const claudeSection = page.locator('section.agent[data-agent="label:claude"]');
    expect(await claudeSection.locator("h2").innerText()).toBe("label claude");
    expect(await claudeSection.locator("table.fails-by-claim tbody tr").allInnerTexts()).toEqual(["tests.regression\t2", "tests.red_green\t1"]);
    expect(await claudeSection.locator("table.overrides-by tbody tr").allInnerTexts()).toEqual(["@oscar\t1"]);
    await page.close();
  });

  it("draws the weekly charts on the server: four weeks, bars where there were judgments, a ring per override", async () => {
    const page = await open(REPO, "agents-charts");
    const codex = page.locator('section.agent[data-agent="codex-bot[bot]"] svg.chart').first();
    expect(await codex.getAttribute("data-weeks")).toBe("4");
    const weeks = await codex.locator("g.week").evaluateAll((gs) => gs.map((g) => [g.getAttribute("data-week"), g.getAttribute("data-candidates"), g.getAttribute("data-fails"), g.getAttribute("data-overrides")]));
    expect(weeks).toEqual([["2026-01-05", "1", "1", "0"], ["2026-01-12", "0", "1", "0"], ["2026-01-19", "0", "1", "1"], ["2026-01-26", "1", "0", "0"]]);
    expect(await codex.locator("rect.bar.candidate").count()).toBe(2);
    expect(await codex.locator("rect.bar.fail").count()).toBe(3);
    expect(await codex.locator("circle.override").count()).toBe(1);
    // Every bar was laid out by the browser with a real size: the chart is drawn, not just present.
    const sizes = await codex.locator("rect.bar").evaluateAll((rects) => rects.map((r) => (r as SVGGraphicsElement).getBBox()).map((b) => [b.width > 0, b.height > 0]));
    expect(sizes.every(([w, h]) => w && h)).toBe(true);
    const box = await codex.boundingBox();
    expect(box!.width).toBeGreaterThan(400);
    // label:claude judged nothing in the second and fourth weeks: no bar there, on the same week axis.
    const claude = page.locator('section.agent[data-agent="label:claude"] svg.chart').first();
    expect(await claude.locator("g.week").evaluateAll((gs) => gs.map((g) => g.getAttribute("data-judgments")))).toEqual(["1", "0", "2", "0"]);
    const latency = page.locator("#latency-1");
    expect(await latency.locator("circle.point").evaluateAll((cs) => cs.map((c) => [c.getAttribute("data-week"), c.getAttribute("data-median-ms")]))).toEqual([["2026-01-05", "200000"], ["2026-01-19", "200000"]]);
    await codex.screenshot({ path: join(OUTPUT, "agents-chart.png") });
    await page.close();
  });

  it("lists the last judgments, newest first, linking to their verdict pages; an overridden one says so there too", async () => {
    const page = await open(REPO, "agents-last");
    const rows = page.locator('section.agent[data-agent="codex-bot[bot]"] table.last tbody tr');
    expect(await rows.count()).toBe(5);
    expect(await rows.first().innerText()).toMatch(/^CANDIDATE\t#4\t/);
    const overridden = rows.nth(1);
    expect(await overridden.innerText()).toMatch(/^FAIL \(incomplete\) overridden by @maria\t#3\t.*diff\.scope/);
    expect(await overridden.locator("a").getAttribute("href")).toBe(verdictHref(secret, ids[4]!));
    await overridden.locator("a").click();
    await expect.poll(() => page.locator("#overridden .verdict").innerText()).toBe("OVERRIDDEN");
    expect(await page.locator("#overridden .lede").innerText()).toContain("by @maria (maintain)");
    // The measured verdict still follows, unchanged.
    expect(await page.locator(".banner.FAIL .verdict").innerText()).toMatch(/^FAIL/);
    await page.screenshot({ path: join(OUTPUT, "verdict-overridden.png"), fullPage: true });
    await page.close();
  });

  it("renders an empty repository and a single-verdict one sensibly, and needs the token", async () => {
    const empty = await open("acme/nothing-yet", "agents-empty");
    expect(await empty.locator("#empty").innerText()).toContain("No agent's pull request has been judged in this repository yet");
    expect(await empty.locator("svg").count()).toBe(0);
    await empty.close();
    const lone = await open("acme/lone", "agents-single");
    expect(await cell(lone, "solo-agent", "judgments")).toBe("1");
    expect(await cell(lone, "solo-agent", "candidate-rate")).toBe("100%");
    expect(await cell(lone, "solo-agent", "median")).toBe("60 s");
    expect(await cell(lone, "solo-agent", "p90")).toBe("60 s");
    expect(await lone.locator("svg.chart").first().getAttribute("data-weeks")).toBe("1");
    await lone.close();
    const page = await context.newPage();
    for (const url of [`${base}/ranex/agents?repo=${encodeURIComponent(REPO)}`, `${base}/ranex/agents?repo=acme%2Flone&${agentsHref(secret, REPO).split("&")[1]}`]) {
      expect((await page.goto(url))?.status()).toBe(404);
    }
    await page.close();
  });

  it("made no request anywhere but this server", () => {
    expect(requests.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
