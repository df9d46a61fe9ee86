import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createdEntries, listTree } from "../../../src/measure/deps/capture.js";
import { storeDependencies } from "../../../src/measure/deps/cache.js";
import { cargoFolder, CARGO_TEST_COMMAND, cargoSetup } from "../../../src/runners/cargo.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import { tempDir } from "../../helpers/git-repo.js";
import { PROFILE } from "../../sandbox/helpers.js";

// The attack on a warm layer: cargo decides a crate of the repository is fresh when its sources are
// older than the build's records. In a cold judgment the head's tree is written out BEFORE the setup
// builds the base; with the build's real dates, cargo then ran the base's compiled code as the head's
// (an honest fix FAILs cold and passes warm, or a broken head passes). The cache dates the warm layer
// 2000-01-01, so every tree file is newer and the head's code is what runs.
function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

const crate = (mul: string): Record<string, string> => ({
  "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
  "Cargo.lock": "version = 4\n\n[[package]]\nname = \"calc\"\nversion = \"0.1.0\"\n",
  "src/lib.rs": `pub fn mul(a: i64, b: i64) -> i64 {\n    ${mul}\n}\n`,
  "tests/calc.rs": "#[test]\nfn muls() {\n    assert_eq!(calc::mul(6, 7), 42);\n}\n",
});

describe("the warm layer and a tool that goes by mtime", () => {
  it("a head tree written before the setup built the base still runs the head's code", async () => {
    const folder = cargoFolder(tempDir());
    expect(folder).not.toBeNull();
    const sandbox = createSandbox({ ...PROFILE, memoryBytes: 2048 * 1024 * 1024, maxProcesses: 256, outputLimitBytes: 64 * 1024, toolchain: [folder!] });
    const head = tempDir("ranex-head-");
    write(head, crate("a * b"));
    await sleep(1100);
    const base = tempDir("ranex-base-");
    write(base, crate("let _ = (a, b);\n    0"));
    const before = await listTree(base);
    const setup = await sandbox.run({ command: cargoSetup(true), workdir: base, env: {}, timeoutMs: 600_000, network: false });
    expect(setup.exitCode, setup.outputTail).toBe(0);
    const cache = tempDir("ranex-deps-");
    const stored = await storeDependencies(cache, "sha256:ee", base, await createdEntries(base, before));
    expect(stored.warm).not.toBeNull();

    const reportDir = tempDir("ranex-report-");
    const run = await sandbox.run({
      command: CARGO_TEST_COMMAND, workdir: head, outdir: reportDir, env: { RANEX_REPORT: join(reportDir, "out.txt") }, timeoutMs: 600_000, network: false,
      treeLowers: [stored.warm!], treeOverlays: stored.entries.map((path) => ({ host: join(stored.dir, "files", path), path })),
    });
    expect(run.exitCode, run.outputTail).toBe(0);
  }, 900_000);
});
