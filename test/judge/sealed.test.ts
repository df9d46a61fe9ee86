import { describe, expect, it } from "vitest";
import { judge } from "../../src/judge/judge.js";
import { dataDirSealKey, sealedFileDigest } from "../../src/attest/index.js";
import { git, GIT_ENV, tempDir } from "../helpers/git-repo.js";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadSealKey } from "../../src/attest/index.js";
import { SEALED_FILE, sealedRoman } from "../helpers/sealed-repo.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";

// tests.sealed end to end on python-roman (issue 20): real repositories, the real sealed box, the
// measuring process opening it with the key from its pipe, real bubblewrap runs.

const claim = (j: Awaited<ReturnType<typeof judge>>, name: string) => j.verdict.claims.find((c) => c.name === name);

describe("tests.sealed", () => {
  it("an honest fix is CANDIDATE; the signed subject names the sealed file's digest", async () => {
    const dataDir = tempDir();
    const { dir } = await sealedRoman(dataDir);
    const j = await judge({ source: dir, base: "main", head: "honest", task: "roman", dataDir });
    expect(claim(j, "tests.sealed"), JSON.stringify(claim(j, "tests.sealed"))).toMatchObject({ status: "pass" });
    expect(claim(j, "tests.sealed")?.reason).toBe("all 3 sealed tests fail on base and pass on head");
    expect(j.verdict.verdict).toBe("CANDIDATE");
    expect(j.verdict.subject.sealed).toBe(sealedFileDigest(readFileSync(join(dir, SEALED_FILE))));
    expect(claim(j, "tests.sealed")?.details.map((d) => d.message)).toEqual(expect.arrayContaining([expect.stringMatching(/^sealed-[0-9a-f]{10}: failed on base, passed on head$/)]));
  }, 180_000);

  it("a lookup table that passes every visible target FAILs it, and so does an object equal to everything", async () => {
    const dataDir = tempDir();
    const { dir } = await sealedRoman(dataDir);
    for (const head of ["lookup", "always-equal"]) {
      const j = await judge({ source: dir, base: "main", head, task: "roman", dataDir });
      expect(claim(j, "tests.red_green")?.status, head).toBe("pass");
      expect(claim(j, "tests.sealed"), head).toMatchObject({ status: "fail", class: "incomplete" });
      expect(claim(j, "tests.sealed")?.reason, head).toMatch(/^3 of 3 sealed tests do not pass on head/);
      if (head === "lookup") {
        expect(claim(j, "tests.regression")?.status, head).toBe("pass");
        expect(j.verdict).toMatchObject({ verdict: "FAIL", class: "incomplete" });
      } else {
        // Since issue 19's values that lie about themselves, the run itself sees the object equal to
        // everything (its class is the change's): the run is not believed either.
        expect(claim(j, "tests.regression"), head).toMatchObject({ status: "fail", class: "unsafe" });
        expect(claim(j, "tests.regression")?.reason, head).toContain("the tree class src.roman._Numeral (asked with a blank instance when the tests were collected) whose __eq__ says it equals an object it has never seen (src/roman.py:5)");
        expect(j.verdict).toMatchObject({ verdict: "FAIL", class: "unsafe" });
      }
    }
  }, 300_000);

  it("a PR that edits or deletes the sealed file FAILs diff.frozen as unsafe", async () => {
    const dataDir = tempDir();
    const { dir } = await sealedRoman(dataDir);
    for (const head of ["edit-sealed", "delete-sealed"]) {
      const j = await judge({ source: dir, base: "main", head, task: "roman", dataDir });
      expect(claim(j, "diff.frozen"), head).toMatchObject({ status: "fail", class: "unsafe" });
      expect(j.verdict).toMatchObject({ verdict: "FAIL", class: "unsafe" });
    }
  }, 300_000);

  it("a box sealed to another key, a corrupt box, or no key at all is FAIL incomplete with the remedy", async () => {
    const dataDir = tempDir();
    const { dir, unsealedMain } = await sealedRoman(dataDir);
    // Another gate's data dir: its own sealing key.
    const other = tempDir();
    await dataDirSealKey(other);
    const wrongKey = await judge({ source: dir, base: "main", head: "honest", task: "roman", dataDir: other });
    expect(claim(wrongKey, "tests.sealed"), JSON.stringify(claim(wrongKey, "tests.sealed"))).toMatchObject({ status: "fail", class: "incomplete" });
    expect(claim(wrongKey, "tests.sealed")?.reason).toMatch(/was sealed to key sha256:[0-9a-f]{64}, but the gate's sealing key is sha256:.*ranex seal --key/);
    expect(wrongKey.verdict.verdict).toBe("FAIL");

    const noKey = await judge({ source: dir, base: "main", head: "honest", task: "roman", dataDir: tempDir() });
    expect(claim(noKey, "tests.sealed")?.reason).toMatch(/the gate has no sealing key in its data dir: run `ranex keygen`/);

    // The base itself carries a corrupt box (a maintainer's bad copy): measured, and refused inside the measuring process.
    git(dir, "checkout", "-q", "-b", "main-corrupt", "main");
    git(dir, "cherry-pick", "edit-sealed");
    git(dir, "checkout", "-q", "main");
    const corrupt = await judge({ source: dir, base: "main-corrupt", head: "honest", task: "roman", dataDir });
    expect(claim(corrupt, "tests.sealed")).toMatchObject({ status: "fail", class: "incomplete" });
    expect(claim(corrupt, "tests.sealed")?.reason).toMatch(/does not open with the gate's sealing key: it was altered or cut; seal the tests again/);

    // No sealed file named by the task while the policy requires tests.sealed: absence blocks.
    const unsealed = await judge({ source: dir, base: unsealedMain, head: "honest", task: "roman", dataDir });
    expect(claim(unsealed, "tests.sealed")).toMatchObject({ status: "missing" });
    expect(claim(unsealed, "tests.sealed")?.reason).toMatch(/the task seals no acceptance tests: seal some with `ranex seal --task <id> <files>`/);
    expect(unsealed.verdict.verdict).toBe("FAIL");
  }, 400_000);
});

// The sealing key reaches the measuring process through a pipe, never a sandbox. A head whose code
// hunts for it from inside every run (open fds, every process's environment and command line, the
// data dir, HOME, /tmp) answers wrongly if it finds it, so a found key could not give a CANDIDATE.
describe("the sealing key never enters a sandbox", () => {
  it("a head that hunts for the key in every run finds nothing, and the honest code it carries is a CANDIDATE", async () => {
    const dataDir = tempDir();
    const { dir } = await sealedRoman(dataDir);
    const key = (await loadSealKey(dataDir))!;
    const hex = Buffer.from(key.secretKey).toString("hex");
    git(dir, "checkout", "-q", "-b", "hunt", "honest");
    const honest = readFileSync(join(dir, "src/roman.py"), "utf8");
    writeFileSync(join(dir, "src/roman.py"), [
      "import base64, glob, os",
      // Reversed, so the hunt does not find the key in this very file (the tree is hunted too).
      `_KEY = bytes.fromhex(${JSON.stringify([...hex].reverse().join(""))}[::-1])`,
      "_NEEDLES = [_KEY, _KEY.hex().encode(), base64.b64encode(_KEY)]",
      "def _read(path):",
      "    try:",
      "        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)",
      "    except OSError:",
      "        return b''",
      "    try:",
      "        return os.read(fd, 1 << 20)",
      "    except OSError:",
      "        return b''",
      "    finally:",
      "        os.close(fd)",
      "def _blobs():",
      "    for fd in range(3, 256):",
      "        try:",
      "            os.set_blocking(fd, False)",
      "            yield os.read(fd, 65536)",
      "        except OSError:",
      "            pass",
      "    for path in glob.glob('/proc/*/environ') + glob.glob('/proc/*/cmdline') + glob.glob('/proc/*/fd/*'):",
      "        yield _read(path)",
      `    for root in [${JSON.stringify(dataDir)}, os.path.expanduser('~'), '/tmp', '/opt', '.']:`,
      "        for folder, _, names in os.walk(root):",
      "            for name in names:",
      "                yield _read(os.path.join(folder, name))",
      "_FOUND = any(n in blob for blob in _blobs() for n in _NEEDLES)",
      honest.replace('        while n >= value:', '        while n >= value and not _FOUND:'),
    ].join("\n"));
    execFileSync("git", ["-C", dir, "commit", "-q", "-am", "roman: to_roman"], { env: GIT_ENV });
    const j = await judge({ source: dir, base: "main", head: "hunt", task: "roman", dataDir });
    expect(claim(j, "tests.sealed"), JSON.stringify(claim(j, "tests.sealed"))).toMatchObject({ status: "pass" });
    expect(j.verdict.verdict, JSON.stringify(j.verdict.reasons)).toBe("CANDIDATE");
  }, 180_000);
});
