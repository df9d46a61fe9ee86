import { createPublicKey } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSigningKey } from "../../src/attest/index.js";
import { dataDirFrom } from "../../src/cli/data-dir.js";
import { tempDir } from "../helpers/git-repo.js";
import { ranex } from "./cli-capture.js";

describe("ranex keygen and pubkey", () => {
  it("writes a 0600 seed and a PEM key to --out, and refuses to overwrite them", async () => {
    const dir = tempDir();
    const first = await ranex(["keygen", "--out", "keys"], { cwd: dir });
    expect(first.code).toBe(0);
    const seedPath = join(dir, "keys", "signing.key");
    expect(statSync(seedPath).mode & 0o777).toBe(0o600);
    const key = await loadSigningKey(seedPath);
    expect(first.stdout).toContain(`key id: ${key.keyId}`);
    expect(createPublicKey(readFileSync(join(dir, "keys", "signing.pub.pem"))).asymmetricKeyType).toBe("ed25519");

    const again = await ranex(["keygen", "--out", "keys"], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists .* refusing to replace it/);
    expect((await loadSigningKey(seedPath)).keyId).toBe(key.keyId);
  });

  it("defaults to RANEX_DATA_DIR, and rejects unknown options", async () => {
    const dataDir = join(tempDir(), "data");
    expect((await ranex(["keygen"], { env: { RANEX_DATA_DIR: dataDir } })).code).toBe(0);
    expect(statSync(join(dataDir, "signing.key")).size).toBe(32);
    const bad = await ranex(["keygen", "--force"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Unknown option '--force'/);
  });

  it("pubkey prints the data dir's key, creating it on first use and keeping it after", async () => {
    const dataDir = join(tempDir(), "data");
    const first = await ranex(["pubkey", "--data-dir", dataDir]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("created a new signing key");
    expect(first.stdout).toBe(readFileSync(join(dataDir, "signing.pub.pem"), "utf8"));
    const second = await ranex(["pubkey"], { env: { RANEX_DATA_DIR: dataDir } });
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).not.toContain("created");
  });

  it("resolves the data dir from --data-dir, RANEX_DATA_DIR, then ~/.ranex", () => {
    expect(dataDirFrom(["--data-dir", "d"], { RANEX_DATA_DIR: "/e" }, "/cwd")).toBe("/cwd/d");
    expect(dataDirFrom(["--data-dir=/abs"], {}, "/cwd")).toBe("/abs");
    expect(dataDirFrom(["x"], { RANEX_DATA_DIR: "rel" }, "/cwd")).toBe("/cwd/rel");
    expect(dataDirFrom([], { HOME: "/home/me" }, "/cwd")).toBe("/home/me/.ranex");
    expect(() => dataDirFrom(["--data-dir"], {}, "/cwd")).toThrow(/needs a directory/);
  });
});
