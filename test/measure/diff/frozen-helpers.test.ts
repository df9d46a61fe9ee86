import { describe, expect, it } from "vitest";
import { assertionIn, frozenHelpers, helperWhy, importedByFrozen } from "../../../src/measure/diff/frozen-helpers.js";
import { emptyRecord, parseRecord, type ProvenanceRecord } from "../../../src/measure/provenance/record.js";

// The pure half of "test helpers the frozen tests import are frozen by default" (issue 19): which
// modules the record saw frozen files import, and whether a module asserts.

function record(imports: { name: string; by: string }[], code: string[]): ProvenanceRecord {
  return { ...emptyRecord(), imports, code: code.map((path) => ({ path, kind: "source" as const })) };
}

const base = (paths: string[], frozen: string[]) => ({ paths: new Set(paths), isFrozen: (p: string) => frozen.includes(p) });

describe("importedByFrozen", () => {
  it("resolves a Python module name against the code files that ran, under a src layout", () => {
    const paths = ["src/shapes/testing.py", "src/shapes/stats.py", "src/shapes/__init__.py", "tests/test_a.py", "tests/conftest.py"];
    const seen = importedByFrozen(
      record([
        { name: "shapes.testing", by: "tests/test_a.py" },
        { name: "shapes", by: "tests/conftest.py" },
        { name: "shapes.stats", by: "src/shapes/testing.py" },
      ], ["src/shapes/testing.py", "src/shapes/stats.py", "src/shapes/__init__.py"]),
      base(paths, ["tests/test_a.py", "tests/conftest.py"]),
    );
    // Only frozen importers count: the helper importing the code under test does not freeze that code.
    expect([...seen]).toEqual([
      ["src/shapes/__init__.py", ["tests/conftest.py"]],
      ["src/shapes/testing.py", ["tests/test_a.py"]],
    ]);
  });

  it("takes Node's resolved files as they are, and never a frozen file or one the base lacks", () => {
    const seen = importedByFrozen(
      record([
        { name: "support/near.js", by: "test/a.test.js" },
        { name: "support/near.js", by: "test/b.test.js" },
        { name: "test/fixtures.js", by: "test/a.test.js" },
        { name: "support/new.js", by: "test/a.test.js" },
        { name: "support/other.js", by: "src/x.js" },
      ], []),
      base(["support/near.js", "support/other.js", "test/a.test.js", "test/b.test.js", "test/fixtures.js", "src/x.js"], ["test/a.test.js", "test/b.test.js", "test/fixtures.js"]),
    );
    expect([...seen]).toEqual([["support/near.js", ["test/a.test.js", "test/b.test.js"]]]);
  });

  it("joins the frozen files' own imports: a name through the record's module table, a path as it is", () => {
    const paths = ["src/shapes/__init__.py", "src/shapes/testing.py", "src/shapes/stats.py", "tests/test_a.py", "test/b.test.js", "support/near.js", "src/x.js"];
    const rec = {
      ...record([{ name: "shapes.testing", by: "src/shapes/__init__.py" }], ["src/shapes/__init__.py", "src/shapes/testing.py", "src/shapes/stats.py"]),
      modules: [{ name: "shapes", path: "src/shapes/__init__.py" }, { name: "shapes.testing", path: "src/shapes/testing.py" }],
    };
    const parsed = new Map([
      // shapes.stats is not in the table (its process ran out of lines before exit): found among the code files that ran.
      ["tests/test_a.py", { names: ["shapes", "shapes.stats", "shapes.testing", "shapes.testing.assert_close", "os"], paths: [] }],
      ["test/b.test.js", { names: [], paths: ["support/near.js"] }],
      // An unfrozen file's imports say nothing.
      ["src/x.js", { names: [], paths: ["support/near.js"] }],
    ]);
    expect([...importedByFrozen(rec, base(paths, ["tests/test_a.py", "test/b.test.js"]), parsed)]).toEqual([
      ["src/shapes/__init__.py", ["tests/test_a.py"]],
      ["src/shapes/stats.py", ["tests/test_a.py"]],
      ["src/shapes/testing.py", ["tests/test_a.py"]],
      ["support/near.js", ["test/b.test.js"]],
    ]);
  });

  it("reads the module table from the record relative to the tree, each pair once", () => {
    const text = [
      JSON.stringify({ k: "mod", n: "shapes.testing", p: "/work/src/shapes/testing.py", pid: 4 }),
      JSON.stringify({ k: "mod", n: "shapes.testing", p: "/work/src/shapes/testing.py", pid: 5 }),
      JSON.stringify({ k: "mod", n: "", p: "/work/src/x.py", pid: 5 }),
    ].join("\n");
    const parsed = parseRecord(text, "/work");
    expect(parsed.modules).toEqual([{ name: "shapes.testing", path: "src/shapes/testing.py" }]);
    expect(parsed.dropped).toBe(1);
  });

  it("reads Node's import lines from the record relative to the tree", () => {
    const text = [
      JSON.stringify({ k: "imp", n: "/work/support/near.js", by: "/work/test/a.test.js", pid: 3 }),
      JSON.stringify({ k: "imp", n: "shapes.testing", by: "/work/tests/test_a.py", pid: 4 }),
    ].join("\n");
    expect(parseRecord(text, "/work").imports).toEqual([
      { name: "support/near.js", by: "test/a.test.js" }, { name: "shapes.testing", by: "tests/test_a.py" },
    ]);
  });
});

describe("assertionIn", () => {
  it("finds an assert statement first, then assertion libraries and calls", () => {
    expect(assertionIn("pkg/testing.py", "def assert_close(a, b):\n    # assert nothing here\n    assert abs(a - b) < 1e-9\n")).toBe("line 3: assert abs(a - b) < 1e-9");
    expect(assertionIn("pkg/t.py", "import numpy.testing as npt\n")).toBe("line 1: import numpy.testing as npt");
    expect(assertionIn("pkg/t.py", "def check(a):\n    if a:\n        raise AssertionError(a)\n")).toBe("line 3: raise AssertionError(a)");
    expect(assertionIn("support/near.js", "const assert = require('node:assert');\nassert.ok(x);\n")).toBe("line 2: assert.ok(x);");
    expect(assertionIn("test-utils.ts", "import { expect } from 'vitest';\nexport const same = (a, b) => expect(a).toBe(b);\n"))
      .toBe("line 2: export const same = (a, b) => expect(a).toBe(b);");
  });

  // Found on marshmallow-code/marshmallow and pypa/packaging (issue 22): the code under test keeps
  // invariants as assert statements, and the tests import it, so every honest fix to fields.py or
  // specifiers.py FAILed diff.frozen as "a test helper". Such an assert is a check made for the tests
  // only in a helper's module or a check's function.
  it("takes a library's own assert statements for invariants, not for a test's checks", () => {
    const fields = "class DateTime(Field):\n    def _serialize(self, value, attr, obj, **kwargs):\n        assert self.serialization_type is float\n        return value\n";
    expect(assertionIn("src/marshmallow/fields.py", fields)).toBeNull();
    expect(assertionIn("src/packaging/specifiers.py", "def _coerce(spec_version):\n    assert spec_version is not None\n")).toBeNull();
    expect(assertionIn("src/pkg/stats.py", "assert sys.version_info >= (3, 8)\n")).toBeNull();
    const makeError = "    def make_error(self, key):\n        try:\n            msg = self.error_messages[key]\n        except KeyError as error:\n            raise AssertionError(key) from error\n";
    expect(assertionIn("src/marshmallow/fields.py", `class Field:\n${makeError}`)).toBeNull();
    // A check's function, wherever it lives, and any assert of a helper's module, still count.
    expect(assertionIn("src/shapes/geometry.py", "def area(r):\n    return r * r\n\ndef assert_close(a, b, tol=1e-9):\n    assert abs(a - b) <= tol\n")).toBe("line 5: assert abs(a - b) <= tol");
    expect(assertionIn("src/pkg/numbers.py", "class Near:\n    def values_equal(self, a, b):\n        assert a == b\n")).toBe("line 3: assert a == b");
    expect(assertionIn("src/pkg/testing.py", "def near(a, b):\n    assert abs(a - b) < 1e-9\n")).toBe("line 2: assert abs(a - b) < 1e-9");
    expect(assertionIn("tests_support/helpers.py", "def near(a, b):\n    assert a == b\n")).toBe("line 2: assert a == b");
    // The other signs are read as before: an invariant beside them does not hide them.
    expect(assertionIn("src/pkg/fields.py", "assert x\ndef check(a):\n    if a:\n        raise AssertionError(a)\n")).toBe("line 4: raise AssertionError(a)");
  });

  it("does not take a plain raise or throw for an assertion: the code under test does that too", () => {
    expect(assertionIn("src/stats.py", "def average(xs):\n    raise NotImplementedError('todo')\n")).toBeNull();
    expect(assertionIn("src/stats.js", "function median() {\n  throw new Error('todo');\n}\n")).toBeNull();
    expect(assertionIn("src/data.json", "{\"assert\": 1}")).toBeNull();
  });

  it("says why a helper is frozen, naming one, two, or the first of more importers", () => {
    const why = (importedBy: string[]): string => helperWhy({ path: "h.py", importedBy, asserts: "line 1: assert x" });
    expect(why(["t1.py"])).toBe("a test helper, frozen by default: t1.py imports it and it asserts (line 1: assert x); release it with tests.helpers.release");
    expect(why(["t1.py", "t2.py"])).toContain(": t1.py and t2.py import it and");
    expect(why(["t1.py", "t2.py", "t3.py"])).toContain(": t1.py and 2 more frozen files import it and");
  });

  it("keeps only the imported modules that assert", () => {
    const imported = new Map([["a.py", ["t.py"]], ["b.py", ["t.py"]], ["c.py", ["t.py"]]]);
    // a.py's assert is in a check's function (a module-level `assert 1` is a library's invariant since
    // marshmallow and packaging, above); b.py asserts nothing; c.py was not read.
    const texts = new Map([["a.py", "def check(x):\n    assert x\n"], ["b.py", "x = 1\nassert x\n"]]);
    const asserts = new Map([...texts].map(([path, text]) => [path, assertionIn(path, text)]));
    expect(frozenHelpers(imported, asserts)).toEqual([{ path: "a.py", importedBy: ["t.py"], asserts: "line 2: assert x" }]);
  });
});
