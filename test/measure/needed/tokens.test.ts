import { describe, expect, it } from "vitest";
import { jsTokenKey, tokenLanguage } from "../../../src/measure/needed/tokens.js";
import { pythonTokenKeys } from "../../../src/judge/python-tokens.js";
import { definesNoTest } from "../../../src/measure/diff/defines-tests.js";

// diff.needed judges behaviour, not bytes (issue 19): equal token streams are the same program.

describe("token streams", () => {
  it("knows Python and JavaScript/TypeScript by the file's name", () => {
    expect(["a.py", "a.js", "a.mjs", "a.tsx", "a.go", "README.md"].map(tokenLanguage)).toEqual(["python", "js", "js", "js", null, null]);
  });

  it("JavaScript: comments, blank lines and spacing are not tokens; a changed literal or a joined line is", () => {
    const base = "export function add(a, b) {\n  return a + b;\n}\n";
    expect(jsTokenKey("// adds\nexport function add(a,b){\n\n  /* sum */ return a+b;\n}\n", "x.js")).toBe(jsTokenKey(base, "x.js"));
    expect(jsTokenKey(base.replace("a + b", "a - b"), "x.js")).not.toBe(jsTokenKey(base, "x.js"));
    // A line break is kept as one mark: `return\na` is not `return a` (automatic semicolon insertion).
    expect(jsTokenKey("function f(a) {\n  return\n  a;\n}\n", "x.js")).not.toBe(jsTokenKey("function f(a) {\n  return a;\n}\n", "x.js"));
    expect(jsTokenKey("const s = 'a // not a comment';\n", "x.ts")).not.toBe(jsTokenKey("const s = 'a';\n", "x.ts"));
    expect(jsTokenKey("/* never closed", "x.js")).toBeNull();
  });

  it("Python (python3's own tokenize): comments and blank lines are not tokens; indentation and docstrings are", async () => {
    const base = "def total(xs):\n    return sum(xs)\n";
    const keys = await pythonTokenKeys([
      base,
      "# helpers\ndef total(xs):\n    # exact for integers\n\n    return sum(xs)  # in order\n",
      "def total(xs):\n    return sum(xs) + 0\n",
      "def total(xs):\n    '''Sum.'''\n    return sum(xs)\n",
      "def total(xs):\nreturn sum(xs)\n",
      "s = '''never closed\n",
      "",
      "# only a comment\n",
    ], []);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(keys[3]).not.toBe(keys[0]);
    expect(keys[4]).not.toBe(keys[0]);
    expect(keys[5]).toBeNull();
    expect(keys[7]).toBe(keys[6]);
  });

  it("Python: a coding cookie is behaviour, and so is what it makes of a comment", async () => {
    const payload = "def f():\n    return 1\n# +AAo-    return 2\n";
    const keys = await pythonTokenKeys([payload, `# coding: utf-7\n${payload}`, `# just a note\n${payload}`], []);
    expect(keys[2]).toBe(keys[0]);
    expect(keys[1]).not.toBe(keys[0]);
  });

  it("answers null for every text when no python3 can be found", async () => {
    expect(await pythonTokenKeys(["x = 1\n"], ["/nonexistent"])).toHaveLength(1);
  });
});

describe("does a new file named like a test define one", () => {
  it("reads each runner's own conventions", () => {
    expect(definesNoTest("src/pkg/test_vectors.py", "VECTORS = [1]\ndef register():\n    pass\n")).toBe(true);
    expect(definesNoTest("tests/test_x.py", "def test_x():\n    assert True\n")).toBe(false);
    expect(definesNoTest("tests/test_x.py", "import unittest\nclass Calc(unittest.TestCase):\n    pass\n")).toBe(false);
    expect(definesNoTest("tests/test_x.py", "class TestCalc:\n    pass\n")).toBe(false);
    expect(definesNoTest("src/x.test.js", "module.exports = { patch() {} };\n")).toBe(true);
    expect(definesNoTest("src/x.test.js", "test('adds', () => {});\n")).toBe(false);
    expect(definesNoTest("src/x.spec.ts", "describe.each([1])('x', () => {});\n")).toBe(false);
    expect(definesNoTest("src/x.test.ts", "it.only(`works`, async () => {});\n")).toBe(false);
    // node-tap: subtests of the root test (a file that was read as defining none was left out of the new-test runs).
    expect(definesNoTest("test/x.js", "const t = require('tap');\nt.test('muls', async (t) => { t.equal(1, 1); });\n")).toBe(false);
    expect(definesNoTest("test/x.js", "import tap from 'tap';\ntap.test('muls', async (t) => {});\n")).toBe(false);
    expect(definesNoTest("test/x.js", "exports.check = (t) => t.testing;\nfoo.t.test = 1;\n")).toBe(true);
    expect(definesNoTest("pkg/x_test.go", "package pkg\nfunc helper() {}\n")).toBe(true);
    expect(definesNoTest("pkg/x_test.go", "package pkg\nfunc TestX(t *testing.T) {}\n")).toBe(false);
    // Not source: a fixture under tests/ stays a test file.
    expect(definesNoTest("tests/data/input.json", "{}")).toBe(false);
  });
});
