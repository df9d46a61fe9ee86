import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureRepo } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";
import { APP_ID, deliver, PRIVATE_KEY, pullRequestPayload, startApp, waitFor, type AppProcess } from "./standin/app-process.js";
import { GitHubStandIn } from "./standin/github.js";

// Nothing outlives its parent (issue 21): the server is killed outright (SIGKILL: no shutdown code
// runs) while a sandbox of its judgment runs (the `hang` head, whose tests never return). The
// measuring process and every sandbox it started must die with it, and the judgment's scratch folder
// in the temp dir must be gone once the server has started again. The server gets a temp dir of its
// own, so every `ranex-judge-*` folder in it is this test's.

const OWNER = "Codertocat";
const REPO = "Hello-World";
const github = new GitHubStandIn(APP_ID, PRIVATE_KEY);
const dataDir = tempDir("ranex-e2e-orphans-");
const tmp = join(tempDir("ranex-e2e-orphans-tmp-"), "tmp");
let app: AppProcess | undefined;

beforeAll(async () => {
  mkdirSync(tmp);
  await github.start();
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await github.close();
});

interface Proc { pid: number; ppid: number; state: string; cmd: string }

function processes(): Proc[] {
  const all: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/g, " ").trim();
      all.push({ pid: Number(name), ppid: Number(rest[1]), state: rest[0] ?? "?", cmd });
    } catch { /* gone meanwhile */ }
  }
  return all;
}

/** Every live descendant of `root`. */
function descendants(root: number): Proc[] {
  const all = processes();
  const found: Proc[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const children = all.filter((p) => frontier.includes(p.ppid));
    found.push(...children);
    frontier = children.map((p) => p.pid);
  }
  return found.filter((p) => p.state !== "Z" && p.state !== "X");
}

const isBwrap = (p: Proc): boolean => (p.cmd.split(" ")[0] ?? "").endsWith("bwrap");
const alive = (pid: number): boolean => processes().some((p) => p.pid === pid && p.state !== "Z" && p.state !== "X");
const judgeFolders = (): string[] => readdirSync(tmp).filter((name) => name.startsWith("ranex-judge-"));

describe("a server killed mid-judgment", () => {
  it("takes its measurer and sandboxes with it, and its scratch folder is gone after the restart", async () => {
    const cloneUrl = github.addRepo(OWNER, REPO, await fixtureRepo("python-calc"), { 3: "hang" });
    const head = github.rev(OWNER, REPO, "refs/pull/3/head");
    app = await startApp(github, { dataDir, env: { TMPDIR: tmp } });
    const server = app.child.pid as number;
    const event = pullRequestPayload({ number: 3, head, base: github.rev(OWNER, REPO, "main"), headRef: "agent/hang", cloneUrl });
    expect((await deliver(app.url, "pull_request", event)).status).toBe(202);

    // A sandbox of the judgment is running (the hanging head's tests hold it for the timeout).
    const tree = await waitFor("a sandbox of the judgment", () => {
      const below = descendants(server);
      return below.some((p) => p.cmd.includes("measure/child")) && below.some(isBwrap) ? below : null;
    }, 90_000, app.output);
    const measurer = tree.find((p) => p.cmd.includes("measure/child"))!;
    const sandboxes = tree.filter(isBwrap);
    const folders = judgeFolders();
    expect(folders, "the judgment's scratch folder is named after its process").toEqual([expect.stringMatching(new RegExp(`^ranex-judge-${server}-`))]);

    process.kill(server, "SIGKILL");
    expect(await app.exited).toBe("SIGKILL");
    // Everything below the server (measurer, bwrap, what runs inside) ends within moments.
    const survivors = await waitFor("the measurer and sandboxes to die", () => {
      const left = tree.filter((p) => alive(p.pid));
      return left.length === 0 ? [] : null;
    }, 10_000).catch(() => tree.filter((p) => alive(p.pid)));
    expect(survivors.map((p) => `${p.pid} ${p.cmd}`), `measurer ${measurer.pid}, sandboxes ${sandboxes.map((p) => p.pid).join(",")}`).toEqual([]);

    // The folder outlived the crash (no cleanup ran) until the next start removes it.
    expect(judgeFolders()).toEqual(folders);
    app = await startApp(github, { dataDir, env: { TMPDIR: tmp } });
    expect(judgeFolders()).not.toContain(folders[0]);
    expect(app.output.join("\n")).toContain("removed the scratch folders of judgments whose process is gone");
    // The restarted server judges the head again, to a verdict, and leaves no folder of its own.
    await waitFor("a verdict after the restart", () => {
      const runs = github.runsFor(head);
      return runs.length === 2 && runs.every((run) => run.status === "completed") ? runs : null;
    }, 180_000, app.output);
    await waitFor("the restarted judgment's folder to go", () => judgeFolders().length === 0, 10_000);
  }, 360_000);
});
