import { expect } from "vitest";
import { judgedAsNewUser } from "./ecosystem-case.js";
import { git } from "../helpers/git-repo.js";

// mocha as a new user meets it (issue 22), see ecosystem-case.ts: fixtures/repos/mocha-calc.sh
// (`npm test` -> `mocha test/`, mocha declared, mocha-junit-reporter not, package-lock.json in
// .gitignore). `ranex init --add-deps` adds the reporter to package.json and writes the gate's mocha
// launcher with a setup that installs without a lock file: the one npm makes is ignored, so no judged
// tree has it and `npm ci` would fail. package.json and the policy are committed as init left them.
const TARGET = "test/calc.js::calc muls";

judgedAsNewUser({
  name: "mocha-calc", runner: "mocha", target: TARGET, frozen: "test/calc.js", newTest: "test/mul-more.js::mul muls negatives", ownFile: "test/mul-more.js",
  initArgs: ["--add-deps"], initChanges: ["package.json"],
  initSaw: ({ repo, stdout, written, status }) => {
    expect(stdout).toContain("runner: mocha (package.json scripts.test runs mocha)");
    expect(stdout).toContain("adding devDependencies: npm install --save-dev mocha-junit-reporter");
    expect(stdout).toContain("plus package.json, uncommitted");
    expect(stdout).toContain("tests found: 3 in 1 file(s)");
    expect(stdout).not.toContain("problem:");
    // init changed package.json and wrote the policy; the lock file npm wrote stays ignored.
    expect(status).toEqual(["?? .github/", "M package.json"]);
    const pkg = JSON.parse(git(repo, "show", "main:package.json")) as { devDependencies: Record<string, string> };
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(["mocha", "mocha-junit-reporter"]);
    expect(git(repo, "ls-tree", "-r", "--name-only", "main").split("\n")).not.toContain("package-lock.json");
    expect(written).toContain(`command: 'node "$RANEX_REPORTERS/mocha-run.cjs" test/'`);
    expect(written).toContain("setup: 'npm install --no-audit --no-fund'");
    expect(written).not.toContain("npm ci");
    expect(written).not.toContain("does not declare");
  },
});
