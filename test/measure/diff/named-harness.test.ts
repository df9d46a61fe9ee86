import { describe, expect, it } from "vitest";
import { namedHarness, namesHarness } from "../../../src/measure/diff/named-harness.js";

// Files a frozen configuration names at a path of its own (issue 22), read from its text. Pure.

const paths = new Set([
  "tools/jest-env.js", "tools/after-env.ts", "tools/global-setup.js", "tools/env/index.js", "web/setup/dom.ts",
  "tools/mocha-hooks.cjs", "src/shapes/pytest_plugin.py", "plugins/flaky/__init__.py", "crates/a/scripts/gen.rs", "support/reg.js",
]);
const at = (config: string, text: string): string[] => namedHarness(config, text, paths).map((h) => `${h.path} <- ${h.by}`);

describe("namedHarness", () => {
  it("reads jest's setup files, global setup and environment, <rootDir> included", () => {
    const text = `module.exports = {\n  setupFiles: ['./tools/jest-env.js'],\n  setupFilesAfterEnv: ["<rootDir>/tools/after-env.ts"],\n  globalSetup: './tools/global-setup.js',\n  testEnvironment: 'jsdom',\n};`;
    expect(at("jest.config.js", text)).toEqual([
      "tools/jest-env.js <- jest.config.js (setupFiles)", "tools/after-env.ts <- jest.config.js (setupFilesAfterEnv)",
      "tools/global-setup.js <- jest.config.js (globalSetup)",
    ]);
  });

  it("reads package.json's jest section and its scripts' --require, never its main or files", () => {
    const json = JSON.stringify({ main: "tools/global-setup.js", scripts: { test: "mocha --require support/reg.js" }, jest: { testEnvironment: "./tools/env", setupFiles: ["tools/jest-env.js"] } });
    expect(at("package.json", json)).toEqual([
      "support/reg.js <- package.json (scripts --require)", "tools/jest-env.js <- package.json (setupFiles)", "tools/env/index.js <- package.json (testEnvironment)",
    ]);
  });

  it("reads vitest's setupFiles and globalSetup from the config's own folder", () => {
    expect(at("web/vitest.config.ts", "export default defineConfig({ test: { setupFiles: './setup/dom.ts', globalSetup: ['./nope.ts'] } })"))
      .toEqual(["web/setup/dom.ts <- web/vitest.config.ts (setupFiles)"]);
  });

  it("reads mocha's require in .mocharc YAML and JSON", () => {
    expect(at(".mocharc.yml", "spec: test/**/*.js\nrequire:\n  - tools/mocha-hooks.cjs\n")).toEqual(["tools/mocha-hooks.cjs <- .mocharc.yml (require)"]);
    expect(at(".mocharc.json", '{ "require": ["./tools/mocha-hooks.cjs"] }')).toEqual(["tools/mocha-hooks.cjs <- .mocharc.json (require)"]);
  });

  it("reads pytest's -p plugins in addopts and in the policy's command, not -p no:…", () => {
    expect(at("pytest.ini", "[pytest]\naddopts = -p shapes.pytest_plugin -p no:cacheprovider -pflaky")).toEqual([
      "src/shapes/pytest_plugin.py <- pytest.ini (-p)", "plugins/flaky/__init__.py <- pytest.ini (-p)",
    ]);
    expect(at("pyproject.toml", '[tool.pytest.ini_options]\naddopts = ["-p", "flaky"]')).toEqual(["plugins/flaky/__init__.py <- pyproject.toml (-p)"]);
    expect(at(".github/ranex.yml", "tests:\n  command: 'python3 -m pytest -p plugins.flaky tests'")).toEqual(["plugins/flaky/__init__.py <- .github/ranex.yml (-p)"]);
  });

  it("reads Cargo's build script at a path of its own", () => {
    expect(at("crates/a/Cargo.toml", '[package]\nname = "a"\nbuild = "scripts/gen.rs"\n')).toEqual(["crates/a/scripts/gen.rs <- crates/a/Cargo.toml (build)"]);
  });

  it("knows which configurations it reads", () => {
    for (const p of ["jest.config.ts", "web/vite.config.mjs", ".mocharc", ".mocharc.yaml", "setup.cfg", "a/Cargo.toml", "package.json", ".github/ranex.yml"]) expect(namesHarness(p)).toBe(true);
    expect(namesHarness("src/config.js")).toBe(false);
  });
});

describe("the policy's commands", () => {
  it("reads a --require of a script, never pip's -r of a requirements file", () => {
    const all = new Set([...paths, "requirements/dev.txt"]);
    const text = "tests:\n  setup: 'pip install -r requirements/dev.txt'\n  command: 'npx mocha --require support/reg.js'";
    expect(namedHarness(".github/ranex.yml", text, all).map((h) => h.path)).toEqual(["support/reg.js"]);
  });
});
