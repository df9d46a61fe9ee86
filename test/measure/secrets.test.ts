import { describe, expect, it } from "vitest";
import { maskSecret, secretsClaim } from "../../src/measure/secrets.js";
import type { AddedLines } from "../../src/workspace/types.js";

// The credentials are assembled at run time from fragments, so this repository holds no literal secret
// for scanners (ours or GitHub's) to find.
const GITHUB_TOKEN = ["gh", "p_"].join("") + "Zq8Lm2Rt5Vx9Bn4Kd7Hf3Jw6Yp1Cs0Ge".padEnd(36, "Q");
const AWS_SECRET = ["wJalrXUtnFEMI", "K7MDENG", "bPxRfiCYz9Q2LmNoKEY1"].join("/").slice(0, 40);
const PEM_BODY = Array.from({ length: 6 }, (_, i) => "MIIEowIBAAKCAQEAx3Kq9vLp2Rt8Zc5Wm1Hn7Bj4Ys6Gd0Fa2Eu8Ti3Ok5Nl9Xw".slice(i) + "A".repeat(i));
const PEM_KEY = [["-----BEGIN RSA", "PRIVATE KEY-----"].join(" "), ...PEM_BODY, ["-----END RSA", "PRIVATE KEY-----"].join(" ")];

function added(path: string, firstLine: number, lines: string[]): AddedLines {
  return { path, lines: lines.map((text, i) => ({ line: firstLine + i, text })) };
}

describe("secrets", () => {
  it("the fragments make what they claim to", () => {
    expect(GITHUB_TOKEN).toMatch(/^ghp_[A-Za-z0-9]{36}$/);
    expect(AWS_SECRET).toHaveLength(40);
  });

  it("finds a GitHub token, an AWS secret key and a PEM key at their head lines, masked", async () => {
    const evidence = await secretsClaim("sha256:subject", [
      added("src/settings.py", 12, ["import os", `GITHUB_TOKEN = "${GITHUB_TOKEN}"`]),
      // Added lines need not be contiguous: two hunks, the second one holding the key.
      { path: "deploy/aws.env", lines: [{ line: 3, text: "REGION=eu-west-1" }, { line: 40, text: `AWS_SECRET_ACCESS_KEY=${AWS_SECRET}` }] },
      added("keys/id_rsa", 1, PEM_KEY),
      added("src/clean.py", 1, ["def add(a, b):", "    return a + b"]),
    ]);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("a credential was added: github at src/settings.py:13 (and 2 more)");
    expect(evidence.details.map((d) => [d.path, d.line, d.kind])).toEqual([
      ["src/settings.py", 13, "secret"],
      ["deploy/aws.env", 40, "secret"],
      ["keys/id_rsa", 1, "secret"],
    ]);
    expect(evidence.details[0]?.message).toBe("github: ghp_…(40 chars) at src/settings.py:13");
    const json = JSON.stringify(evidence);
    for (const secret of [GITHUB_TOKEN, AWS_SECRET, PEM_BODY[0]!, PEM_KEY.join("\n")]) expect(json).not.toContain(secret);
    expect(json).not.toContain(GITHUB_TOKEN.slice(0, 12));
  });

  it("passes a clean change and counts what it scanned", async () => {
    const evidence = await secretsClaim("sha256:subject", [added("src/clean.py", 5, ["TOKEN_NAME = 'GITHUB_TOKEN'", "password = os.environ['PASSWORD']"])]);
    expect(evidence).toMatchObject({ outcome: "pass", reason: "no credentials in 2 added lines of 1 file", details: [] });
  });

  it("masks short strings completely", () => {
    expect(maskSecret("hunter2")).toBe("…(7 chars)");
    expect(maskSecret(GITHUB_TOKEN)).toBe("ghp_…(40 chars)");
  });
});

describe("files the scanner cannot read as lines", () => {
  it("are named in the details, so a reviewer knows what nobody scanned", async () => {
    const evidence = await secretsClaim("sha256:s", [
      { path: "keys/store.p12", lines: [], skipped: "binary" },
      { path: "src/ok.py", lines: [{ line: 1, text: "x = 1" }] },
    ]);
    expect(evidence.outcome).toBe("pass");
    expect(evidence.reason).toContain("1 file not scanned");
    expect(evidence.details).toEqual([{ kind: "not-scanned", path: "keys/store.p12", message: 'not scanned (binary): "keys/store.p12"' }]);
  });
});
