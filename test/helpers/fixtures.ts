import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll } from "vitest";

// The bundled example repositories (fixtures/repos/*.sh), built by their own scripts, once per test
// process, and the expectations every branch of them must meet (fixtures/repos/expected.json).

export type FixtureName = "python-calc" | "node-calc" | "python-roman" | "python-src" | "node-src" | "python-provenance" | "node-provenance" | "python-helpers" | "node-helpers" | "python-submodule" | "node-esm-helpers" | "python-redteam" | "node-redteam" | "python-data" | "node-data";

export interface Expectation {
  verdict: "CANDIDATE" | "FAIL";
  /** Claims that must have status `fail` (others may fail too). */
  fails: string[];
  /** The task manifest to judge against (`--task`). */
  task?: string;
  /** The base to judge against (`--base`); main when absent. */
  base?: string;
  /** The verdict's class, where the catching claim decides it. */
  class?: "unsafe" | "incomplete";
  /** Strings the failing claims' reasons or details must contain: the path or test at fault. */
  mentions?: string[];
}

export const FIXTURES_DIR = join(import.meta.dirname, "..", "..", "fixtures", "repos");

const run = promisify(execFile);
const built = new Map<FixtureName, Promise<string>>();
let root: string | undefined;

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  root = undefined;
  built.clear();
});

/** Builds the named example repository (once per test process) and returns its directory. */
export function fixtureRepo(name: FixtureName): Promise<string> {
  let repo = built.get(name);
  if (repo === undefined) {
    root ??= mkdtempSync(join(tmpdir(), "ranex-fixtures-"));
    repo = buildFixture(name, join(root, name));
    built.set(name, repo);
  }
  return repo;
}

async function buildFixture(name: FixtureName, dir: string): Promise<string> {
  // An inherited GIT_DIR or GIT_WORK_TREE would make the script build into the wrong repository.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
  try {
    await run("bash", [join(FIXTURES_DIR, `${name}.sh`), dir], { env });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? "";
    throw new Error(`building fixture ${name} failed: ${(err as Error).message}\n${stderr}`);
  }
  return dir;
}

/** Every branch of every example repository, with the verdict it must get. */
export function loadExpectations(): Record<FixtureName, Record<string, Expectation>> {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, "expected.json"), "utf8")) as Record<FixtureName, Record<string, Expectation>>;
}

/**
 * A clone of a fixture repository as the app's tests see GitHub: `agent/<branch>` for each pull
 * request's head, with the `refs/pull/<number>/head` GitHub keeps, and `main` checked out. `branches`
 * are further branches of the fixture made local under their own names.
 */
export async function agentPullClone(name: FixtureName, pulls: readonly (readonly [string, number])[], branches: readonly string[] = []): Promise<string> {
  const source = await fixtureRepo(name);
  root ??= mkdtempSync(join(tmpdir(), "ranex-fixtures-"));
  const dir = mkdtempSync(join(root, `${name}-clone-`));
  const git = (...args: string[]) => run("git", ["-C", dir, ...args]);
  await git("clone", "-q", source, ".");
  await git("checkout", "-q", "main");
  for (const branch of branches) await git("branch", "-f", branch, `origin/${branch}`);
  for (const [branch, number] of pulls) {
    await git("branch", "-f", `agent/${branch}`, `origin/${branch}`);
    await git("update-ref", `refs/pull/${number}/head`, `origin/${branch}`);
  }
  return dir;
}

/** Builds fixtures/repos/<name>.sh afresh in a folder of its own (not shared: the test may change it). */
export async function freshFixture(name: string): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), "ranex-fixture-")), name);
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
  await run("bash", [join(FIXTURES_DIR, `${name}.sh`), dir], { env });
  return dir;
}
