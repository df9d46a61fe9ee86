import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { goStdCacheDir } from "../../src/judge/deps-plan.js";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { WARM_DIR } from "../../src/measure/deps/cache.js";
import { readManifest } from "../../src/measure/deps/go-std.js";
import { starterPolicy } from "../../src/policy/init.js";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";

// Go's standard library is compiled once per toolchain by the gate and shared by every repository
// (src/measure/deps/go-std.ts). A cache shared across repositories must not be writable by any of
// them: the attack below is a setup that, before it builds anything, corrupts every compiled package
// it can see (all of them the gate's: same size, so Go would take them as hits) and leaves a count of
// what it corrupted. It writes into its own tree only, its copies never reach its dependency entry
// (so its own runs build from the layer as the gate made it), and the next repository does too.
const run = promisify(execFile);

const POISON = "n=0; for f in $(find .ranex-warm/go-build -type f -name \"*-d\"); do dd if=/dev/zero of=\"$f\" bs=64 count=1 conv=notrunc 2>/dev/null && n=$((n+1)); done; echo $n > poisoned.txt";

/** go-calc with init's policy; `before` runs first in its setup. */
async function goCalc(before = ""): Promise<string> {
  const dir = join(tempDir("ranex-go-std-"), "go-calc");
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
  await run("bash", [join(FIXTURES_DIR, "go-calc.sh"), dir], { env });
  mkdirSync(join(dir, ".github"), { recursive: true });
  let policy = await starterPolicy(dir);
  if (before !== "") policy = policy.replace(/^(\s*setup: ')/m, (_m, start: string) => `${start}${before.replace(/'/g, "''")}; `);
  expect(policy).toContain(before);
  writeFileSync(join(dir, ".github", "ranex.yml"), policy);
  git(dir, "add", ".github/ranex.yml");
  git(dir, "commit", "-q", "-m", "ranex: policy from ranex init");
  git(dir, "checkout", "-q", "honest");
  git(dir, "rebase", "-q", "main");
  git(dir, "checkout", "-q", "main");
  return dir;
}

const claims = (j: Judgment): string[] =>
  j.verdict.claims.filter((c) => c.name !== "approval.independent").map((c) => `${c.name}: ${c.status}: ${c.reason.replace(/ in [\d.]+ s/g, "")}`);

/** Every layer the gate keeps, checked file by file against the hashes it wrote when it built them. */
async function layersAsBuilt(stdDir: string): Promise<{ layers: number; files: number; changed: string[] }> {
  let files = 0;
  const changed: string[] = [];
  const keys = readdirSync(stdDir).filter((name) => !name.startsWith("."));
  for (const key of keys) {
    const manifest = await readManifest(join(stdDir, key));
    if (manifest === null) throw new Error(`${key} has no manifest`);
    for (const [path, sha] of Object.entries(manifest.files)) {
      files++;
      if (createHash("sha256").update(readFileSync(join(stdDir, key, "layer", path))).digest("hex") !== sha) changed.push(path);
    }
  }
  return { layers: keys.length, files, changed };
}

/** The files of the gate's layers, as tree paths, with their sha256. */
async function manifestFiles(stdDir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const key of readdirSync(stdDir).filter((name) => !name.startsWith("."))) Object.assign(files, (await readManifest(join(stdDir, key)))?.files);
  return files;
}

/** The files of every dependency entry's warm layer, as tree paths. */
function storedWarmFiles(dataDir: string): string[] {
  const deps = join(dataDir, "deps");
  const found: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path, `${rel}/${name}`);
      else found.push(`${rel}/${name}`.slice(1));
    }
  };
  for (const key of readdirSync(deps).filter((k) => !k.startsWith("."))) {
    if (existsSync(join(deps, key, "warm"))) walk(join(deps, key, "warm"), "");
  }
  return found;
}

const savedStdDir = process.env.RANEX_GO_STD_DIR;
afterEach(() => {
  if (savedStdDir === undefined) delete process.env.RANEX_GO_STD_DIR;
  else process.env.RANEX_GO_STD_DIR = savedStdDir;
});

describe("the gate's Go standard-library layer", () => {
  it("a setup that corrupts the standard library's build changes only its own tree: its runs, the layer and the next repository's build never see it", async () => {
    const dataDir = tempDir("ranex-data-");
    const stdDir = goStdCacheDir(dataDir);
    const attacker = await goCalc(POISON);
    const first = await judge({ source: attacker, base: "main", head: "honest", task: "mul", dataDir });

    // The attack ran: its setup corrupted every compiled package of the gate's layer.
    const poisoned = readdirSync(join(dataDir, "deps")).filter((k) => !k.startsWith("."))
      // A file the setup wrote that is no installed package is stored in the warm layer (src/measure/deps/cache.ts, isInstalled).
      .map((key) => join(dataDir, "deps", key, "warm", "poisoned.txt")).filter((path) => existsSync(path));
    expect(poisoned).toHaveLength(1);
    const count = Number(readFileSync(poisoned[0] ?? "", "utf8").trim());
    const asBuilt = await layersAsBuilt(stdDir);
    expect(count).toBeGreaterThan(100);
    expect(count).toBe(Object.keys(await manifestFiles(stdDir)).filter((path) => path.endsWith("-d")).length);
    // The gate's layer is byte for byte as the gate built it.
    expect(asBuilt.changed).toEqual([]);
    // None of the setup's copies of the layer's files is kept with its dependency key.
    const shared = new Set(Object.keys(await manifestFiles(stdDir)));
    const stored = storedWarmFiles(dataDir);
    expect(stored.filter((path) => path.startsWith(`${WARM_DIR}/go-build/`)).length).toBeGreaterThan(0);
    expect(stored.filter((path) => shared.has(path))).toEqual([]);
    // Its own runs built from the gate's layer, not from what it corrupted.
    expect(first.verdict.verdict, first.verdict.reasons.join("; ")).toBe("CANDIDATE");

    // The next repository's setup and runs build from the layer as the gate made it.
    const victim = await goCalc();
    const second = await judge({ source: victim, base: "main", head: "honest", task: "mul", dataDir });
    expect(second.verdict.verdict, second.verdict.reasons.join("; ")).toBe("CANDIDATE");
    expect((await layersAsBuilt(stdDir)).changed).toEqual([]);
  }, 1_800_000);

  it("a verdict does not depend on whether the layer exists: the same claims without it (the setup compiles the standard library)", async () => {
    const repo = await goCalc();
    const withLayer = await judge({ source: repo, base: "main", head: "honest", task: "mul", dataDir: tempDir("ranex-data-") });
    expect(withLayer.timings["go-std"]).toBeGreaterThanOrEqual(0);
    // A folder the gate cannot write (a file in its place): no layer, the judgment goes on without it.
    const blocked = join(tempDir("ranex-no-std-"), "go-std");
    writeFileSync(blocked, "not a folder\n");
    process.env.RANEX_GO_STD_DIR = blocked;
    const without = await judge({ source: repo, base: "main", head: "honest", task: "mul", dataDir: tempDir("ranex-data-") });
    expect(withLayer.verdict.verdict, withLayer.verdict.reasons.join("; ")).toBe("CANDIDATE");
    expect(claims(without)).toEqual(claims(withLayer));
    // The setup line says which layer the runs had, and why there was none.
    const setups = (j: Judgment): string[] => j.verdict.claims.flatMap((c) => c.runs ?? []).flatMap((r) => (r.setup === undefined ? [] : [r.setup]));
    expect(setups(withLayer).length).toBeGreaterThan(0);
    for (const line of setups(withLayer)) expect(line).toMatch(/; Go standard library (from the gate's layer|built by the gate in [\d.]+ s) for default flags \([0-9a-f]{12}(, go env remembered)?\)$/);
    expect(setups(without).length).toBeGreaterThan(0);
    for (const line of setups(without)) expect(line).toMatch(/; Go standard library compiled by the runs: the Go standard library's layer could not be prepared: /);
  }, 1_800_000);
});
