import { describe, expect, it } from "vitest";
import { runnersIn, safetyClaim } from "../../../src/measure/diff/index.js";
import type { DiffFact } from "../../../src/workspace/types.js";
import {
  added, context, deleted, lines, modified, policy, renamed, submoduleAdded, submoduleRemoved, submoduleUpdated, symlink,
} from "./builders.js";

const findings = (facts: DiffFact[], over: Parameters<typeof context>[1] = {}) =>
  safetyClaim(context(facts, over)).details.map((d) => d.message);

describe("diff.safety", () => {
  it("passes an honest change, binary files included, and says what it checked", () => {
    const binary = { ...added("src/logo.png", 2048), binary: true };
    const evidence = safetyClaim(context([modified("src/calc.py"), binary], { added: [lines("src/calc.py", "return a + b")] }));
    expect(evidence).toMatchObject({ claim: "diff.safety", subject: "sha256:subject", outcome: "pass", details: [] });
    expect(evidence.reason).toBe("2 changed paths: no submodule, no symlink leaving the repository, none over 5242880 bytes, "
      + "no path tricks, no test tool or module shadowed, no binary file outside the assets, no harness reference in added code");
  });

  it("fails submodules added, updated and removed", () => {
    expect(findings([submoduleAdded("vendor/lib"), submoduleUpdated("vendor/old"), submoduleRemoved("vendor/gone")])).toEqual([
      "vendor/lib: submodule added",
      `vendor/old: submodule moved to commit ${"2".repeat(12)}`,
      "vendor/gone: submodule removed",
    ]);
  });

  it("fails symlinks that leave the repository, absolute or through '..', and keeps those that stay", () => {
    expect(findings([symlink("src/passwd", "/etc/passwd")])).toEqual(["src/passwd: symlink leaves the repository -> /etc/passwd (absolute)"]);
    expect(findings([symlink("src/up", "../../home")])).toEqual(["src/up: symlink leaves the repository -> ../../home (resolves to ../home)"]);
    expect(findings([symlink("src/a/b", "../../../x")])[0]).toContain("leaves the repository");
    expect(findings([symlink("src/ok", "../README.md"), symlink("src/here", "calc.py")])).toEqual([]);
    expect(findings([{ ...symlink("src/odd", "x"), symlinkTarget: null }])).toEqual(["src/odd: symlink whose target could not be read"]);
  });

  it("fails files over limits.file_bytes, and a size it cannot know", () => {
    const limit = policy({ limits: { file_bytes: 1000 } });
    expect(findings([added("src/big.bin", 1001), added("src/fits.bin", 1000)], { policy: limit }))
      .toEqual(["src/big.bin: 1001 bytes, over the limit of 1000 (limits.file_bytes)"]);
    expect(findings([{ ...modified("src/calc.py"), size: null }])).toEqual(["src/calc.py: size unknown, so it cannot be held to the file size limit"]);
    expect(findings([deleted("src/huge.bin")])).toEqual([]);
  });

  it("fails path tricks: control characters, '..', leading '-', .git in any case, backslashes, invalid UTF-8", () => {
    const cases: [string, string][] = [
      ["src/a\u0007b.py", "a control or invisible character"],
      ["src/\u202Egnp.py", "a control or invisible character"],
      ["src/../etc/x", "a '.' or '..' component"],
      ["src/-rf", "a component starting with '-'"],
      ["--help", "a component starting with '-'"],
      ["sub/.GIT/hooks/pre-commit", "a .git component"],
      ["sub/.git./config", "a .git component"],
      ["src\\evil.py", "a backslash"],
      ["src/caf\uFFFD.py", "bytes that are not valid UTF-8"],
    ];
    for (const [path, problem] of cases) expect(findings([added(path)])[0], path).toContain(problem);
    expect(findings([added("src/.gitignore"), added("src/my-file.py"), added(".github/x.yml"), added("src/a..b.py")])).toEqual([]);
    // Renaming a bad name away is a repair: only the head side is judged.
    expect(findings([renamed("src/-bad", "src/good.py"), deleted("src/\u0001old")])).toEqual([]);
  });

  it("marks a .git component unsafe, the other path tricks not", () => {
    expect(safetyClaim(context([added("a/.Git/config")])).unsafe).toBe(true);
    expect(safetyClaim(context([added("src/-x")])).unsafe).toBeUndefined();
  });

  it("fails new files that would shadow a test tool from the working folder", () => {
    const shadows = ["pytest.py", "pytest/__init__.py", "pytest/main.py", "_pytest/x.py", "unittest.py", "py.py", "tests/unittest/__init__.py",
      "pluggy.cpython-312-x86_64-linux-gnu.so", "node_modules/vitest/index.js", "web/node_modules/jest/x.js"];
    for (const path of shadows) expect(findings([added(path)])[0], path).toContain("would shadow");
    expect(findings([added("py/tool.py"), added("src/pytest_helpers.py"), added("pytest.ini.md"), added("vitest.js")])).toEqual([]);
  });

  it("shadows the runner named in tests.command: a top-level vitest.js, a -m module", () => {
    const vitest = policy({ tests: { command: "npx vitest run --reporter=junit --outputFile=$RANEX_JUNIT" } });
    expect(findings([added("vitest.js"), added("vitest/index.mjs"), added("src/vitest.js")], { policy: vitest })).toEqual([
      "vitest.js: new file would shadow the test runner vitest from the working folder",
      "vitest/index.mjs: new file would shadow the test runner vitest from the working folder",
    ]);
    const green = policy({ tests: { command: "python3 -m green --junit-report=$RANEX_JUNIT" } });
    expect(findings([added("green.py")], { policy: green })).toEqual(["green.py: new file would shadow the Python module green from the working folder"]);
    expect(runnersIn("./node_modules/.bin/jest --ci && mocha; python -m pytest.main")).toEqual({ node: ["jest", "mocha"], python: ["pytest"] });
  });

  it("flags added non-test code that references the harness or the report, with path and line", () => {
    const code = lines("src/calc.py",
      "def add(a, b):",
      "    import sys; sys.modules['_pytest.junitxml'] = fake",
      "    os._exit(0)",
      "atexit.register(lambda: None)",
      "process.exit(0)",
      "const p = process.env.RANEX_JUNIT",
      "fs.writeFileSync('out/report.xml', xml)",
      "return a + b");
    const details = safetyClaim(context([modified("src/calc.py")], { added: [code] })).details;
    expect(details.map((d) => [d.line, d.message.split(": ")[1]])).toEqual([
      [2, "references _pytest"], [2, "references sys.modules"], [2, "references junitxml"],
      [3, "references _exit"], [4, "references atexit"], [5, "references process.exit"],
      [6, "references RANEX_JUNIT"], [7, "references a write to an .xml report"],
    ]);
    expect(details.every((d) => d.path === "src/calc.py" && d.kind === "harness-reference")).toBe(true);
  });

  it("sees _exit however the module is named", () => {
    const code = lines("src/quit.py", "import os as _os; _os._exit(0)", "from os import _exit", "getattr(os, '_exit')(0)", "sys_exit = 1");
    const details = safetyClaim(context([modified("src/quit.py")], { added: [code] })).details;
    expect(details.map((d) => [d.line, d.message.split(": ")[1]])).toEqual([[1, "references _exit"], [2, "references _exit"], [3, "references _exit"]]);
  });

  it("does not scan frozen files: changing them already fails diff.frozen", () => {
    const policyFile = lines(".github/ranex.yml", "  command: pytest --junitxml=$RANEX_JUNIT");
    expect(safetyClaim(context([modified(".github/ranex.yml")], { added: [policyFile] })).outcome).toBe("pass");
  });

  it("spares honest module patching in a new test file, and keeps the matched text short and on one line", () => {
    const test = lines("tests/test_new.py", "import sys; sys.modules['x'] = y");
    expect(safetyClaim(context([added("tests/test_new.py")], { added: [test] })).outcome).toBe("pass");
    const long = lines("src/a.js", `${"x".repeat(500)} process.exit(1) ${"y".repeat(500)}\u001b[2K`);
    const message = safetyClaim(context([modified("src/a.js")], { added: [long] })).details[0]?.message ?? "";
    expect(message.length).toBeLessThan(120);
    expect(message).toContain("process.exit(1)");
  });

  it("lists at most ten harness references per file and counts the rest", () => {
    const flood = lines("src/a.js", ...Array.from({ length: 25 }, () => "process.exit(0)"));
    const details = safetyClaim(context([modified("src/a.js")], { added: [flood] })).details;
    expect(details).toHaveLength(11);
    expect(details[10]?.message).toBe("src/a.js: 15 more harness references not listed");
  });

  it("escapes paths in messages so a newline cannot forge a line", () => {
    const evidence = safetyClaim(context([added("src/a\nPASS diff.safety")]));
    expect(evidence.reason).not.toMatch(/[\n\r]/);
    expect(evidence.details[0]?.message).toBe('"src/a\\nPASS diff.safety": path has a control or invisible character');
  });
});
