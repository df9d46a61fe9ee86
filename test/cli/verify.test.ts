import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildStatement, generateKey, publicKeyPem, signStatement, type DsseEnvelope, type SigningKey } from "../../src/attest/index.js";
import { makeVerdictFixture, type VerdictFixture } from "../attest/verdict-fixture.js";
import { tempDir } from "../helpers/git-repo.js";
import { ranex } from "./cli-capture.js";

let dir: string;
let key: SigningKey;
let fixture: VerdictFixture;
let envelope: DsseEnvelope;

// The two stock routes exactly as docs/verify.md gives them, so the document cannot drift from the code.
const doc = readFileSync(join(process.cwd(), "docs", "verify.md"), "utf8");
const opensslScript = /## With OpenSSL[\s\S]*?```sh\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
const nodeScript = /## With Node\.js[\s\S]*?```js\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";

beforeAll(async () => {
  dir = tempDir();
  key = await generateKey();
  fixture = makeVerdictFixture();
  envelope = await signStatement(buildStatement(fixture.verdict, {
    repository: "acme/widgets", ref: "refs/pull/3/head", gateVersion: "0.1.0", time: "2026-01-01T00:00:00.000Z",
    journal: { sequence: 1, hash: "d".repeat(64) }, evidence: fixture.evidence,
  }), key);
  writeFileSync(join(dir, "signing.pub.pem"), publicKeyPem(key.publicKey));
  writeFileSync(join(dir, "verify-dsse.mjs"), nodeScript);
});

function save(name: string, value: unknown): string {
  writeFileSync(join(dir, name), typeof value === "string" ? value : JSON.stringify(value));
  return name;
}

/** The verdict of all three verifiers on one envelope file: ranex verify, the openssl recipe, the node recipe. */
async function allThree(file: string, commit: string) {
  const ours = await ranex(["verify", file, "--public-key", "signing.pub.pem", "--commit", commit], { cwd: dir });
  const openssl = spawnSync("bash", ["-e", "-c", opensslScript.replaceAll("envelope.json", file)], { cwd: dir, encoding: "utf8" });
  const node = spawnSync(process.execPath, ["verify-dsse.mjs", file, "signing.pub.pem", commit], { cwd: dir, encoding: "utf8" });
  const opensslCommit = openssl.status === 0 && openssl.stdout.includes(commit);
  return { ours: ours.code, openssl: opensslCommit ? 0 : 1, node: node.status, output: ours };
}

describe("ranex verify", () => {
  it("the document holds both recipes", () => {
    expect(opensslScript).toContain("openssl pkeyutl -verify -rawin");
    expect(nodeScript).toContain("verify(null, pae, key");
  });

  it("accepts a valid envelope, prints the verdict and key id, and both stock recipes agree", async () => {
    const result = await allThree(save("good.json", envelope), fixture.head);
    expect(result).toMatchObject({ ours: 0, openssl: 0, node: 0 });
    expect(result.output.stdout).toContain(`valid: signed by key ${key.keyId}`);
    expect(result.output.stdout).toContain("verdict: CANDIDATE");
    expect(result.output.stdout).toContain(`gitCommit:${fixture.head}`);
    expect(result.output.stdout).toContain("extends journal entry 1");
  });

  it("rejects a flipped payload byte, a flipped signature byte, and another key; the recipes agree", async () => {
    const payload = Buffer.from(envelope.payload, "base64");
    const at = payload.indexOf("CANDIDATE");
    payload[at] = "D".charCodeAt(0);
    const tamperedPayload = { ...envelope, payload: payload.toString("base64") };
    const sig = Buffer.from(envelope.signatures[0]!.sig, "base64");
    sig[10] = (sig[10] ?? 0) ^ 1;
    const tamperedSig = { ...envelope, signatures: [{ keyid: key.keyId, sig: sig.toString("base64") }] };
    const foreign = await signStatement(JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")), await generateKey());
    for (const [name, bad] of [["payload.json", tamperedPayload], ["sig.json", tamperedSig], ["foreign.json", foreign]] as const) {
      const result = await allThree(save(name, bad), fixture.head);
      expect(result, name).toMatchObject({ ours: 1, openssl: 1, node: 1 });
      expect(result.output.stdout).toMatch(/^INVALID: no signature verifies with key/);
    }
  });

  it("rejects a valid envelope for another commit under --commit; the recipes agree", async () => {
    const result = await allThree(save("good.json", envelope), fixture.otherCommit);
    expect(result).toMatchObject({ ours: 1, openssl: 1, node: 1 });
    expect(result.output.stdout).toContain(`not ${fixture.otherCommit}`);
  });

  it("exits 2 on input it cannot use", async () => {
    save("garbage.json", "{not json");
    save("not-a-key.pem", "hello");
    const cases: Array<[string[], RegExp]> = [
      [["verify", "missing.json", "--public-key", "signing.pub.pem"], /cannot read envelope .*ENOENT/],
      [["verify", "garbage.json", "--public-key", "signing.pub.pem"], /is not JSON/],
      [["verify", "good.json", "--public-key", "not-a-key.pem"], /not a PEM public key/],
      [["verify", "good.json"], /--public-key is required/],
      [["verify", "--public-key", "signing.pub.pem"], /exactly one envelope/],
    ];
    for (const [args, message] of cases) {
      const result = await ranex(args, { cwd: dir });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });

  it("prints the key id the openssl recipe computes", async () => {
    const der = execFileSync("openssl", ["pkey", "-pubin", "-in", "signing.pub.pem", "-outform", "DER"], { cwd: dir });
    const digest = execFileSync("sha256sum", { input: der, encoding: "utf8" }).split(" ")[0];
    expect(digest).toBe(key.keyId);
  });
});
