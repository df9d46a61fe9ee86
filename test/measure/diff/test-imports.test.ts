import { describe, expect, it } from "vitest";
import { importsOf, readsImports, resolveScript, scriptSpecifiers } from "../../../src/measure/diff/test-imports.js";

// The frozen files' own import statements (issue 19, the frozen tests' helpers): what a frozen test
// imports whoever loaded the module first, and whatever loader ran it.

describe("Python import statements", () => {
  const none = new Set<string>();

  it("names every module an absolute import loads, its packages included, and `from a import b`'s possible submodule", () => {
    const text = [
      "import os, shapes.testing as t",
      "from shapes.stats import (",
      "    average,  # the target",
      "    total as sum_of,",
      ")",
      "from __future__ import annotations",
      "x = 1; import extra.mod",
      "def test_x():",
      "    from late import \\",
      "        helper",
      "# import commented.out",
    ].join("\n");
    expect(importsOf("tests/test_a.py", text, none)).toEqual({
      names: ["extra", "extra.mod", "late", "late.helper", "os", "shapes", "shapes.stats", "shapes.stats.average", "shapes.stats.total", "shapes.testing"],
      paths: [],
    });
  });

  it("follows attributes of an imported package: a submodule its __init__.py loads is reached as `np.testing`", () => {
    const text = "import numpy as np\nimport shapes\n\ndef test_a():\n    np.testing.assert_allclose(1, 1)\n    shapes.testing.assert_close(shapes.stats.total([1]), 1)\n    x.np.other()\n";
    expect(importsOf("tests/test_a.py", text, none).names).toEqual(["numpy", "numpy.testing", "numpy.testing.assert_allclose", "shapes", "shapes.stats", "shapes.stats.total", "shapes.testing", "shapes.testing.assert_close"]);
  });

  it("takes literal names given to import_module, __import__, importorskip and pytest_plugins", () => {
    const text = 'import importlib\nnear = importlib.import_module("pkg.testing").near\npytest_plugins = ["pkg.fixtures", "other"]\nnp = pytest.importorskip("numpy")\n';
    expect(importsOf("tests/conftest.py", text, none).names).toEqual(["importlib", "importlib.import_module", "numpy", "other", "pkg", "pkg.fixtures", "pkg.testing"]);
  });

  it("resolves relative imports against the file's own folders, as the packages on the disk are", () => {
    const paths = new Set(["src/pkg/__init__.py", "src/pkg/testing.py", "src/pkg/sub/__init__.py", "src/pkg/sub/near.py", "src/pkg/tests/__init__.py", "src/pkg/tests/helpers.py"]);
    const text = "from ..testing import assert_close\nfrom ..sub import near\nfrom . import helpers\nfrom ... import outside\n";
    expect(importsOf("src/pkg/tests/test_a.py", text, paths)).toEqual({
      names: [],
      paths: ["src/pkg/__init__.py", "src/pkg/sub/__init__.py", "src/pkg/sub/near.py", "src/pkg/testing.py", "src/pkg/tests/__init__.py", "src/pkg/tests/helpers.py"],
    });
  });
});

describe("script specifiers", () => {
  it("finds ES module imports and exports, dynamic imports, require and the runners' own", () => {
    const text = [
      'import { test } from "node:test";',
      "import {",
      "  near,",
      "} from '../support/near.js';",
      'import "./setup.js";',
      'export * from "../lib/all.mjs";',
      'const { median } = await import("../src/stats.js");',
      'const old = require(`./legacy`);',
      'const real = jest.requireActual("../src/real");',
    ].join("\n");
    expect(scriptSpecifiers(text).sort()).toEqual(["../lib/all.mjs", "../src/real", "../src/stats.js", "../support/near.js", "./legacy", "./setup.js", "node:test"]);
  });

  it("resolves a relative specifier to the base's file: as written, TypeScript's for .js, extensions and index files", () => {
    const paths = new Set(["support/near.js", "src/testing.ts", "src/legacy.cjs", "src/util/index.ts", "test/a.test.ts"]);
    expect(resolveScript("test/a.test.js", "../support/near.js", paths)).toEqual(["support/near.js"]);
    expect(resolveScript("test/a.test.ts", "../src/testing.js", paths)).toEqual(["src/testing.ts"]);
    expect(resolveScript("test/a.test.ts", "../src/legacy", paths)).toEqual(["src/legacy.cjs"]);
    expect(resolveScript("test/a.test.ts", "../src/util", paths)).toEqual(["src/util/index.ts"]);
    expect(resolveScript("test/a.test.ts", "../support/near.js?v=1", paths)).toEqual(["support/near.js"]);
    // Bare specifiers, paths that leave the tree, and files the base lacks resolve to nothing.
    expect(resolveScript("test/a.test.ts", "near", paths)).toEqual([]);
    expect(resolveScript("test/a.test.ts", "../../outside.js", paths)).toEqual([]);
    expect(resolveScript("test/a.test.ts", "./missing.js", paths)).toEqual([]);
  });

  it("reads Python and scripts only", () => {
    expect(["t.py", "t.test.mjs", "t.spec.tsx", "conftest.py", "package.json", "t.go"].filter(readsImports)).toEqual(["t.py", "t.test.mjs", "t.spec.tsx", "conftest.py"]);
    expect(importsOf("package.json", '{"main": "./index.js"}', new Set(["index.js"]))).toEqual({ names: [], paths: [] });
  });
});
