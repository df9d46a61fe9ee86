import { describe, expect, it } from "vitest";
import { profileDigest } from "../../src/sandbox/index.js";
import { OutputTail } from "../../src/sandbox/output.js";
import { PROFILE } from "./helpers.js";

describe("profileDigest", () => {
  it("is a stable sha256 of the profile, independent of key order", () => {
    const reordered = { outputLimitBytes: 4096, maxProcesses: 64, memoryBytes: PROFILE.memoryBytes, readonly: [], backend: "bwrap" as const };
    expect(profileDigest(PROFILE)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(profileDigest(reordered)).toBe(profileDigest(PROFILE));
  });

  it("changes when any part of the isolation changes", () => {
    const base = profileDigest(PROFILE);
    const variants = [
      { ...PROFILE, backend: "none" as const },
      { ...PROFILE, readonly: ["/opt/toolchain"] },
      { ...PROFILE, memoryBytes: PROFILE.memoryBytes + 1 },
      { ...PROFILE, maxProcesses: 65 },
      { ...PROFILE, outputLimitBytes: 1 },
    ];
    const digests = new Set(variants.map(profileDigest));
    expect(digests.size).toBe(variants.length);
    expect(digests.has(base)).toBe(false);
  });
});

describe("OutputTail", () => {
  it("keeps only the last bytes and counts the rest", () => {
    const tail = new OutputTail(10);
    tail.push(Buffer.from("0123456789abc"));
    tail.push(Buffer.from("def"));
    expect(tail.text()).toBe("6789abcdef");
    expect(tail.total).toBe(16);
    expect(tail.truncated).toBe(true);
  });

  it("is not truncated while under the limit", () => {
    const tail = new OutputTail(100);
    tail.push(Buffer.from("hello "));
    tail.push(Buffer.from("world"));
    expect(tail.text()).toBe("hello world");
    expect(tail.truncated).toBe(false);
  });
});
