import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";
import { runCli } from "./run-cli.js";

const run = promisify(execFile);

/** Builds fixtures/repos/<name>.sh in a fresh folder and runs `ranex init` there with `args`, as a new user would. */
export async function initFixture(name: string, args: string[], timeoutMs: number): Promise<{ repo: string; init: Awaited<ReturnType<typeof runCli>> }> {
  const repo = join(tempDir(), name);
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
  await run("bash", [join(FIXTURES_DIR, `${name}.sh`), repo], { env });
  const init = await runCli(["init", "--dir", repo, "--data-dir", tempDir("ranex-data-"), ...args], timeoutMs);
  return { repo, init };
}
