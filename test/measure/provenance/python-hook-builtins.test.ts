import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { pythonHookSource } from "../../../src/measure/provenance/python-hook.js";

// The Python record's functions call built-ins (`all`, `map`, `type`, ...) in every comparison. Found
// through the builtins module, code under test could rewrite them for the length of a test's call
// (an `all` that says True blinds the per-test check) and put them back before the exit walk. So the
// record binds each one in its own closure when it starts; this test keeps that list complete: no
// function of the generated source may load a built-in as a global.
describe("the Python record's built-ins", () => {
  it("are all bound in the record's closure, none looked up through builtins when a check runs", () => {
    const analysis = [
      "import builtins, dis, sys, types",
      "co = compile(sys.stdin.read(), 'hook', 'exec')",
      "def walk(c):",
      "    yield c",
      "    for k in c.co_consts:",
      "        if isinstance(k, types.CodeType):",
      "            yield from walk(k)",
      "outer = [k for k in co.co_consts if isinstance(k, types.CodeType)]",
      "seen = sorted({i.argval for c in outer for d in walk(c) for i in dis.get_instructions(d) if i.opname == 'LOAD_GLOBAL' and hasattr(builtins, i.argval)})",
      "print(len(outer), ' '.join(seen))",
    ].join("\n");
    const out = spawnSync("/usr/bin/python3", ["-c", analysis], { input: pythonHookSource("/tmp/fifo", "/work"), encoding: "utf8" });
    expect(out.stderr).toBe("");
    expect(out.stdout.trim()).toBe("1");
  });

  it("the bound names are the built-ins themselves", () => {
    const out = spawnSync("/usr/bin/python3", ["-c", [
      "import builtins, sys",
      "src = sys.stdin.read()",
      "start = src.index('from builtins import')",
      "names = src[src.index('(', start) + 1:src.index(')', start)].replace('\\n', ' ').split(',')",
      "print(all(hasattr(builtins, n.strip()) for n in names), len(names))",
    ].join("\n")], { input: pythonHookSource("/tmp/fifo", "/work"), encoding: "utf8" });
    expect(out.stderr).toBe("");
    expect(out.stdout.trim()).toMatch(/^True \d+$/);
  });
});
