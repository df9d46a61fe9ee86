import { createPublicKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  generateSealKey, openSealed, parseSealPublicKeyPem, readSealedHeader, safeRelativePath, sealFiles, sealPublicKeyPem, SealedError,
  sealedTestId, generateKey, publicKeyPem,
} from "../../src/attest/index.js";
import { sodium } from "../../src/attest/sodium.js";

const files = [{ path: "tests/acceptance/test_more.py", content: Buffer.from("def test_secret_name():\n    assert 1\n") }];

describe("sealed boxes", () => {
  it("open with the gate's key and give back the files; the outer file names none of them", async () => {
    const key = await generateSealKey();
    const text = await sealFiles("roman", files, key);
    expect(text).not.toContain("test_more");
    expect(text).not.toContain("test_secret_name");
    expect(readSealedHeader(text)).toMatchObject({ format: "ranex-sealed/1", task: "roman", recipient: key.keyId });
    const opened = await openSealed(text, key);
    expect(opened.files).toEqual(files);
    expect(opened.idKey).toHaveLength(32);
  });

  it("refuse another key, an altered box, a digest that does not match, and junk, each with the remedy", async () => {
    const key = await generateSealKey();
    const other = await generateSealKey();
    const text = await sealFiles("roman", files, key);
    await expect(openSealed(text, other)).rejects.toThrow(/was sealed to key sha256:[0-9a-f]{64}, but the gate's sealing key is/);
    const outer = JSON.parse(text) as { box: string; digest: string };
    const box = Buffer.from(outer.box, "base64");
    box[box.length - 1] = (box[box.length - 1] ?? 0) ^ 1;
    await expect(openSealed(JSON.stringify({ ...outer, box: box.toString("base64") }), key)).rejects.toThrow(/does not open with the gate's sealing key: it was altered or cut/);
    await expect(openSealed(JSON.stringify({ ...outer, digest: `sha256:${"0".repeat(64)}` }), key)).rejects.toThrow(/does not match its digest/);
    await expect(openSealed("not json", key)).rejects.toBeInstanceOf(SealedError);
    await expect(openSealed(JSON.stringify({ format: "other" }), key)).rejects.toThrow(/format/);
  });

  it("refuse a box whose content holds a path outside the tree, even when it opens", async () => {
    const key = await generateSealKey();
    // Sealed by hand, as an attacker who knows the public key could: the gate must not write ../ paths.
    const payload = Buffer.from(JSON.stringify({ format: "ranex-sealed-payload/1", task: "t", idKey: "AAAA", files: [{ path: "../../etc/x", content: "" }] }));
    const lib = await sodium();
    const { createHash } = await import("node:crypto");
    const text = JSON.stringify({
      format: "ranex-sealed/1", task: "t", recipient: key.keyId, digest: `sha256:${createHash("sha256").update(payload).digest("hex")}`,
      box: Buffer.from(lib.crypto_box_seal(payload, key.publicKey)).toString("base64"),
    });
    await expect(openSealed(text, key)).rejects.toThrow(/unsafe or missing path/);
    for (const bad of ["/etc/passwd", "a/../b", ".git/config", ".ranex/tasks/x.yml", "", "a//b"]) expect(safeRelativePath(bad), bad).toBe(false);
    expect(safeRelativePath("tests/acceptance/test_x.py")).toBe(true);
  });

  it("give each test a stable short id under the box's own key, which says nothing of the name", () => {
    const a = Buffer.alloc(32, 1);
    const b = Buffer.alloc(32, 2);
    const id = sealedTestId(a, "tests/x.py::test_secret");
    expect(id).toMatch(/^sealed-[0-9a-f]{10}$/);
    expect(sealedTestId(a, "tests/x.py::test_secret")).toBe(id);
    expect(sealedTestId(b, "tests/x.py::test_secret")).not.toBe(id);
    expect(id).not.toContain("secret");
  });

  it("publish the X25519 key as a PEM OpenSSL reads, and refuse the Ed25519 signing key in its place", async () => {
    const key = await generateSealKey();
    const pem = sealPublicKeyPem(key.publicKey);
    expect(createPublicKey(pem).asymmetricKeyType).toBe("x25519");
    expect(parseSealPublicKeyPem(pem)).toEqual(key.publicKey);
    const signing = publicKeyPem((await generateKey()).publicKey);
    expect(() => parseSealPublicKeyPem(signing)).toThrow(/not an X25519 sealing key/);
  });
});
