// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  // Generated or built here, never source: the demo's example repositories, test output, builds.
  // test/runners/fixtures/tap/src: the test files real TAP was captured from, kept as they ran.
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "schema/**", ".demo/**", "test-output/**", "test/runners/fixtures/tap/src/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // The kernel is pure: it may not reach the world (DESIGN.md, invariant 1).
    files: ["src/kernel/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [
          { group: ["node:fs*", "fs", "node:child_process", "child_process", "node:net", "node:http*", "node:os", "node:process", "execa", "simple-git", "better-sqlite3", "pg", "@octokit/*", "probot"], message: "src/kernel is pure: no I/O." },
          { group: ["../*", "!../kernel/*"], message: "src/kernel imports nothing outside the kernel." },
        ],
      }],
      "no-restricted-globals": ["error", "process", "Date", "setTimeout", "setInterval", "fetch"],
      "no-restricted-properties": ["error", { object: "Math", property: "random", message: "The kernel is deterministic." }],
    },
  },
);
