import { mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { trimStamp } from "../../../src/measure/deps/go-std.js";
import { WARM_TIME } from "../../../src/measure/deps/cache.js";
import { GO_BUILD_DIR } from "../../../src/runners/go.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import { releaseTree } from "../../../src/sandbox/tree-limit.js";
import { tempDir } from "../../helpers/git-repo.js";
import { PROFILE } from "../../sandbox/helpers.js";

// Go trims its build cache at the end of every build once a day (by the time in `trim.txt`),
// removing entries whose mtime is over five days old. The setup's warm layer is dated 2000 (for
// cargo's sake, src/measure/deps/cache.ts), so from 24 hours after its setup every run trimmed it
// away and compiled everything again. Each judgment's stamp (src/measure/deps/go-std.ts) lies above
// the layers with a fresh `trim.txt`: the warm entries stay.
const ENTRY = `${"ab".repeat(32)}-a`;

function warmLayer(): string {
  const dir = tempDir("ranex-warm-");
  const cache = join(dir, GO_BUILD_DIR);
  mkdirSync(join(cache, "ab"), { recursive: true });
  writeFileSync(join(cache, "ab", ENTRY), "v1 entry from the setup\n");
  utimesSync(join(cache, "ab", ENTRY), WARM_TIME, WARM_TIME);
  // The setup's own trim, long ago.
  writeFileSync(join(cache, "trim.txt"), String(WARM_TIME.getTime() / 1000));
  return dir;
}

async function buildOnLayers(lowers: string[]): Promise<string[]> {
  const tree = tempDir("ranex-tree-");
  writeFileSync(join(tree, "go.mod"), "module example.com/m\n");
  writeFileSync(join(tree, "m.go"), "package m\n\nfunc One() int { return 1 }\n");
  const sandbox = createSandbox({ ...PROFILE, toolchain: ["/usr/local/go/bin"], maxProcesses: 256, memoryBytes: 1024 * 1024 * 1024 });
  const run = await sandbox.run({
    command: `GOCACHE="$PWD/${GO_BUILD_DIR}" GOTOOLCHAIN=local GOFLAGS= go build ./... && ls ${GO_BUILD_DIR}/ab`,
    workdir: tree, env: {}, timeoutMs: 120_000, network: false, treeLowers: lowers,
  });
  releaseTree(tree);
  expect(run.exitCode, run.outputTail).toBe(0);
  return run.outputTail.trim().split("\n");
}

describe("Go's cache trim and the warm layer", () => {
  it("without the stamp, a build trims the warm layer's entries away; with it they stay", async () => {
    const warm = warmLayer();
    expect(await buildOnLayers([warm])).not.toContain(ENTRY);
    expect(await buildOnLayers([await trimStamp(tempDir("ranex-stamp-")), warm])).toContain(ENTRY);
    // The layer itself is as it was either way.
    expect(readdirSync(join(warm, GO_BUILD_DIR, "ab"))).toEqual([ENTRY]);
  }, 300_000);
});
