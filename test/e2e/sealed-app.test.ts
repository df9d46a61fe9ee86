import { copyFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEAL_KEY_FILE, SEAL_PUBLIC_KEY_FILE, sealedFileDigest } from "../../src/attest/index.js";
import { verdictHref, pageSecret } from "../../src/web/index.js";
import { ranex } from "../cli/cli-capture.js";
import { tempDir } from "../helpers/git-repo.js";
import { SEALED_FILE, SECRETS, sealedRoman, type SealedRepo } from "../helpers/sealed-repo.js";
import { APP_ID, deliver, PRIVATE_KEY, pullRequestPayload, startApp, waitFor, type AppProcess } from "./standin/app-process.js";
import { GitHubStandIn, type CheckRun } from "./standin/github.js";

// Sealed acceptance tests through the whole App (issue 20): signed webhooks in, the real queue,
// judge and journal, check runs out over real HTTP to a stand-in GitHub. Then everything the agent
// can read (every byte sent to GitHub, the verdict pages, the journal's rows, the CLI's --json, and
// the app's own log) is searched for the sealed tests' names, file, source lines and output. The
// same search over a repository whose acceptance tests are plain targets (sealing turned off) must
// find them, so the search can fail.

const OWNER = "Codertocat";
const SEALED = "Sealed-World";
const PLAIN = "Plain-World";
const github = new GitHubStandIn(APP_ID, PRIVATE_KEY);
let app: AppProcess;
let dataDir: string;
let repo: SealedRepo;
const urls: Record<string, string> = {};

beforeAll(async () => {
  await github.start();
  dataDir = tempDir("ranex-e2e-sealed-");
  repo = await sealedRoman(dataDir);
  const pulls = { 2: "honest", 3: "lookup", 4: "always-equal" };
  urls[SEALED] = github.addRepo(OWNER, SEALED, repo.dir, pulls);
  urls[PLAIN] = github.addRepo(OWNER, PLAIN, repo.dir, pulls);
  github.branch(OWNER, PLAIN, "main", "main-plain");
  app = await startApp(github, { dataDir });
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await github.close();
});

function pullEvent(name: string, number: number, branch: string) {
  const base = github.rev(OWNER, name, "main");
  const event = pullRequestPayload({ number, head: github.rev(OWNER, name, `refs/pull/${number}/head`), base, headRef: `agent/${branch}`, body: "Ranex-Task: roman", cloneUrl: urls[name]! });
  (event.repository as { name: string; full_name: string }).name = name;
  (event.repository as { name: string; full_name: string }).full_name = `${OWNER}/${name}`;
  const pr = event.pull_request as { head: { sha: string }; user: { login: string } };
  github.pulls.set(`${OWNER}/${name}#${number}`, { number, head: pr.head.sha, base, headRef: `agent/${branch}`, author: pr.user.login, body: "Ranex-Task: roman", labels: [] });
  return event;
}

async function judged(name: string, number: number, branch: string): Promise<CheckRun> {
  const event = pullEvent(name, number, branch);
  expect((await deliver(app.url, "pull_request", event)).status).toBe(202);
  const [run] = await waitFor(`ranex/judge on ${name}#${number}`, () => {
    const runs = github.runsFor(event.pull_request.head.sha).filter((r) => r.status === "completed" && r.repo === name);
    return runs.length > 0 ? runs : null;
  }, 150_000, app.output);
  return run!;
}

/** Everything of `name` the agent could read, as one text. */
async function readable(name: string, runs: CheckRun[]): Promise<string> {
  const parts = [...github.sent.filter((s) => s.includes(`/${name}/`)), ...github.comments.map((c) => c.body)];
  for (const run of runs) {
    const page = await fetch(`${app.url}${verdictHref(pageSecret(dataDir), run.external_id!)}`);
    expect(page.status).toBe(200);
    parts.push(await page.text());
  }
  for (const file of readdirSync(dataDir).filter((f) => f.endsWith(".db"))) {
    const db = new Database(join(dataDir, file), { readonly: true });
    for (const { name: table } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]) {
      parts.push(JSON.stringify(db.prepare(`SELECT * FROM "${table}"`).all()));
    }
    db.close();
  }
  // The CLI judges with the gate's sealing key, copied into a data dir of its own as an operator would.
  const cliData = tempDir();
  for (const file of [SEAL_KEY_FILE, SEAL_PUBLIC_KEY_FILE]) copyFileSync(join(dataDir, file), join(cliData, file));
  const base = name === SEALED ? "main" : "main-plain";
  for (const head of ["lookup", "always-equal"]) {
    const cli = await ranex(["judge", "--repo", repo.dir, "--base", base, "--head", head, "--task", "roman", "--json", "--data-dir", cliData], { env: { RANEX_DATA_DIR: cliData } });
    parts.push(cli.stdout, cli.stderr);
  }
  parts.push(app.output.join("\n"));
  return parts.join("\n");
}

function found(text: string): string[] {
  return Object.values(SECRETS).flat().filter((needle) => text.includes(needle));
}

describe("sealed acceptance tests through the App", () => {
  it("judges honest CANDIDATE, lookup and always-equal FAIL on tests.sealed, and leaks nothing of the sealed tests", async () => {
    const honest = await judged(SEALED, 2, "honest");
    const lookup = await judged(SEALED, 3, "lookup");
    const equal = await judged(SEALED, 4, "always-equal");
    expect(honest.output?.title, honest.output?.summary).toMatch(/^CANDIDATE/);
    expect(honest.conclusion).toBe("success");
    for (const run of [lookup, equal]) {
      expect(run.conclusion).toBe("failure");
      expect(run.output?.summary).toContain("tests.sealed");
      expect(run.output?.summary).toMatch(/3 of 3 sealed tests do not pass on head/);
    }
    expect(github.problems).toEqual([]);
    // The page server publishes the key maintainers seal to (`ranex seal --key <url>`).
    expect(await (await fetch(`${app.url}/ranex/seal-key`)).text()).toBe(readFileSync(join(dataDir, SEAL_PUBLIC_KEY_FILE), "utf8"));
    const text = await readable(SEALED, [honest, lookup, equal]);
    expect(text).toMatch(/sealed-[0-9a-f]{10}: \w+ on base, \w+ on head/);
    // The signed verdict, its check run, its page and the CLI name the sealed file's digest.
    const digest = sealedFileDigest(readFileSync(join(repo.dir, SEALED_FILE)));
    expect(honest.output?.summary).toContain(digest);
    expect(text.split(digest).length).toBeGreaterThan(6);
    expect(found(text)).toEqual([]);
  }, 400_000);

  it("the same search finds the tests once they are plain targets (sealing turned off)", async () => {
    const lookup = await judged(PLAIN, 3, "lookup");
    const equal = await judged(PLAIN, 4, "always-equal");
    for (const run of [lookup, equal]) expect(run.conclusion).toBe("failure");
    const text = await readable(PLAIN, [lookup, equal]);
    const hits = found(text);
    for (const needle of [...SECRETS.names, ...SECRETS.file, ...SECRETS.output]) expect(hits, needle).toContain(needle);
  }, 400_000);
});
