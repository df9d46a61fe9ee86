import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSandbox, profileDigest } from "../../src/sandbox/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { PROFILE } from "./helpers.js";

// The gate mounts its own report writers at a fixed path inside, wherever it is installed: an
// install under /work would otherwise be hidden by the tree mounted at /work.
describe("read-only mounts at another path", () => {
  it("shows the host folder at the sandbox path, read-only", async () => {
    const tools = tempDir("ranex-tools-");
    writeFileSync(join(tools, "tool.txt"), "from the gate\n");
    const sandbox = createSandbox({ ...PROFILE, mounts: [{ host: tools, sandbox: "/opt/ranex/tools" }] });
    const result = await sandbox.run({
      command: "cat /opt/ranex/tools/tool.txt; echo x > /opt/ranex/tools/tool.txt || echo refused",
      workdir: tempDir("ranex-work-"), env: {}, timeoutMs: 5000, network: false,
    });
    expect(result.outputTail).toContain("from the gate");
    expect(result.outputTail).toContain("refused");
  });

  it("changes the profile digest", () => {
    expect(profileDigest({ ...PROFILE, mounts: [{ host: "/a", sandbox: "/opt/a" }] })).not.toBe(profileDigest(PROFILE));
  });
});
