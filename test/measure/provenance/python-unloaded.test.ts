import { describe, expect, it } from "vitest";
import type { SuiteRun } from "../../../src/measure/report-types.js";
import { recordedPytest as recorded } from "./recorded-pytest.js";

// A module under a name of the standard library that the import system never loaded, put into
// sys.modules by hand while the tests run (src/measure/provenance/python-between-tests.ts,
// unloaded_scan): no copy of it was kept, so only the look after each test's call sees it, and a
// later test takes it out again before the exit walk could. The look is cut short when every name
// is one it knows (issue 19's cost); these runs hold it to seeing the name all the same, after an
// honest name of the tree's own put there by hand (which the look then stops reading) and with the
// stranger living through exactly one test's end.
const unloaded = (run: SuiteRun) => (run.provenance?.record.events ?? []).filter((e) => e.event === "unloaded");

describe("a module put into sys.modules by hand under a standard library name", () => {
  it("is named after the test whose call left it there, though a later test takes it out", async () => {
    const tests = [
      "import sys", "import types", "", "# The tree's own module under another name, by hand: honest, and never named.",
      "sys.modules['calc_alias'] = sys.modules[__name__]", "", "",
      "def test_first():", "    assert 1 + 1 == 2", "", "",
      "def test_plant():", "    sys.modules['wave'] = types.ModuleType('wave')", "", "",
      "def test_take_out():", "    del sys.modules['wave']", "", "",
      "def test_last():", "    assert 'wave' not in sys.modules", "",
    ].join("\n");
    const run = await recorded({ "tests/test_calc.py": tests });
    expect(run.report?.cases.map((c) => c.result)).toEqual(["passed", "passed", "passed", "passed"]);
    expect(unloaded(run).map((e) => e.what)).toEqual(["sys.modules[wave] (module wave)"]);
  });

  it("is named when it comes while another name of the tree's goes, the count of names unchanged", async () => {
    const tests = [
      "import sys", "import types", "", "sys.modules['calc_alias'] = sys.modules[__name__]", "", "",
      "def test_first():", "    assert 1 + 1 == 2", "", "",
      "def test_swap():", "    del sys.modules['calc_alias']", "    sys.modules['wave'] = types.ModuleType('wave')", "", "",
      "def test_take_out():", "    del sys.modules['wave']", "",
    ].join("\n");
    const run = await recorded({ "tests/test_calc.py": tests });
    expect(run.report?.cases.map((c) => c.result)).toEqual(["passed", "passed", "passed"]);
    expect(unloaded(run).map((e) => e.what)).toEqual(["sys.modules[wave] (module wave)"]);
  });
});
