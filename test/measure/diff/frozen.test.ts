import { describe, expect, it } from "vitest";
import { DEFAULT_FROZEN_GLOBS, frozenClaim, isFrozen, newTestFiles } from "../../../src/measure/diff/index.js";
import {
  added, BASE_PATHS, chmod, context, copied, deleted, modified, policy, renamed, symlink, typeChanged,
} from "./builders.js";

const kinds = (facts: Parameters<typeof context>[0], over: Parameters<typeof context>[1] = {}) =>
  frozenClaim(context(facts, over)).details.map((d) => [d.path, d.kind]);

describe("diff.frozen", () => {
  it("passes an honest change and says what it checked", () => {
    const evidence = frozenClaim(context([modified("src/calc.py"), added("src/new.py")]));
    expect(evidence).toEqual({
      claim: "diff.frozen", subject: "sha256:subject", outcome: "pass", details: [],
      reason: "2 changed paths, none frozen",
    });
  });

  it("fails a modified test file and a new conftest.py, naming each in one plain reason", () => {
    const evidence = frozenClaim(context([modified("tests/test_calc.py"), added("src/conftest.py")]));
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("2 frozen paths changed: tests/test_calc.py (modified), src/conftest.py (added)");
    expect(evidence.details).toEqual([
      { path: "tests/test_calc.py", kind: "modified", message: "tests/test_calc.py: modified" },
      { path: "src/conftest.py", kind: "added", message: "src/conftest.py: added" },
    ]);
  });

  it("fails a deleted test, a rename away from a test and a rename onto a harness file", () => {
    expect(kinds([deleted("tests/test_util.py")])).toEqual([["tests/test_util.py", "deleted"]]);
    const away = frozenClaim(context([renamed("tests/test_calc.py", "tests/old_calc.py")]));
    expect(away.details[0]).toMatchObject({ path: "tests/test_calc.py", kind: "renamed", message: "tests/test_calc.py: renamed to tests/old_calc.py" });
    const onto = frozenClaim(context([renamed("src/util.py", "lib/pytest.ini")]));
    expect(onto.details[0]).toMatchObject({ path: "lib/pytest.ini", kind: "renamed", message: "lib/pytest.ini: renamed onto it from src/util.py" });
  });

  it("fails a copy over a frozen path", () => {
    expect(kinds([copied("src/calc.py", "tests/test_calc.py")])).toEqual([["tests/test_calc.py", "copied"]]);
  });

  it("fails a mode change alone (the exec bit) and says which modes", () => {
    const evidence = frozenClaim(context([chmod("tests/test_calc.py")]));
    expect(evidence.details).toEqual([{ path: "tests/test_calc.py", kind: "mode", message: "tests/test_calc.py: mode 100644→100755" }]);
    expect(frozenClaim(context([chmod("src/calc.py")])).outcome).toBe("pass");
  });

  it("fails a frozen file replaced by a symlink (type change)", () => {
    const evidence = frozenClaim(context([typeChanged("conftest.py", "src/evil.py")]));
    expect(evidence.details[0]?.kind).toBe("type-changed");
    expect(evidence.details[0]?.message).toBe("conftest.py: type changed 100644→120000, replaced by a symlink -> src/evil.py");
  });

  it("fails a new symlink that resolves into the frozen set, relative to its own folder", () => {
    const evidence = frozenClaim(context([symlink("src/link.py", "../tests/test_calc.py")]));
    expect(evidence.details).toEqual([{ path: "src/link.py", kind: "symlink", message: "src/link.py: symlink into frozen set -> tests/test_calc.py" }]);
    expect(kinds([symlink("src/tests", "../tests")])).toEqual([["src/tests", "symlink"]]);
    expect(kinds([symlink("ci", ".github")])).toEqual([["ci", "symlink"]]);
    expect(frozenClaim(context([symlink("src/all", "..")])).details[0]?.message).toBe("src/all: symlink into frozen set -> the repository root");
    // Same name, but resolved from src/, so it points at src/tests/test_calc.py: not frozen.
    expect(frozenClaim(context([symlink("src/link.py", "tests/test_calc.py")])).outcome).toBe("pass");
    expect(frozenClaim(context([symlink("src/link.py", "util.py")])).outcome).toBe("pass");
  });

  it("fails new paths that equal a frozen path case-insensitively but not exactly", () => {
    expect(frozenClaim(context([added("Tests/test_calc.py")])).details[0]?.message).toBe("Tests/test_calc.py: case-shadows tests/test_calc.py");
    expect(frozenClaim(context([added("lib/CONFTEST.py")])).details[0]?.message).toBe("lib/CONFTEST.py: case-shadows frozen pattern **/conftest.py");
    expect(kinds([renamed("src/util.py", "TESTS/TEST_UTIL.PY")])).toEqual([["TESTS/TEST_UTIL.PY", "case-shadow"]]);
    expect(frozenClaim(context([added("src/Calc.py")])).outcome).toBe("pass");
  });

  it("lets new test files through as red-then-green targets, and fails them when allow_new is false", () => {
    const facts = [modified("src/calc.py"), added("tests/test_new.py")];
    const allowed = frozenClaim(context(facts));
    expect(allowed.outcome).toBe("pass");
    expect(allowed.reason).toBe("2 changed paths, none frozen; 1 new test file is a red-then-green target");
    expect(newTestFiles(context(facts))).toEqual(["tests/test_new.py"]);
    const forbidden = context(facts, { policy: policy({ tests: { command: "pytest", allow_new: false } }) });
    expect(frozenClaim(forbidden).details).toEqual([
      { path: "tests/test_new.py", kind: "new-test", message: "tests/test_new.py: new test file, and tests.allow_new is false" },
    ]);
  });

  it("does not count harness files or case twins of base tests as new test files", () => {
    const ctx = context([added("tests/conftest.py"), added("tests/Test_Calc.py"), added("src/feature.test.ts")]);
    expect(newTestFiles(ctx)).toEqual(["src/feature.test.ts"]);
    expect(frozenClaim(ctx).details.map((d) => d.kind)).toEqual(["added", "case-shadow"]);
  });

  it("adds the policy's frozen globs and removes only paths named exactly in unfreeze", () => {
    const ctx = context([modified("docs/spec.md"), modified("pyproject.toml")],
      { policy: policy({ frozen: ["docs/**"], unfreeze: ["pyproject.toml"] }) });
    expect(frozenClaim(ctx).details.map((d) => d.path)).toEqual(["docs/spec.md"]);
    // Unfreezing the top-level file leaves the same name elsewhere frozen.
    const nested = context([added("pkg/pyproject.toml")], { policy: policy({ unfreeze: ["pyproject.toml"] }) });
    expect(frozenClaim(nested).outcome).toBe("fail");
    const test = context([modified("tests/test_calc.py")], { policy: policy({ unfreeze: ["tests/test_calc.py"] }) });
    expect(frozenClaim(test).outcome).toBe("pass");
  });

  it("freezes the harness of common runners at any depth", () => {
    const ctx = context([]);
    const harness = [
      ".github/workflows/ci.yml", ".ranex/tasks/a.yml", "conftest.py", "a/b/conftest.py", "pytest.ini", "tox.ini", "setup.cfg",
      "pkg/pyproject.toml", "sitecustomize.py", "usercustomize.py", "lib/evil.pth", "web/package.json", "package-lock.json",
      "yarn.lock", "pnpm-lock.yaml", "npm-shrinkwrap.json", "poetry.lock", "uv.lock", "Pipfile.lock", ".npmrc",
      "vitest.config.ts", "app/vite.config.mjs", "jest.config.js", ".mocharc.yml", "babel.config.json",
      "node_modules/vitest/index.js", "web/node_modules/x.js", "Makefile", "sub/Makefile",
    ];
    expect(harness.filter((p) => !isFrozen(p, ctx))).toEqual([]);
    expect(["src/calc.py", "docs/Makefile.md", "src/github.ts", "README.md"].filter((p) => isFrozen(p, ctx))).toEqual([]);
    expect(DEFAULT_FROZEN_GLOBS).toContain("**/conftest.py");
  });

  it("treats every test file on base as frozen, by tests.files", () => {
    const ctx = context([], { basePaths: [...BASE_PATHS, "spec/calc_spec.rb"], policy: policy({ tests: { command: "rspec", files: ["spec/**"] } }) });
    expect(isFrozen("spec/calc_spec.rb", ctx)).toBe(true);
    expect(isFrozen("tests/test_calc.py", ctx)).toBe(false);
  });

  it("escapes control characters so a path cannot forge a line of output", () => {
    const path = "tests/x\nFAIL forged.py";
    const evidence = frozenClaim(context([modified(path)], { basePaths: [...BASE_PATHS, path] }));
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).not.toContain("\n");
    expect(evidence.details[0]?.message).toBe('"tests/x\\nFAIL forged.py": modified');
    expect(evidence.details[0]?.path).toBe(path);
  });

  it("keeps a frozen glob matching even when the path holds a line break", () => {
    expect(kinds([added("a\nb/conftest.py")])).toEqual([["a\nb/conftest.py", "added"]]);
  });
});
