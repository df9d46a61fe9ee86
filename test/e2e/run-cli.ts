import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";

// Runs the real CLI as a separate process (bin/ranex.js), the way a person or CI would, and reads
// its `--json` contract. At most `limit` judges run at once: each one already runs base and head in
// parallel, and the machine's cores are shared.

export const REPO_ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(REPO_ROOT, "bin", "ranex.js");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ClaimJson {
  name: string;
  status: "pass" | "fail" | "missing";
  reason: string;
  details: { message: string; path?: string; kind?: string }[];
}

export interface VerdictJson {
  verdict: "CANDIDATE" | "FAIL";
  class: "unsafe" | "incomplete" | null;
  subject: {
    base: string; head: string; baseTree: string; headTree: string; mergeBase: string | null; mergedTree: string | null;
    policy: string | null; task: string | null; digest: string;
  };
  claims: ClaimJson[];
  missing: string[];
}

// The judge refuses to measure with credentials in its environment (keyless measurement), and the
// test runner's own environment may hold some (a database URL for the Postgres suite): leave them out.
const CREDENTIAL = /TOKEN|SECRET|PASSWORD|PRIVATE|_KEY|DATABASE_URL|^RANEX_|^GIT_/i;
const cliEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !CREDENTIAL.test(key)));
// But the one Go standard-library layer every test shares (vitest.config.ts): no credential.
if (process.env.RANEX_GO_STD_DIR !== undefined) cliEnv.RANEX_GO_STD_DIR = process.env.RANEX_GO_STD_DIR;

export function runCli(args: string[], timeoutMs = 120_000, env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...cliEnv, ...env }, cwd: REPO_ROOT, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
      (err, stdout, stderr) => {
        // A signal (our timeout) has no exit code: report it as -1 so no expectation can match it.
        const code = err === null ? 0 : typeof err.code === "number" ? err.code : -1;
        resolve({ code, stdout, stderr });
      });
  });
}

/** Parses the `--json` output, or fails with everything the CLI said, so a broken run explains itself. */
export function parseVerdict(result: CliResult): VerdictJson {
  try {
    return JSON.parse(result.stdout) as VerdictJson;
  } catch {
    throw new Error(`ranex judge printed no JSON verdict (exit ${result.code})\nstdout: ${result.stdout.slice(0, 2000)}\nstderr: ${result.stderr.slice(0, 2000)}`);
  }
}

export { failingText } from "../helpers/expected-verdict.js";


/**
 * A fixture (fixtures/repos/<name>.sh) as a new user meets it: `ranex init` run through the CLI, its
 * policy committed on main unmodified, and `heads` replayed on top of it as PRs opened after it.
 * `args`: more of init's options (`--toolchain <dir>`).
 */
export async function initByCli(name: string, heads: readonly string[], args: readonly string[] = []): Promise<{ repo: string; data: string; init: CliResult }> {
  const repo = join(tempDir(`ranex-${name}-`), name);
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
  await promisify(execFile)("bash", [join(FIXTURES_DIR, `${name}.sh`), repo], { env });
  const data = tempDir("ranex-data-");
  const init = await runCli(["init", "--dir", repo, "--data-dir", data, ...args], 1_200_000);
  git(repo, "add", ".github/ranex.yml");
  git(repo, "commit", "-q", "-m", "ranex: policy from ranex init");
  for (const head of heads) {
    git(repo, "checkout", "-q", head);
    git(repo, "rebase", "-q", "main");
  }
  git(repo, "checkout", "-q", "main");
  return { repo, data, init };
}
