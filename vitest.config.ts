import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Tests build real git repositories and real sandboxes; two cores are all we have.
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
  },
});
