import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { initFixture } from "./init-fixture.js";

// What npm runs besides the test script, as `ranex init` meets it on real packages (issue 22).
//
// Found on yargs/yargs-parser: `npm test` runs `pretest` first (there, tsc compiles what the mocha
// tests import from build/), and init followed scripts.test alone, so its try found every test file
// failing to load and sent the user to install dependencies. fixtures/repos/node-pretest.sh has the
// same shape with nothing to install.

describe("node-pretest: tests that import what npm's pretest builds", () => {
  it("init keeps `npm run pretest` before the runner, and its try runs the tests", async () => {
    const { repo, init } = await initFixture("node-pretest", [], 240_000);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain("tests found: 1 in 1 file(s)\n  test/calc.test.js  1 (1 passed)");
    expect(readFileSync(join(repo, ".github/ranex.yml"), "utf8")).toContain("  command: 'npm run pretest && node --test ");
  }, 300_000);
});

// Found on yargs/yargs-parser too: `init --add-deps` ran `npm install --save-dev <reporter>` on the
// host with every dependency's install scripts, outside the sandbox; puppeteer's browser download
// failed there and init stopped. It only needs package.json and the lock: the setup installs. And
// the setup in the sandbox failed the same way (its network reaches the registries only), so init
// writes puppeteer's own switch before the install.
describe("mocha-postinstall: --add-deps beside puppeteer, whose postinstall downloads a browser", () => {
  it("declares the reporter without running any install script on the host; the setup skips the download and the try runs the tests", async () => {
    const { repo, init } = await initFixture("mocha-postinstall", ["--add-deps"], 600_000);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).devDependencies).toHaveProperty("mocha-junit-reporter");
    expect(existsSync(join(repo, "postinstall-ran"))).toBe(false);
    expect(readFileSync(join(repo, ".github/ranex.yml"), "utf8")).toContain("  setup: 'PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1 npm install --no-audit --no-fund'");
    expect(init.stdout).toMatch(/tests found: 1 in 1 file\(s\)\n {2}test\/calc\.js {2}1 \(1 passed\)/);
  }, 700_000);
});

// Found on unjs/ufo: a pnpm-lock.yaml got `pnpm install --frozen-lockfile --offline`, and there is no
// pnpm on the machine (nor in the sandbox), and an empty store offline installs nothing: setup failed
// ("pnpm: not found"), the checks were dropped, no test ran. pnpm now comes through npx from the npm
// registry, at the version package.json's packageManager names.
describe("pnpm-calc: a pnpm lock, and no pnpm on the machine", () => {
  it("init installs with the pnpm packageManager names, from the registry, and its try runs the tests", async () => {
    const { repo, init } = await initFixture("pnpm-calc", [], 300_000);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(readFileSync(join(repo, ".github/ranex.yml"), "utf8")).toContain("  setup: 'npx --yes pnpm@9.15.9 install --frozen-lockfile'");
    expect(init.stdout).toMatch(/setup \d+\.\d s \(installed once, now cached\)/);
    expect(init.stdout).toContain("tests found: 1 in 1 file(s)\n  test/calc.test.js  1 (1 passed)");
  }, 400_000);
});

// Found on npm/node-semver: the TAP launcher asked node-tap for `--disable-coverage` (node-tap 18's
// flag); node-tap 16 answered "invalid argument", so every test file was a load error and no test ran.
describe("node-tap16-calc: node-tap 16, whose coverage flag is --no-coverage", () => {
  it("init's try runs the tests through the launcher", async () => {
    const { init } = await initFixture("node-tap16-calc", [], 600_000);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).not.toContain("invalid argument");
    expect(init.stdout).toContain("tests found: 3 in 1 file(s)");
  }, 700_000);
});

// Found on immerjs/immer (yarn 1 lock): yarn 1 refuses a package whose `engines` exclude the
// machine's Node (semantic-release 25 wants Node 22), where npm and pnpm only warn: setup failed and
// no test ran. yarn-calc's local release-tooling package wants Node 99.
describe("yarn-calc: a yarn 1 lock, no yarn on the machine, a package whose engines exclude its Node", () => {
  it("init installs with yarn 1 through npx, ignoring engines as npm does, and its try runs the tests", async () => {
    const { repo, init } = await initFixture("yarn-calc", [], 300_000);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(readFileSync(join(repo, ".github/ranex.yml"), "utf8")).toContain("  setup: 'npx --yes yarn@1 install --frozen-lockfile --ignore-engines'");
    expect(init.stdout).toMatch(/setup \d+\.\d s \(installed once, now cached\)/);
    expect(init.stdout).toContain("tests found: 1 in 1 file(s)\n  test/calc.test.js  1 (1 passed)");
  }, 400_000);
});

// Found on reduxjs/reselect (yarn 4, berry): berry reads no npmrc, so behind a registry proxy that
// re-signs TLS it failed "self-signed certificate in certificate chain" where npm trusts the
// machine's store. And berry's default linker, Plug'n'Play, leaves no node_modules: `require("ms")`
// finds nothing under the runner, and the gate's launchers find no runner.
describe("yarn-pnp-calc: a berry lock on Plug'n'Play", () => {
  it("init installs node_modules with berry through npx, says so in one line, and its try runs the tests", async () => {
    const { repo, init } = await initFixture("yarn-pnp-calc", [], 300_000);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    const policy = readFileSync(join(repo, ".github/ranex.yml"), "utf8");
    expect(policy).toContain("  setup: 'NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt YARN_NODE_LINKER=node-modules npx --yes -p @yarnpkg/cli-dist@4.4.1 yarn install --immutable'");
    expect(policy).toContain("  # yarn Plug'n'Play (no nodeLinker in .yarnrc.yml) is installed as node_modules");
    expect(init.stdout).toContain("tests found: 1 in 1 file(s)\n  test/calc.test.js  1 (1 passed)");
  }, 400_000);
});
