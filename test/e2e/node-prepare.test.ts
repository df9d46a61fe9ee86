import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { judgedAsNewUser } from "./ecosystem-case.js";
import { cacheEntries } from "../helpers/deps-repo.js";
import { failingText, parseVerdict, runCli } from "./run-cli.js";

// Found on yargs/yargs-parser (issue 22): `npm install` in setup runs the package's own `prepare`,
// which compiles into build/, and the stored setup was shown read-only over every run's tree, so the
// test command's `rimraf build` (its `pretest`) failed on it ("rmdir /work/build") and no run had a
// report. What the repository's own scripts built now lies beneath each tree copy-on-write (the warm
// layer), while the installed packages stay read-only: fixtures/repos/node-prepare.sh has the shape,
// with rimraf from the registry in setup. init's policy is committed unmodified.
const TARGET = "test/calc.test.js::muls";

/** Every path of a cache entry with its type, mode and content hash: what "unchanged" means. */
function snapshot(dir: string, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const path = rel === "" ? name : `${rel}/${name}`;
    const info = lstatSync(join(dir, path));
    const mode = (info.mode & 0o7777).toString(8);
    if (info.isSymbolicLink()) out[path] = `link ${readlinkSync(join(dir, path))}`;
    else if (info.isDirectory()) Object.assign(out, { [path]: `dir ${mode}` }, snapshot(dir, path));
    else out[path] = `file ${mode} ${createHash("sha256").update(readFileSync(join(dir, path))).digest("hex")}`;
  }
  return out;
}

judgedAsNewUser({
  name: "node-prepare", runner: "node-test", target: TARGET, frozen: "test/calc.test.js", newTest: "test/mul.test.js::muls negatives", ownFile: "test/mul.test.js",
  initSaw: ({ stdout, written }) => {
    expect(written).toContain("  command: 'npm run pretest && node --test ");
    expect(written).toContain("setup: 'npm install --no-audit --no-fund'");
    expect(stdout).toContain("tests found: 3 in 1 file(s)");
    expect(stdout).not.toContain("problem:");
  },
  more: (seen) => {
    it("stores the setup's build/ apart from node_modules, and no run changes the stored setup", async () => {
      const { repo, data } = seen();
      const [entry] = cacheEntries(data);
      expect(entry).toBeDefined();
      const stored = join(data, "deps", entry ?? "");
      // node_modules as installed, read-only in runs; build/ in the warm layer, as prepare made it from the base.
      // (npm install wrote package-lock.json too: a lock file is installed, read-only.)
      expect(JSON.parse(readFileSync(join(stored, "manifest.json"), "utf8"))).toMatchObject({ entries: ["node_modules", "package-lock.json"], warm: ["build"] });
      expect(readFileSync(join(stored, "warm", "build", "calc.js"), "utf8")).toContain("exports.mul = (a, b) => 0;");
      const before = snapshot(stored);

      const judge = async (head: string) =>
        parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", head, "--task", "mul", "--data-dir", data, "--json"], 1_200_000));
      const spoiled = await judge("spoil-build");
      // Its runs wrote their own trees' build/ (the spoiling test passed, so the writes happened).
      const own = spoiled.claims.find((c) => c.name === "tests.red_green")?.details.map((d) => d.message) ?? [];
      expect(own, failingText(spoiled)).toContain("test/spoil.test.js::spoils what the setup left: failed on base, passed on head");
      expect(snapshot(stored)).toEqual(before);
      expect(cacheEntries(data)).toEqual([entry]);

      // The next judgment with the same key builds from the stored setup as it was.
      const honest = await judge("honest");
      expect(honest.verdict, failingText(honest)).toBe("CANDIDATE");
      expect(snapshot(stored)).toEqual(before);
    }, 2_400_000);
  },
});
