import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataDirKey, publicKeyPem, SEED_FILE } from "../../src/attest/index.js";
import { openJournal } from "../../src/journal/index.js";
import { fixtureRepo } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";
import { adminSql, freshSchema, postgresAvailable, skippedName, urlInSchema } from "../helpers/postgres.js";
import { APP_ID, deliver, PRIVATE_KEY, pullRequestPayload, startApp, waitFor, type AppProcess } from "./standin/app-process.js";
import { GitHubStandIn } from "./standin/github.js";

// Scale-out on Postgres: two webhook replicas (RANEX_CONCURRENCY=0) and two `ranex worker`s share one
// queue and one journal. A burst of PRs, each delivered twice (to both replicas, as a redelivery
// would): every head is judged exactly once, and the journal is one unbroken, signed chain.

const OWNER = "Codertocat";
const REPO = "Hello-World";
const SCHEMA = freshSchema("e2e_app");
const withPostgres = await postgresAvailable();
const DATABASE_URL = withPostgres ? urlInSchema(SCHEMA) : "";
const BRANCHES = { 2: "honest", 3: "edit-test", 4: "scope-escape", 5: "honest-task" } as const;
const github = new GitHubStandIn(APP_ID, PRIVATE_KEY);
const processes: AppProcess[] = [];
const keyDir = tempDir("ranex-e2e-key-");

beforeAll(async () => {
  if (!withPostgres) return;
  await adminSql(`CREATE SCHEMA ${SCHEMA}`);
  await github.start();
  await dataDirKey(keyDir);
}, 60_000);

afterAll(async () => {
  if (!withPostgres) return;
  await Promise.all(processes.map((p) => p.stop()));
  await github.close();
  await adminSql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; DROP SCHEMA IF EXISTS ${SCHEMA}_pgboss CASCADE`);
}, 60_000);

describe.runIf(withPostgres)("two webhook replicas and two workers on Postgres", () => {
  it("judges each PR of a burst exactly once, in one unbroken journal chain", async () => {
    const cloneUrl = github.addRepo(OWNER, REPO, await fixtureRepo("python-calc"), BRANCHES);
    const base = github.rev(OWNER, REPO, "main");
    const env = { DATABASE_URL, RANEX_SIGNING_KEY_PATH: join(keyDir, SEED_FILE) };
    // The first start creates the tables; the others then start at once.
    const first = await startApp(github, { dataDir: tempDir(), env: { ...env, RANEX_CONCURRENCY: "0" } });
    processes.push(first, ...await Promise.all([
      startApp(github, { dataDir: tempDir(), env: { ...env, RANEX_CONCURRENCY: "0" } }),
      startApp(github, { dataDir: tempDir(), role: "worker", env: { ...env, RANEX_CONCURRENCY: "1" } }),
      startApp(github, { dataDir: tempDir(), role: "worker", env: { ...env, RANEX_CONCURRENCY: "1" } }),
    ]));
    const [replicaA, replicaB] = processes as [AppProcess, AppProcess];
    const heads: string[] = [];
    const acks: number[] = [];
    await Promise.all(Object.entries(BRANCHES).map(async ([number, branch], i) => {
      const head = github.rev(OWNER, REPO, `refs/pull/${number}/head`);
      heads.push(head);
      const event = pullRequestPayload({ number: Number(number), head, base, headRef: `agent/${branch}`, body: branch === "honest" ? "Ranex-Task: mul" : branch === "honest-task" ? "Ranex-Task: div" : "", cloneUrl });
      const id = crypto.randomUUID();
      const [to, again] = i % 2 === 0 ? [replicaA, replicaB] : [replicaB, replicaA];
      acks.push((await deliver(to.url, "pull_request", event, { id })).status, (await deliver(again.url, "pull_request", event, { id })).status);
    }));
    expect(acks.filter((s) => s === 202)).toHaveLength(4);
    expect(acks.filter((s) => s === 200)).toHaveLength(4);

    await waitFor("a verdict on every head", () => heads.every((h) => github.runsFor(h).some((r) => r.status === "completed")), 150_000,
      processes.flatMap((p) => p.output));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    for (const head of heads) {
      const runs = github.runsFor(head);
      expect(runs, head).toHaveLength(1);
      expect(runs[0]!.external_id, head).toEqual(expect.any(String));
    }
    const journal = await openJournal({ dataDir: keyDir, databaseUrl: DATABASE_URL });
    try {
      const key = await dataDirKey(keyDir);
      expect(await journal.verify({ publicKeyPem: publicKeyPem(key.publicKey) })).toMatchObject({ ok: true });
      // One verdict per head, judged once. Other kinds may follow a verdict (an unsafe FAIL is
      // escalated at once, and that is journalled too).
      const verdicts: string[] = [];
      for await (const entry of journal.entries()) if (entry.kind === "verdict") verdicts.push(entry.subject);
      expect(verdicts).toHaveLength(4);
      expect(new Set(verdicts).size).toBe(4);
    } finally {
      await journal.close();
    }
    expect(github.problems).toEqual([]);
  }, 240_000);
});

// Without a server this suite is reported skipped by name, never silently.
if (!withPostgres) describe.skip(skippedName("two webhook replicas and two workers on Postgres"), () => it.skip("needs a reachable RANEX_TEST_DATABASE_URL", () => undefined));
