import { chmodSync, existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { goEnv, toolchainIdentity } from "../../../src/measure/deps/go-env.js";
import { prepareGoStd } from "../../../src/measure/deps/go-std.js";
import { GO_TEST_COMMAND } from "../../../src/runners/go.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import { tempDir } from "../../helpers/git-repo.js";
import { PROFILE } from "../../sandbox/helpers.js";

// Go's standard-library layer with the real toolchain in the real sandbox (issue 22): a build that
// fails is remembered per toolchain key and not paid again by every judgment; `go env` is asked once
// per toolchain; a command's flags decide which layer it gets.
const sandbox = createSandbox({ ...PROFILE, toolchain: ["/usr/local/go/bin"], maxProcesses: 256, memoryBytes: 1024 * 1024 * 1024 });
// Fails at once, before compiling anything: -race needs cgo.
const NO_CGO_RACE = GO_TEST_COMMAND.replace("go test", "CGO_ENABLED=0 go test -race");

describe("the standard-library layer's failures and toolchain", () => {
  it("a failed build is remembered with its reason: the next judgment does not build again until the retry time passes", async () => {
    const cacheDir = tempDir("ranex-go-std-");
    const options = (retryMs: number) => ({ cacheDir, scratchDir: tempDir("ranex-scratch-"), commands: [NO_CGO_RACE], retryMs, keep: 4 });
    const first = await prepareGoStd(sandbox, options(3_600_000));
    expect(first.built).not.toBeNull();
    expect(first.below).toEqual([]);
    expect(first.missing).toContain("-race requires cgo");
    expect(first.note).toMatch(/^Go standard library compiled by the runs for CGO_ENABLED=0 -race: the gate's build of the Go standard library failed: .*-race requires cgo/);

    const second = await prepareGoStd(sandbox, options(3_600_000));
    expect(second.built).toBeNull();
    expect(second.note).toMatch(/-race requires cgo.* \(at .*Z; not tried again before .*Z, RANEX_GO_STD_RETRY_MINUTES, or until the toolchain changes\)$/);

    // Once the time has passed, it is tried again.
    const third = await prepareGoStd(sandbox, options(0));
    expect(third.built).not.toBeNull();
    expect(third.missing).toContain("-race requires cgo");
  }, 300_000);

  it("a command with flags the gate does not build a layer for gets the default layer, and the setup line says why the rest is compiled by the runs", async () => {
    // The tests' shared layer (vitest.config.ts): built once by whichever Go test comes first.
    const cacheDir = process.env.RANEX_GO_STD_DIR ?? tempDir("ranex-go-std-");
    const command = GO_TEST_COMMAND.replace("go test", "go test -gcflags=all=-N -cover");
    const layers = await prepareGoStd(sandbox, { cacheDir, scratchDir: tempDir("ranex-scratch-"), commands: [command], retryMs: 3_600_000, keep: 4 });
    expect(layers.missing).toBeNull();
    expect(layers.below).toHaveLength(1);
    expect(layers.note).toMatch(/^Go standard library (from the gate's layer|built by the gate in [\d.]+ s) for default flags \([0-9a-f]{12}(, go env remembered)?\); not built for -gcflags=all=-N: the runs compile what those flags change$/);
  }, 1_800_000);

  it("go env is asked once per toolchain and environment, then remembered", async () => {
    const cacheDir = tempDir("ranex-go-std-");
    // An environment no other test of this process asks (the answers are remembered in the process too).
    const asked = await goEnv(sandbox, cacheDir, tempDir("ranex-env-"), ["GOAMD64=v3"]);
    expect("env" in asked && asked.cached).toBe(false);
    const again = await goEnv(sandbox, cacheDir, tempDir("ranex-env-"), ["GOAMD64=v3"]);
    expect(again).toEqual({ env: "env" in asked ? asked.env : {}, cached: true });
    expect("env" in again && again.env.GOVERSION).toMatch(/^go1\./);
    // Another environment is another question.
    const v2 = await goEnv(sandbox, cacheDir, tempDir("ranex-env-"), ["GOAMD64=v2"]);
    expect("env" in v2 && [v2.cached, v2.env.GOAMD64]).toEqual([false, "v2"]);
  }, 300_000);

  it("the toolchain's identity changes with the go binary the sandbox finds, and with its mtime", async () => {
    const bin = join(tempDir("ranex-toolchain-"), "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "go"), "#!/bin/sh\nexit 0\n");
    chmodSync(join(bin, "go"), 0o755);
    const real = await toolchainIdentity(sandbox, []);
    const other = createSandbox({ ...PROFILE, toolchain: [bin] });
    const before = await toolchainIdentity(other, []);
    expect(real).not.toBeNull();
    expect(before).not.toEqual(real);
    utimesSync(join(bin, "go"), new Date(2001, 1, 1), new Date(2001, 1, 1));
    expect(await toolchainIdentity(other, [])).not.toEqual(before);
    expect(existsSync(join(bin, "go"))).toBe(true);
  });
});
