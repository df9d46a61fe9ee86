import { createHash } from "node:crypto";
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildStatement, dataDirKey, signStatement, type DsseEnvelope, type SigningKey } from "../../src/attest/index.js";
import { renderApproval } from "../../src/github/approval/check.js";
import { renderOutput } from "../../src/github/pull-request/render.js";
import { anchorOf, openJournal, type Journal, type JournalEntry } from "../../src/journal/index.js";
import type { Verdict } from "../../src/kernel/index.js";
import { makeVerdictFixture } from "../attest/verdict-fixture.js";
import { APP_ID, PRIVATE_KEY } from "../e2e/standin/app-process.js";
import { GitHubStandIn } from "../e2e/standin/github.js";
import { tempDir } from "../helpers/git-repo.js";
import { freshSchema, postgresAvailable, skippedName, TEST_DATABASE_URL } from "../helpers/postgres.js";
import { ranex } from "./cli-capture.js";

// `ranex journal verify --github`: the journal checked against the anchors its check runs left on
// GitHub (a loopback stand-in that answers as GitHub's REST API does, requests checked against
// @octokit/openapi). The operator holds the signing key, so a cut or forked journal still verifies
// on its own; only GitHub's copy can tell.

const OWNER = "acme";
const REPO = "widgets";
const fixture = makeVerdictFixture();
const github = new GitHubStandIn(APP_ID, PRIVATE_KEY);
let appEnv: Record<string, string>;

beforeAll(async () => {
  await github.start();
  appEnv = { APP_ID: String(APP_ID), PRIVATE_KEY, GHE_HOST: github.url.replace(/^http:\/\//, ""), GHE_PROTOCOL: "http" };
});
afterAll(() => github.close());
beforeEach(() => {
  github.checkRuns.length = 0;
  github.pulls.clear();
  github.problems.length = 0;
  github.log.length = 0;
});

const headOf = (n: number) => createHash("sha1").update(`head ${n}`).digest("hex");

/** The journal's entries, in order: which kind, on which pull request, and a time that makes each distinct. */
interface Spec { kind: "verdict" | "approval"; pull: number; time: string }
const SPECS: Spec[] = [
  { kind: "verdict", pull: 1, time: "2026-01-01T00:00:00.000Z" },
  { kind: "verdict", pull: 2, time: "2026-01-02T00:00:00.000Z" },
  { kind: "approval", pull: 2, time: "2026-01-03T00:00:00.000Z" },
  { kind: "verdict", pull: 3, time: "2026-01-04T00:00:00.000Z" },
];

function verdictOn(pull: number): Verdict {
  return { ...fixture.verdict, subject: { ...fixture.verdict.subject, head: headOf(pull) } };
}

async function append(journal: Journal, key: SigningKey, spec: Spec): Promise<JournalEntry> {
  const verdict = verdictOn(spec.pull);
  return journal.append(spec.kind, verdict.subject.digest, async (head) => signStatement(buildStatement(verdict, {
    repository: `${OWNER}/${REPO}`, ref: `refs/pull/${spec.pull}/head`, gateVersion: "0.1.0", time: spec.time, journal: head, evidence: fixture.evidence,
  }), key));
}

/** A data dir as the app leaves it, and each entry's check run on the stand-in, rendered by the app's own templates. */
async function judged(databaseUrl?: string): Promise<{ dataDir: string; key: SigningKey; entries: JournalEntry[] }> {
  const dataDir = join(tempDir(), "data");
  const key = await dataDirKey(dataDir);
  const journal = await openJournal(databaseUrl === undefined ? { dataDir } : { dataDir, databaseUrl });
  const entries: JournalEntry[] = [];
  try {
    for (const spec of SPECS) entries.push(await append(journal, key, spec));
  } finally {
    await journal.close();
  }
  entries.forEach((entry, i) => postCheckRun(entry, SPECS[i]!));
  for (const pull of new Set(SPECS.map((s) => s.pull))) {
    github.pulls.set(`${OWNER}/${REPO}#${pull}`, { number: pull, head: headOf(pull), base: fixture.base, headRef: `agent/${pull}`, author: "agent", body: "", labels: [], updatedAt: `2026-01-0${pull}T12:00:00Z` });
  }
  return { dataDir, key, entries };
}

function postCheckRun(entry: JournalEntry, spec: Spec, appId?: number): void {
  const head = headOf(spec.pull);
  const output = spec.kind === "verdict"
    ? renderOutput({ verdict: verdictOn(spec.pull), timings: {}, envelope: entry.payload as DsseEnvelope, journalId: entry.id, draft: false, anchor: anchorOf(entry) })
    : renderApproval({
      kind: "approved", head, judgeEntry: "judge-entry", journalId: entry.id, envelope: entry.payload as DsseEnvelope, anchor: anchorOf(entry),
      decision: { head, needed: 1, qualifying: [{ login: "monalisa", reviewId: 80 }], refused: [], ineligible: [], baseMerges: [], blocked: [], satisfied: true },
    }, null);
  github.checkRuns.push({
    id: 5000 + github.checkRuns.length, owner: OWNER, repo: REPO, name: spec.kind === "verdict" ? "ranex/judge" : "ranex/approval", head_sha: head,
    status: "completed", conclusion: "success", external_id: entry.id, output, bodies: [], ...(appId === undefined ? {} : { appId }),
  });
}

/** Drops the append-only triggers and runs `sql`: what an operator with the database file can do. */
function tamper(dataDir: string, sql: string): void {
  const db = new Database(join(dataDir, "journal.db"));
  db.exec("DROP TRIGGER IF EXISTS ranex_journal_no_update; DROP TRIGGER IF EXISTS ranex_journal_no_delete;");
  db.exec(sql);
  db.close();
}

function copyOf(dataDir: string): string {
  const copy = join(tempDir(), "copy");
  mkdirSync(copy);
  cpSync(dataDir, copy, { recursive: true });
  return copy;
}

const verifyGitHub = (dataDir: string, env: Record<string, string> = appEnv, ...more: string[]) =>
  ranex(["journal", "verify", "--data-dir", dataDir, "--github", `${OWNER}/${REPO}`, ...more], { env });

describe("ranex journal verify --github", () => {
  it("passes an intact journal: every check run's anchor is held, read as the app over GHE's /api/v3", async () => {
    const { dataDir, entries } = await judged();
    const result = await verifyGitHub(dataDir);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain(`journal ok: 4 entries, head is entry 4 (${entries[3]!.hash})`);
    expect(result.stdout).toContain(`GitHub ${OWNER}/${REPO} (app ${APP_ID}, installation 1, app ${APP_ID}'s check runs): 4 check runs on 3 commits, 4 anchored (up to entry 4), 0 naming an entry by id only`);
    expect(result.code).toBe(0);
    expect(github.log).toContain(`GET /repos/${OWNER}/${REPO}/installation`);
    expect(github.problems).toEqual([]);
  });

  it("catches a journal with its last entries cut, which verifies on its own", async () => {
    const { dataDir } = await judged();
    tamper(dataDir, "DELETE FROM ranex_journal WHERE sequence >= 3");
    const alone = await ranex(["journal", "verify", "--data-dir", dataDir]);
    expect(alone.stdout).toContain("journal ok: 2 entries");
    expect(alone.code).toBe(0);

    const result = await verifyGitHub(dataDir);
    expect(result.stdout).toMatch(/^journal BROKEN at entry 3: check run ranex\/(judge|approval) \d+ on [0-9a-f]{7} \(http:\/\/[^)]+\) needs entry 3, but the journal ends at entry 2: it was truncated or rolled back\n$/);
    expect(result.code).toBe(1);
    expect(github.problems).toEqual([]);
  });

  it("catches a forked journal: an entry replaced and the chain after it re-signed with the gate's own key", async () => {
    const { dataDir, key, entries } = await judged();
    const fork = copyOf(dataDir);
    tamper(fork, "DELETE FROM ranex_journal WHERE sequence >= 2");
    const journal = await openJournal({ dataDir: fork });
    // The operator rewrites history from entry 2 on: a different entry 2, then the rest again on top of it.
    await append(journal, key, { ...SPECS[1]!, time: "2026-01-02T00:00:01.000Z" });
    for (const spec of SPECS.slice(2)) await append(journal, key, spec);
    await journal.close();
    const alone = await ranex(["journal", "verify", "--data-dir", fork]);
    expect(alone.stdout).toContain("journal ok: 4 entries");
    expect(alone.stdout).toContain("signatures checked against the data dir's key");

    const result = await verifyGitHub(fork);
    expect(result.stdout).toContain("journal BROKEN at entry 2 (");
    expect(result.stdout).toContain(`but check run ranex/judge`);
    expect(result.stdout).toContain(`says ${entries[1]!.hash}: the journal was rewritten from here`);
    expect(result.code).toBe(1);
  });

  it("finds the newest check run on the second page of pull requests", async () => {
    const { dataDir } = await judged();
    // 120 newer pull requests without a check run push the judged ones onto page 2.
    for (let n = 100; n < 220; n++) {
      github.pulls.set(`${OWNER}/${REPO}#${n}`, { number: n, head: headOf(n), base: fixture.base, headRef: `p${n}`, author: "agent", body: "", labels: [], updatedAt: "2026-02-01T00:00:00Z" });
    }
    tamper(dataDir, "DELETE FROM ranex_journal WHERE sequence = 4");
    const result = await verifyGitHub(dataDir);
    expect(result.stdout).toMatch(/^journal BROKEN at entry 4: check run ranex\/judge \d+ on [0-9a-f]{7} .*ends at entry 3/);
    expect(github.log.filter((line) => line.startsWith(`GET /repos/${OWNER}/${REPO}/pulls`))).toHaveLength(2);
    expect(github.problems).toEqual([]);
  });

  it("counts only this app's check runs when it knows the app id; with a bare token and no id, any app's", async () => {
    const { dataDir, entries } = await judged();
    // Another app posts a ranex/judge with an anchor that names an entry this gate never wrote.
    const bogus = { ...entries[3]!, id: "not-ours", sequence: 9, prevHash: entries[3]!.hash, hash: "f".repeat(64) };
    postCheckRun(bogus, SPECS[3]!, 999);
    expect((await verifyGitHub(dataDir)).code).toBe(0);

    const token = { GITHUB_TOKEN: github.mintToken(), GHE_HOST: appEnv.GHE_HOST!, GHE_PROTOCOL: "http" };
    const anyApp = await verifyGitHub(dataDir, token);
    expect(anyApp.stdout).toContain("needs entry 8, but the journal ends at entry 4");
    expect(anyApp.code).toBe(1);
    const pinned = await verifyGitHub(dataDir, token, "--app-id", String(APP_ID));
    expect(pinned.stdout).toContain("(GITHUB_TOKEN, app 4242's check runs): 4 check runs");
    expect(pinned.code).toBe(0);
  });

  it("names a check run from before anchors whose entry (by external_id) the journal lacks", async () => {
    const { dataDir } = await judged();
    github.checkRuns.push({
      id: 7000, owner: OWNER, repo: REPO, name: "ranex/judge", head_sha: headOf(1), status: "completed", conclusion: "failure",
      external_id: "0b9a6f1e-0000-4000-8000-000000000000", output: { title: "FAIL", summary: "old" }, bodies: [],
    });
    const result = await verifyGitHub(dataDir);
    expect(result.stdout).toContain("journal BROKEN: check run ranex/judge 7000 on");
    expect(result.stdout).toContain("names journal entry 0b9a6f1e-0000-4000-8000-000000000000, which the journal does not hold");
    expect(result.code).toBe(1);
  });

  it("reads a recorded verdict posted again (anchored, or naming its entry by id when its anchor is unknown) like the first", async () => {
    const { dataDir, entries } = await judged();
    const first = github.checkRuns[0]!;
    github.checkRuns.push({ ...first, id: 6000, output: { ...first.output, summary: "posted again" } });
    const unknown = renderOutput({ verdict: verdictOn(1), timings: {}, envelope: entries[0]!.payload as DsseEnvelope, journalId: entries[0]!.id, draft: false, anchor: "unknown" });
    github.checkRuns.push({ ...first, id: 6001, output: unknown });
    const intact = await verifyGitHub(dataDir);
    expect(intact.stdout).toContain("6 check runs on 3 commits, 5 anchored (up to entry 4), 1 naming an entry by id only");
    expect(intact.code).toBe(0);
    expect(github.problems).toEqual([]);
  });

  it("finds a merge group's check run through the pull request the queue merged, even when the journal no longer names its commit", async () => {
    const { dataDir, key } = await judged();
    const group = createHash("sha1").update("merge group of #3").digest("hex");
    const verdict = { ...fixture.verdict, subject: { ...fixture.verdict.subject, head: group } };
    const journal = await openJournal({ dataDir });
    const entry = await journal.append("verdict", verdict.subject.digest, async (head) => signStatement(buildStatement(verdict, {
      repository: `${OWNER}/${REPO}`, ref: `refs/heads/gh-readonly-queue/main/pr-3-${fixture.base}`, gateVersion: "0.1.0", time: "2026-01-05T00:00:00.000Z", journal: head, evidence: fixture.evidence,
    }), key));
    await journal.close();
    const output = renderOutput({ verdict, timings: {}, envelope: entry.payload as DsseEnvelope, journalId: entry.id, draft: false, anchor: anchorOf(entry) });
    github.checkRuns.push({ id: 6100, owner: OWNER, repo: REPO, name: "ranex/judge", head_sha: group, status: "completed", conclusion: "success", external_id: entry.id, output, bodies: [] });
    github.pulls.set(`${OWNER}/${REPO}#3`, { ...github.pulls.get(`${OWNER}/${REPO}#3`)!, state: "closed", mergeCommit: group });
    expect((await verifyGitHub(dataDir)).stdout).toContain("5 check runs on 4 commits, 5 anchored (up to entry 5)");
    // Cut with its entry, nothing in the journal names the group commit any more: GitHub's pull request does.
    tamper(dataDir, "DELETE FROM ranex_journal WHERE sequence = 5");
    const cut = await verifyGitHub(dataDir);
    expect(cut.stdout).toMatch(/^journal BROKEN at entry 5: check run ranex\/judge 6100 on [0-9a-f]{7} .*needs entry 5, but the journal ends at entry 4/);
    expect(cut.code).toBe(1);
    expect(github.problems).toEqual([]);
  });

  it("reads only pull requests updated since --since, and exits 2 without credentials or on a bad argument", async () => {
    const { dataDir } = await judged();
    tamper(dataDir, "DELETE FROM ranex_journal WHERE sequence = 4");
    // Pull request 3 (entry 4) was last updated on January 3rd: after that, nothing names entry 4.
    const late = await verifyGitHub(dataDir, appEnv, "--since", "2026-01-04");
    expect(late.stdout, late.stdout).toContain("since 2026-01-04T00:00:00.000Z");
    expect(late.code).toBe(0);
    expect((await verifyGitHub(dataDir, appEnv, "--since", "2026-01-03")).code).toBe(1);

    const bare = await verifyGitHub(dataDir, { GHE_HOST: appEnv.GHE_HOST!, GHE_PROTOCOL: "http" });
    expect(bare.stderr).toContain("no GitHub credentials: set GITHUB_TOKEN, or APP_ID with PRIVATE_KEY");
    expect(bare.code).toBe(2);
    expect((await ranex(["journal", "verify", "--data-dir", dataDir, "--github", "nope"], { env: appEnv })).code).toBe(2);
    expect((await ranex(["journal", "verify", "--data-dir", dataDir, "--since", "2026-01-01"], { env: appEnv })).code).toBe(2);
    const down = await verifyGitHub(dataDir, { ...appEnv, GHE_HOST: "127.0.0.1:9" });
    expect(down.stderr).toContain(`could not read the check runs of ${OWNER}/${REPO}`);
    expect(down.code).toBe(2);
  });
});

const reachable = await postgresAvailable();
(reachable ? describe : describe.skip)(reachable ? "ranex journal verify --github on Postgres" : skippedName("ranex journal verify --github on Postgres"), () => {
  it("passes the intact Postgres journal and catches one whose tail was cut", async () => {
    const schema = freshSchema("ranex_anchor");
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    try {
      const url = new URL(TEST_DATABASE_URL);
      url.searchParams.set("options", `-c search_path=${schema}`);
      const { dataDir } = await judged(url.toString());
      const env = { ...appEnv, DATABASE_URL: url.toString() };
      const intact = await verifyGitHub(dataDir, env);
      expect(intact.stdout).toContain("4 anchored (up to entry 4)");
      expect(intact.code).toBe(0);
      await admin.query(`ALTER TABLE ${schema}.ranex_journal DISABLE TRIGGER USER`);
      await admin.query(`DELETE FROM ${schema}.ranex_journal WHERE sequence = 4`);
      const cut = await verifyGitHub(dataDir, env);
      expect(cut.stdout).toMatch(/^journal BROKEN at entry 4: .*ends at entry 3: it was truncated or rolled back/);
      expect(cut.code).toBe(1);
    } finally {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  });
});
