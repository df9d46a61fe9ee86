// `npm run bench:app`: a burst of 50 pull request webhooks against the real server (npm start's
// entry, SQLite queue and journal) on loopback, with GitHub stood in for on loopback as in the e2e
// tests. Prints webhook ack latency (p50/p95/p99), the time until every verdict is posted, judgments
// lost and duplicated, and the server's idle and peak RSS. BENCH_PRS changes the burst size.
// Issue 21: the check run writes each verdict cost, and the floor they set: GitHub asks for a second
// between one installation's writes, so the burst cannot post faster than writes × 1 s (one
// installation here).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APP_ID, deliver, PRIVATE_KEY, pullRequestPayload, ROOT, startApp, type AppProcess } from "../test/e2e/standin/app-process.js";
import { GitHubStandIn } from "../test/e2e/standin/github.js";

const PRS = Number(process.env.BENCH_PRS ?? 50);
// A mix like real traffic: honest work (tests run on base and head) and caught attacks (some need
// only the diff, some the test runs).
const BRANCHES: [string, string][] = [["honest", "Ranex-Task: mul"], ["edit-test", ""], ["scope-escape", ""], ["regression", ""], ["honest-task", "Ranex-Task: div"], ["secret", ""]];
const OWNER = "Codertocat";
const REPO = "Hello-World";

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "ranex-bench-app-"));
  const github = new GitHubStandIn(APP_ID, PRIVATE_KEY);
  let app: AppProcess | undefined;
  try {
    await github.start();
    const source = join(work, "python-calc");
    execFileSync("bash", [join(ROOT, "fixtures/repos/python-calc.sh"), source], { stdio: "ignore" });
    const cloneUrl = github.addRepo(OWNER, REPO, source);
    const base = github.rev(OWNER, REPO, "main");
    const pulls = Array.from({ length: PRS }, (_, i) => {
      const [branch, body] = BRANCHES[i % BRANCHES.length]!;
      const number = 100 + i;
      const head = github.pullWithOwnHead(OWNER, REPO, number, github.rev(OWNER, REPO, `refs/heads/${branch}`));
      return pullRequestPayload({ number, head, base, headRef: `agent/${branch}`, body, cloneUrl });
    });
    app = await startApp(github, { dataDir: join(work, "data") });
    const pid = app.child.pid as number;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idleKb = rssKb(pid);
    let peakKb = idleKb;
    const sampler = setInterval(() => { try { peakKb = Math.max(peakKb, rssKb(pid)); } catch { /* exited */ } }, 100);

    const started = performance.now();
    const acks = await Promise.all(pulls.map((p) => deliver(app!.url, "pull_request", p)));
    const heads = pulls.map((p) => p.pull_request.head.sha);
    const deadline = Date.now() + 30 * 60_000;
    while (Date.now() < deadline && !heads.every((h) => github.runsFor(h).some((r) => r.status === "completed"))) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const allPostedS = (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    clearInterval(sampler);

    const latencies = acks.map((a) => a.ms).sort((a, b) => a - b);
    const lost = heads.filter((h) => !github.runsFor(h).some((r) => r.status === "completed")).length;
    const duplicates = heads.reduce((n, h) => n + Math.max(0, github.runsFor(h).length - 1), 0);
    const conclusions: Record<string, number> = {};
    for (const h of heads) for (const r of github.runsFor(h)) conclusions[r.conclusion ?? r.status] = (conclusions[r.conclusion ?? r.status] ?? 0) + 1;
    const line = (label: string, value: string): void => void process.stdout.write(`${label.padEnd(28)} ${value}\n`);
    line("pull requests", String(PRS));
    line("acks (HTTP status)", JSON.stringify(acks.reduce<Record<number, number>>((m, a) => ({ ...m, [a.status]: (m[a.status] ?? 0) + 1 }), {})));
    line("ack latency p50/p95/p99", `${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 95).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} ms`);
    line("all verdicts posted after", `${allPostedS.toFixed(1)} s`);
    const writes = (name: string): number => heads.reduce((n, h) => n + github.runsFor(h, name).reduce((m, r) => m + r.bodies.length, 0), 0);
    const judgeWrites = writes("ranex/judge");
    const approvalWrites = writes("ranex/approval");
    line("ranex/judge writes/verdict", `${(judgeWrites / PRS).toFixed(2)} (${judgeWrites} in all)`);
    line("ranex/approval writes/PR", `${(approvalWrites / PRS).toFixed(2)} (${approvalWrites} in all)`);
    line("throttle floor", `${judgeWrites + approvalWrites} s (${judgeWrites + approvalWrites} writes, 1 s apart per installation)`);
    line("judgments lost", String(lost));
    line("duplicates", String(duplicates));
    line("conclusions", JSON.stringify(conclusions));
    line("server RSS idle / peak", `${(idleKb / 1024).toFixed(0)} MB / ${(peakKb / 1024).toFixed(0)} MB`);
    line("stand-in problems", String(github.problems.length));
    if (github.problems.length > 0) process.stdout.write(`${github.problems.slice(0, 5).join("\n")}\n`);
    process.exitCode = lost === 0 && duplicates === 0 && judgeWrites <= 2 * PRS ? 0 : 1;
  } finally {
    await app?.stop();
    await github.close();
    rmSync(work, { recursive: true, force: true });
    rmSync(github.gitRoot, { recursive: true, force: true });
  }
}

await main();
