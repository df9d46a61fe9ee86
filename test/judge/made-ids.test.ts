import { describe, expect, it } from "vitest";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { freshFixture } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";

// Found on marshmallow-code/marshmallow (issue 22): a case parametrized with the clock is named anew
// by every run, so a warm judgment (a base run from minutes before) said the honest head's copies
// "vanished on head". fixtures/repos/python-clock-ids.sh names its tests by the clock (microseconds,
// so every run differs), an object's address and uuids. The gate runs the base's affected file again:
// where the same tree names a key's tests otherwise, the run made the ids up, and they are matched by
// their normalised form as counts. Where the base names them the same (retime-ids), nothing is.

const regression = (j: Judgment) => j.verdict.claims.find((c) => c.name === "tests.regression");
const messages = (j: Judgment, kind: string): string[] => regression(j)?.details.filter((d) => d.kind === kind).map((d) => d.message) ?? [];

describe("test ids the run makes up (the clock, an address, a uuid)", () => {
  it("match an honest head warm, saying so; a head that drops or breaks such a case, or names fixed cases by the clock, still fails", async () => {
    const source = await freshFixture("python-clock-ids");
    const dataDir = tempDir();
    const judgeHead = (head: string): Promise<Judgment> => judge({ source, base: "main", head, task: null, dataDir });
    await judgeHead("honest"); // fills the base cache: the judgments below are warm
    const honest = await judgeHead("honest");
    expect(honest.timings["base-cached"]).toBe(0);
    expect(regression(honest)?.status).toBe("pass");
    expect(regression(honest)?.reason).toBe("all 9 tests that passed on base pass on head (9 tests ran on head); 5 tests whose ids the run makes up were matched by a normalised id (details)");
    const made = messages(honest, "made-id");
    expect(made).toHaveLength(4);
    expect(made).toContainEqual(expect.stringMatching(/^tests\/test_calc\.py::test_parse\[#:#:#\.# #-#-#\]: ids the run makes up \(two runs of the base named them differently\), matched by this normalised form and compared as counts \(base: 2 of 2 copies passed; head: 2 of 2 copies passed; base tests\/test_calc\.py::test_parse\[\d/));
    expect(made).toContainEqual(expect.stringContaining("tests/test_calc.py::test_thing[<object object at <address>>]"));
    expect(made.join("\n")).toContain("test_token[<hex>]");
    expect(made.join("\n")).toContain("test_token[<uuid>]");

    // The attacks: a clock case deleted, a clock case failing, fixed cases renamed by the clock.
    const dropped = await judgeHead("drop-stamp");
    expect(regression(dropped)?.status).toBe("fail");
    expect(regression(dropped)?.reason).toMatch(/^tests vanished on head: tests\/test_calc\.py::test_parse\[\d\d:\d\d:\d\d\.\d+ \d{4}-\d\d-\d\d\], tests\/test_calc\.py::test_parse\[/);
    expect(messages(dropped, "vanished")).toEqual([expect.stringContaining("test_parse[#:#:#.# #-#-#]: fewer tests of ids the run makes up on head (base: 2 of 2 copies passed; head: 1 of 1 copies passed;")]);

    const broken = await judgeHead("break-stamp");
    expect(regression(broken)?.status).toBe("fail");
    expect(regression(broken)?.reason).toMatch(/^tests that passed on base do not pass on head: tests\/test_calc\.py::test_parse\[\d/);
    expect(messages(broken, "regressed")).toEqual([expect.stringContaining("test_parse[#:#:#.# #-#-#]: 2 tests of ids the run makes up went from pass to not-pass (base: 2 of 2 copies passed; head: 0 of 2 copies passed;")]);

    const retimed = await judgeHead("retime-ids");
    expect(regression(retimed)?.status).toBe("fail");
    expect(regression(retimed)?.reason).toBe("tests vanished on head: tests/test_calc.py::test_label[case1], tests/test_calc.py::test_label[case2]");
    expect(messages(retimed, "made-id-unproven")).toEqual([
      "tests/test_calc.py::test_label[case1], tests/test_calc.py::test_label[case2]: a second run of the base gave the same ids, so the change, not the run, made the head's ids differ",
    ]);
  }, 600_000);

  it("are matched where the runner cannot select files: the base's second run is the whole suite, with what the setup made", async () => {
    // setup-main: calc imports a module tests.setup generates, and the suite runs through
    // `sh tests/run.sh`, which no runner module narrows to files. Warm, the base's run comes from the
    // cache and its tree never ran the setup: the second run sees the setup's writes through the
    // prepared dependencies' layer (without them calc cannot be imported, the second run names
    // nothing, and the honest head's clock cases "vanished").
    const source = await freshFixture("python-clock-ids");
    const dataDir = tempDir();
    const judgeHead = (): Promise<Judgment> => judge({ source, base: "setup-main", head: "setup-honest", task: null, dataDir });
    await judgeHead();
    const honest = await judgeHead();
    expect(honest.timings["base-cached"]).toBe(0);
    expect(regression(honest)?.status).toBe("pass");
    expect(regression(honest)?.reason).toBe("all 9 tests that passed on base pass on head (9 tests ran on head); 5 tests whose ids the run makes up were matched by a normalised id (details)");
    expect(messages(honest, "made-id")).toHaveLength(4);
  }, 600_000);

  it("are matched cold and warm where tests.stable is not required: the base's second run is made for tests.regression alone", async () => {
    // Before, the second run came with tests.stable's repeats only: without them the honest head's
    // clock cases "vanished" cold and warm, a FAIL of an honest PR.
    const source = await freshFixture("python-clock-ids");
    const dataDir = tempDir();
    const judgeHead = (): Promise<Judgment> => judge({ source, base: "plain-main", head: "plain-honest", task: null, dataDir });
    for (const temperature of ["cold", "warm"]) {
      const honest = await judgeHead();
      expect(honest.timings["base-cached"], temperature).toBe(temperature === "warm" ? 0 : undefined);
      expect(regression(honest)?.status, temperature).toBe("pass");
      expect(regression(honest)?.reason, temperature).toBe("all 9 tests that passed on base pass on head (9 tests ran on head); 5 tests whose ids the run makes up were matched by a normalised id (details)");
      expect(honest.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => c.name), temperature).toEqual([]);
    }
  }, 600_000);
});
