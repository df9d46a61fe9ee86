import { describe, expect, it } from "vitest";
import { checkClaim } from "../../src/measure/checks.js";
import { runCommand, writeTree } from "./tests/real-run.js";

const SUBJECT = "sha256:subject";

describe("check:<name>", () => {
  it("passes on exit 0 and records the run", () => {
    const evidence = checkClaim(SUBJECT, "typecheck", runCommand("echo all good", writeTree({})));
    expect(evidence).toMatchObject({ claim: "check:typecheck", outcome: "pass", meta: { run: { exitCode: 0, outputTail: "all good\n" } } });
  });

  it("fails on a non-zero exit with the output's last lines", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
    const evidence = checkClaim(SUBJECT, "lint", runCommand(`printf '${lines}\\nsrc/a.ts:3 no-unused-vars\\n'; exit 2`, writeTree({})));
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("lint exited 2: src/a.ts:3 no-unused-vars");
    const message = evidence.details[0]?.message ?? "";
    expect(message.split("\n")).toHaveLength(10);
    expect(message).not.toContain("line 20\n");
    expect(message).toContain("line 30");
  });

  it("fails on a timeout, and a violation is unsafe", () => {
    const slow = runCommand("sleep 10", writeTree({}), 300);
    expect(checkClaim(SUBJECT, "slow", slow).reason).toMatch(/^slow timed out after 0\.\d s$/);
    const violated = { ...runCommand("true", writeTree({})), violation: "memory limit hit" };
    expect(checkClaim(SUBJECT, "mem", violated)).toMatchObject({ outcome: "fail", unsafe: true, reason: "mem: the sandbox reported a violation (memory limit hit)" });
  });
});
