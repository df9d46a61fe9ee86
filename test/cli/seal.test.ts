import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSealKey, openSealed, SEAL_KEY_FILE, SEAL_PUBLIC_KEY_FILE, writeKeyFiles, generateKey } from "../../src/attest/index.js";
import { parsePolicy, parseTask } from "../../src/policy/index.js";
import { starterPolicy } from "../../src/policy/init.js";
import { webRoutes } from "../../src/web/routes.js";
import { git, tempDir, TestRepo } from "../helpers/git-repo.js";
import { ranex } from "./cli-capture.js";

const TASK = "id: roman\ntitle: Roman numerals\n# the owner's comment stays\ntargets: [\"tests/test_roman.py::test_small\"]\n";

function repoWithTask(): TestRepo {
  const repo = TestRepo.init();
  repo.commit({ ".ranex/tasks/roman.yml": TASK, "tests/test_roman.py": "def test_small():\n    pass\n" });
  return repo;
}

describe("ranex keygen and pubkey --seal", () => {
  it("keygen writes a 0600 X25519 sealing key beside the signing key; pubkey --seal prints its PEM", async () => {
    const dir = tempDir();
    const made = await ranex(["keygen", "--out", "keys"], { cwd: dir });
    expect(made.code).toBe(0);
    expect(statSync(join(dir, "keys", SEAL_KEY_FILE)).mode & 0o777).toBe(0o600);
    const key = await loadSealKey(join(dir, "keys"));
    expect(made.stdout).toContain(`sealing key id: ${key?.keyId}`);
    const printed = await ranex(["pubkey", "--seal", "--data-dir", join(dir, "keys")]);
    expect(printed.stdout).toBe(readFileSync(join(dir, "keys", SEAL_PUBLIC_KEY_FILE), "utf8"));
    expect(printed.stderr).toContain(`sealing key id: ${key?.keyId}`);
  });

  it("keygen in a data dir that has only a signing key adds the sealing key and keeps the signing key", async () => {
    const dir = tempDir();
    const signing = await generateKey();
    await writeKeyFiles(dir, signing);
    const made = await ranex(["keygen", "--out", dir]);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain(`signing key: kept the one in ${dir}`);
    expect(await loadSealKey(dir)).not.toBeNull();
  });
});

describe("ranex seal", () => {
  it("seals the files, names the box in the manifest, removes the plain files and says so; --check lists them", async () => {
    const repo = repoWithTask();
    const dataDir = tempDir();
    expect((await ranex(["keygen", "--out", dataDir])).code).toBe(0);
    writeFileSync(join(repo.dir, "tests", "test_hidden.py"), "def test_hidden_name():\n    assert True\n");
    const sealed = await ranex(["seal", "--task", "roman", "tests/test_hidden.py", "--data-dir", dataDir], { cwd: repo.dir });
    expect(sealed.code, sealed.stderr).toBe(0);
    expect(sealed.stdout).toContain("removed from the working tree: tests/test_hidden.py");
    expect(existsSync(join(repo.dir, "tests", "test_hidden.py"))).toBe(false);
    const box = readFileSync(join(repo.dir, ".ranex/sealed/roman.sealed"), "utf8");
    expect(box).not.toContain("test_hidden");
    const manifest = readFileSync(join(repo.dir, ".ranex/tasks/roman.yml"), "utf8");
    expect(manifest).toContain("# the owner's comment stays");
    const task = parseTask(manifest, "roman.yml", "roman");
    expect(task.ok && task.task.sealed).toBe(".ranex/sealed/roman.sealed");
    const opened = await openSealed(box, (await loadSealKey(dataDir))!);
    expect(opened.files.map((f) => [f.path, f.content.toString()])).toEqual([["tests/test_hidden.py", "def test_hidden_name():\n    assert True\n"]]);

    const check = await ranex(["seal", "--check", "--data-dir", dataDir], { cwd: repo.dir });
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/\.ranex\/sealed\/roman\.sealed: opens with the gate's current key/);
    expect(check.stdout).toContain("tests/test_hidden.py (");
    // Another gate's key: --check says it does not open, and why.
    const other = tempDir();
    await ranex(["keygen", "--out", other]);
    const wrong = await ranex(["seal", "--check", "--data-dir", other], { cwd: repo.dir });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/does not open: the sealed file was sealed to key/);
    // Sealing again is refused rather than silently losing the first box.
    writeFileSync(join(repo.dir, "tests", "test_more.py"), "def test_more():\n    pass\n");
    expect((await ranex(["seal", "--task", "roman", "tests/test_more.py", "--data-dir", dataDir], { cwd: repo.dir })).stderr).toMatch(/already has sealed tests/);
  });

  it("refuses files committed on any branch, or staged, and leaves them in place", async () => {
    const repo = repoWithTask();
    const dataDir = tempDir();
    await ranex(["keygen", "--out", dataDir]);
    repo.branch("elsewhere");
    repo.commit({ "tests/test_leaked.py": "def test_leaked():\n    pass\n" });
    repo.checkout("main");
    writeFileSync(join(repo.dir, "tests", "test_leaked.py"), "def test_leaked():\n    pass\n");
    const refused = await ranex(["seal", "--task", "roman", "tests/test_leaked.py", "--data-dir", dataDir], { cwd: repo.dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing to seal files that git already shows: tests\/test_leaked\.py \(committed in [0-9a-f]{12}\)/);
    expect(existsSync(join(repo.dir, "tests", "test_leaked.py"))).toBe(true);
    expect(existsSync(join(repo.dir, ".ranex/sealed/roman.sealed"))).toBe(false);

    writeFileSync(join(repo.dir, "tests", "test_staged.py"), "def test_staged():\n    pass\n");
    git(repo.dir, "add", "tests/test_staged.py");
    const staged = await ranex(["seal", "--task", "roman", "tests/test_staged.py", "--data-dir", dataDir], { cwd: repo.dir });
    expect(staged.stderr).toMatch(/test_staged\.py \(staged/);
  });

  it("seals to the key a gate serves at /ranex/seal-key (--key <url>), and refuses its signing key", async () => {
    const gateDir = tempDir();
    await ranex(["keygen", "--out", gateDir]);
    const routes = webRoutes({
      openJournal: () => Promise.reject(new Error("unused")), publicKey: async () => readFileSync(join(gateDir, "signing.pub.pem"), "utf8"),
      sealPublicKey: async () => readFileSync(join(gateDir, SEAL_PUBLIC_KEY_FILE), "utf8"), dataDir: gateDir, secret: () => "x".repeat(32),
    });
    const server = createServer((req, res) => void routes(req, res).then((handled) => { if (!handled) res.writeHead(404).end(); }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const repo = repoWithTask();
      writeFileSync(join(repo.dir, "tests", "test_hidden.py"), "def test_hidden():\n    pass\n");
      const wrong = await ranex(["seal", "--task", "roman", "tests/test_hidden.py", "--key", `${url}/ranex/public-key`, "--data-dir", tempDir()], { cwd: repo.dir });
      expect(wrong.stderr).toMatch(/not an X25519 sealing key/);
      const sealed = await ranex(["seal", "--task", "roman", "tests/test_hidden.py", "--key", `${url}/ranex/seal-key`, "--data-dir", tempDir()], { cwd: repo.dir });
      expect(sealed.code, sealed.stderr).toBe(0);
      const opened = await openSealed(readFileSync(join(repo.dir, ".ranex/sealed/roman.sealed")), (await loadSealKey(gateDir))!);
      expect(opened.files).toHaveLength(1);
    } finally {
      server.close();
    }
  });

  it("ranex init requires tests.sealed when a task seals tests, and not otherwise", async () => {
    const repo = repoWithTask();
    const dataDir = tempDir();
    await ranex(["keygen", "--out", dataDir]);
    writeFileSync(join(repo.dir, "pytest.ini"), "[pytest]\n");
    const before = parsePolicy(await starterPolicy(repo.dir));
    expect(before.ok && before.policy.require).not.toContain("tests.sealed");
    writeFileSync(join(repo.dir, "tests", "test_hidden.py"), "def test_hidden():\n    pass\n");
    await ranex(["seal", "--task", "roman", "tests/test_hidden.py", "--data-dir", dataDir], { cwd: repo.dir });
    const init = await ranex(["init", "--no-try", "--data-dir", dataDir], { cwd: repo.dir });
    expect(init.stdout).toContain("sealed tasks found");
    const written = parsePolicy(readFileSync(join(repo.dir, ".github/ranex.yml"), "utf8"));
    expect(written.ok && written.policy.require).toContain("tests.sealed");
  });
});
