// `npm run bench`: what the judge costs against one run of the test suite (issue 3's targets:
// warm <= 1.10 T + 0.5 s, cold <= 1.25 T with two cores free). Measured here, never in a test.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { judge } from "../src/judge/judge.js";
import { profileFor } from "../src/judge/gate-for.js";
import { parsePolicy, POLICY_PATH } from "../src/policy/index.js";
import { createSandbox } from "../src/sandbox/index.js";
import { openRepository } from "../src/workspace/index.js";

const root = join(import.meta.dirname, "..");
const ROUNDS = Number(process.env.RANEX_BENCH_ROUNDS ?? 3);
const cases = [
  { repo: "python-calc", head: "honest", task: "mul" },
  { repo: "node-calc", head: "honest", task: null },
];

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

for (const c of cases) {
  const work = mkdtempSync(join(tmpdir(), "ranex-bench-"));
  try {
    const repoDir = join(work, c.repo);
    execFileSync("bash", [join(root, "fixtures/repos", `${c.repo}.sh`), repoDir], { stdio: "ignore" });

    // T: the suite alone, in the same sandbox profile, on the head tree.
    const repo = await openRepository(repoDir, join(work, "data-raw"));
    const head = await repo.resolveCommit(c.head);
    const base = await repo.resolveCommit("main");
    const blob = await repo.readBlob(base, POLICY_PATH, 1 << 18);
    const parsed = parsePolicy(blob?.toString("utf8") ?? "", POLICY_PATH);
    if (!parsed.ok) throw new Error(`bench fixture policy invalid: ${parsed.errors[0]?.message}`);
    const policy = parsed.policy;
    const sandbox = createSandbox(profileFor(policy));
    const raw: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const tree = join(work, `raw-${i}`);
      await repo.materialise(head, tree);
      const t0 = performance.now();
      const setup = policy.tests.setup;
      if (setup) await sandbox.run({ command: setup, workdir: tree, env: {}, timeoutMs: 600_000, network: false });
      await sandbox.run({ command: policy.tests.command ?? "true", workdir: tree, outdir: tree, env: { RANEX_JUNIT: join(tree, "junit.xml") }, timeoutMs: 600_000, network: false });
      raw.push(performance.now() - t0);
    }

    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const dataDir = join(work, `data-${i}`);
      // Prime the mirror so "cold" measures the missing base cache, not the first clone.
      await openRepository(repoDir, dataDir);
      let t0 = performance.now();
      const first = await judge({ source: repoDir, base: "main", head: c.head, task: c.task, dataDir });
      cold.push(performance.now() - t0);
      t0 = performance.now();
      const second = await judge({ source: repoDir, base: "main", head: c.head, task: c.task, dataDir });
      warm.push(performance.now() - t0);
      if (first.verdict.verdict !== "CANDIDATE" || second.verdict.verdict !== "CANDIDATE") {
        throw new Error(`bench expected CANDIDATE for ${c.repo}@${c.head}, got ${first.verdict.verdict}/${second.verdict.verdict}: ${first.verdict.reasons.join("; ")}`);
      }
    }
    const T = median(raw) / 1000;
    const C = median(cold) / 1000;
    const W = median(warm) / 1000;
    console.log(`${c.repo}@${c.head}: T=${T.toFixed(2)} s  cold=${C.toFixed(2)} s (${(C / T).toFixed(2)} T; target <= 1.25 T)  warm=${W.toFixed(2)} s (${(W / T).toFixed(2)} T; target <= 1.10 T + 0.5 s = ${(1.1 * T + 0.5).toFixed(2)} s)  [median of ${ROUNDS}]`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
