import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import SlowFirst from "./test/slow-first.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Tests build real git repositories and real sandboxes; two cores are all we have.
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
    // Files that judge repositories start first, so neither worker is left alone with one at the end.
    sequence: { sequencer: SlowFirst },
    // One Go standard-library layer for every test's data folder (src/measure/deps/go-std.ts): the
    // gate builds it once per toolchain, in production once per data folder.
    env: { RANEX_GO_STD_DIR: join(tmpdir(), "ranex-test-go-std") },
  },
});
