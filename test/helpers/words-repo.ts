import { realpathSync } from "node:fs";
import { join } from "node:path";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { TestRepo, tempDir } from "./git-repo.js";

// A small words library judged with this project's own jest or vitest (toolchain.path) in the real
// sandbox: the base of the `expect` attacks (test/judge/jest-expect.test.ts, vitest-expect.test.ts).
const TOOLCHAIN = realpathSync(join(import.meta.dirname, "..", "..", "node_modules", ".bin"));

/** A policy whose runner is this project's own (toolchain.path), its tests under test/, its command quoted for YAML. */
export function toolchainPolicy(command: string): string {
  return [
    "version: 1",
    "tests:",
    "  files: ['test/**']",
    `  command: '${command.replace(/'/g, "''")}'`,
    "  timeout: 120",
    `toolchain:\n  path: ['${TOOLCHAIN}']`,
    "scope:\n  allow: ['src/**', 'test/**']",
    "require: [diff.frozen, diff.scope, diff.safety, secrets, tests.regression, tests.red_green]",
    "",
  ].join("\n");
}

export function wordsRepository(setup: { command: string; module: boolean; words: string; wordsTest: string }): TestRepo {
  const repo = TestRepo.init();
  repo.commit({
    "package.json": JSON.stringify({ name: "words", version: "1.0.0", private: true, ...(setup.module ? { type: "module" } : {}) }) + "\n",
    ".github/ranex.yml": toolchainPolicy(setup.command),
    "src/words.js": setup.words,
    "test/words.test.js": setup.wordsTest,
  }, "words: count");
  return repo;
}

export async function judged(repo: TestRepo, head: string): Promise<Judgment> {
  return judge({ source: repo.dir, base: "main", head, task: null, dataDir: tempDir("ranex-data-") });
}

/** The claims that did not pass, the reviewer's own claim aside. */
export const failing = (judgment: Judgment): string[] =>
  judgment.verdict.claims.filter((c) => c.name !== "approval.independent" && c.status !== "pass").map((c) => c.name);
