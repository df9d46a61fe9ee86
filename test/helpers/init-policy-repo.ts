import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { starterPolicy } from "../../src/policy/init.js";
import { FIXTURES_DIR } from "./fixtures.js";
import { git, tempDir } from "./git-repo.js";

const run = promisify(execFile);

/** A fixture (fixtures/repos/<name>.sh) with the policy `ranex init` writes committed on main, and `heads` replayed on it. */
export async function initPolicyRepo(name: string, heads: readonly string[]): Promise<string> {
  const dir = join(tempDir(`ranex-${name}-`), name);
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
  await run("bash", [join(FIXTURES_DIR, `${name}.sh`), dir], { env });
  mkdirSync(join(dir, ".github"), { recursive: true });
  writeFileSync(join(dir, ".github", "ranex.yml"), await starterPolicy(dir));
  git(dir, "add", ".github/ranex.yml");
  git(dir, "commit", "-q", "-m", "ranex: policy from ranex init");
  for (const head of heads) {
    git(dir, "checkout", "-q", head);
    git(dir, "rebase", "-q", "main");
  }
  git(dir, "checkout", "-q", "main");
  return dir;
}
