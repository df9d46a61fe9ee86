import { describe, expect, it } from "vitest";
import { frozenClaim, isFrozen, safetyClaim, scopeClaim } from "../../../src/measure/diff/index.js";
import { DEFAULT_ASSETS } from "../../../src/policy/schema.js";
import { added, context, lines, modified, policy, symlink, task } from "./builders.js";

// Issue 19: what changes how code is loaded is judged by its nature, not by a list of attacks seen.

describe("loader files are harness by nature (diff.frozen)", () => {
  it("freezes installed-package metadata, bytecode, install configuration and dependency manifests at any depth", () => {
    const ctx = context([]);
    const loaders = [
      "src/evil-1.0.dist-info/entry_points.txt", "src/evil-1.0.dist-info/METADATA", "lib/pkg.egg-info/top_level.txt", "src/pkg.egg-link",
      "src/shapes/__pycache__/stats.cpython-311.pyc", "__pycache__/x.pyc", "src/fast.pyc", "src/old.pyo",
      ".npmrc", "web/.npmrc", ".yarnrc", ".yarnrc.yml", ".yarnrc.json", ".pnpmfile.cjs", ".pnp.cjs", "node_modules/left-pad/index.js",
      "requirements.txt", "requirements-dev.txt", "ci/requirements_test.txt", "requirements.in", "constraints.txt", "constraints-py311.txt", "Pipfile",
    ];
    expect(loaders.filter((p) => !isFrozen(p, ctx))).toEqual([]);
    // Code and docs that merely look alike stay free.
    expect(["src/requirements.py", "docs/requirements.md", "src/pycache.py", "src/dist_info.py", "src/shapes/stats.py"].filter((p) => isFrozen(p, ctx))).toEqual([]);
  });

  it("fails a PR adding a dist-info with a pytest11 entry point, as unsafe tampering with the harness", () => {
    const evidence = frozenClaim(context([added("src/shapes_ext-1.0.dist-info/entry_points.txt"), modified("src/calc.py")]));
    expect(evidence.outcome).toBe("fail");
    expect(evidence.details).toEqual([{ path: "src/shapes_ext-1.0.dist-info/entry_points.txt", kind: "added", message: "src/shapes_ext-1.0.dist-info/entry_points.txt: added" }]);
  });

  it("releases a dependency manifest by exact path with unfreeze, as it does package.json", () => {
    const released = policy({ unfreeze: ["requirements.txt", "package.json"] });
    const ctx = context([modified("requirements.txt"), modified("package.json")], { policy: released, basePaths: ["requirements.txt", "package.json"] });
    expect(frozenClaim(ctx).outcome).toBe("pass");
    expect(isFrozen("ci/requirements.txt", ctx)).toBe(true);
  });
});

describe("binary files under code paths (diff.safety)", () => {
  const binary = (path: string) => ({ ...added(path, 64), binary: true });

  it("fails a binary file among the code, and spares images, fonts and docs by the default assets", () => {
    const findings = safetyClaim(context([binary("src/_speedups.bin"), binary("src/lib.so"), binary("docs/manual.pdf"), binary("src/ui/logo.PNG"), binary("static/fonts/a.woff2")])).details;
    expect(findings.map((d) => [d.path, d.kind])).toEqual([["src/_speedups.bin", "binary"], ["src/lib.so", "binary"]]);
    expect(findings[0]?.message).toBe("src/_speedups.bin: binary file outside the policy's assets (docs, images, fonts): nobody can review what it does; allow it by a glob in `assets` if it is one");
  });

  it("spares test data under the test globs, but not loadable code there", () => {
    const findings = safetyClaim(context([binary("tests/data/sample.zip"), binary("tests/fixtures/scan.tiff"), binary("tests/_helper.so")])).details;
    expect(findings.map((d) => [d.path, d.kind])).toEqual([["tests/_helper.so", "binary"]]);
  });

  it("allows what the policy's assets name, and leaves a frozen binary (a .pyc) to diff.frozen", () => {
    const ctx = context([binary("src/model.onnx"), binary("src/__pycache__/x.cpython-311.pyc")], { policy: policy({ assets: [...DEFAULT_ASSETS, "src/*.onnx"] }) });
    expect(safetyClaim(ctx).outcome).toBe("pass");
    expect(frozenClaim(ctx).details.map((d) => d.path)).toEqual(["src/__pycache__/x.cpython-311.pyc"]);
  });
});

describe("symlinks resolved against the tree, link by link", () => {
  // `up` is src/shapes; as text the chain reads as a folder beside it.
  const links = new Map([
    ["src/shapes/vendor/deep/up", "../.."],
    ["src/shapes/vendor/deep/frz", "up/../../tests/test_calc.py"],
    ["src/shapes/vendor/deep/out", "up/../../../.."],
  ]);
  const facts = [...links].map(([path, target]) => symlink(path, target));

  it("fails a link that reaches a frozen file through another link (diff.frozen)", () => {
    const evidence = frozenClaim(context(facts, { headLinks: links }));
    expect(evidence.details).toContainEqual({
      path: "src/shapes/vendor/deep/frz", kind: "symlink",
      message: "src/shapes/vendor/deep/frz: symlink into frozen set -> tests/test_calc.py (through src/shapes/vendor/deep/up)",
    });
  });

  it("fails a link that leaves the tree through another link (diff.safety)", () => {
    const messages = safetyClaim(context(facts, { headLinks: links })).details.map((d) => d.message);
    expect(messages).toContain("src/shapes/vendor/deep/out: symlink leaves the repository -> up/../../../.. (resolves to ../..) (through src/shapes/vendor/deep/up)");
  });

  it("follows a link the base already had, and a link to a link", () => {
    const tree = new Map([["lnk", "tests"], ["src/a", "../lnk/test_calc.py"], ["src/b", "a"]]);
    const evidence = frozenClaim(context([symlink("src/a", "../lnk/test_calc.py"), symlink("src/b", "a")], { headLinks: tree }));
    expect(evidence.details.map((d) => d.message)).toEqual([
      "src/a: symlink into frozen set -> tests/test_calc.py (through lnk)",
      "src/b: symlink into frozen set -> tests/test_calc.py (through src/a, lnk)",
    ]);
  });

  it("reports a loop of links, and keeps honest links inside the tree", () => {
    const loop = new Map([["src/a", "b"], ["src/b", "a"]]);
    expect(safetyClaim(context([symlink("src/a", "b")], { headLinks: loop })).details.map((d) => d.message))
      .toEqual(["src/a: symlink that never resolves (a loop of links) (through src/b)"]);
    const honest = new Map([["src/shapes/current", "v2"], ["src/shapes/docs", "../../docs"]]);
    const ctx = context([symlink("src/shapes/current", "v2"), symlink("src/shapes/docs", "../../docs")], { headLinks: honest });
    expect(safetyClaim(ctx).outcome).toBe("pass");
    expect(frozenClaim(ctx).outcome).toBe("pass");
  });
});

describe("a new file the test globs match that defines no test is code", () => {
  const vectors = ["src/pkg/test_vectors.py"];
  const sysModules = lines("src/pkg/test_vectors.py", "sys.modules.setdefault('x', sys.modules[__name__])");

  it("is judged by scope, and by the code scan, not the test scan", () => {
    const scoped = policy({ scope: { allow: ["src/calc.py"] } });
    const asTest = context([added(vectors[0]!)], { policy: scoped, added: [sysModules] });
    expect(scopeClaim(asTest).outcome).toBe("pass");
    expect(safetyClaim(asTest).outcome).toBe("pass");
    const asCode = { ...asTest, testless: new Set(vectors) };
    expect(scopeClaim(asCode).details.map((d) => d.message)).toEqual(["src/pkg/test_vectors.py: outside scope.allow"]);
    expect(safetyClaim(asCode).details.map((d) => d.message)).toEqual([expect.stringContaining("src/pkg/test_vectors.py:1: references sys.modules")]);
    expect(frozenClaim({ ...asCode, policy: policy({ tests: { command: "pytest", allow_new: false } }) }).outcome).toBe("pass");
    expect(task().id).toBe("calc-1");
  });
});

describe("a coding cookie that can hide code", () => {
  it("is a harness finding for utf-7 and the like, not for utf-8 or latin-1", () => {
    const scan = (text: string) => safetyClaim(context([modified("src/calc.py")], { added: [lines("src/calc.py", text)] })).details.map((d) => d.kind);
    expect(scan("# -*- coding: utf-7 -*-")).toEqual(["harness-reference"]);
    expect(scan("# vim: set fileencoding=rot13 :")).toEqual(["harness-reference"]);
    expect(scan("# -*- coding: utf-8 -*-")).toEqual([]);
    expect(scan("# coding=latin-1")).toEqual([]);
    expect(scan("# coding: utf-8-sig")).toEqual([]);
  });
});
