import { describe, expect, it } from "vitest";
import { progress, sizeTimeout } from "../../src/policy/init-timeout.js";

// What init writes as tests.timeout from its try (the CLI end to end: test/e2e/init-timeout.test.ts).
const TRY = { timeout: 600, commandMs: 30_000, setupMs: 20_000, timedOut: false, outputTail: "", load: 20 };

describe("sizeTimeout", () => {
  it("says nothing when the try used a third of its budget or less", () => {
    expect(sizeTimeout(TRY)).toBeNull();
    expect(sizeTimeout({ ...TRY, commandMs: 200_000 })).toBeNull();
  });

  it("writes three times a tight try, rounded up to a minute; the setup counts as well", () => {
    expect(sizeTimeout({ ...TRY, commandMs: 250_000 })?.seconds).toBe(780);
    expect(sizeTimeout({ ...TRY, setupMs: 300_000 })?.why).toContain("the try's setup took 300.0 s at load 20");
  });

  it("a try that timed out: packaging's 24 % in 600 s is about 2,500 s, so 7,500 is written", () => {
    const sized = sizeTimeout({ ...TRY, commandMs: 600_000, timedOut: true, outputTail: "tests/test_a.py ....   [ 23%]\ntests/test_b.py ..   [ 24%]\ntests/test_c.py ." });
    expect(sized?.seconds).toBe(7500);
    expect(sized?.problem?.problem).toBe("the try's test run timed out after 600.0 s at load 20, 24 % through (the runner's progress)");
  });

  it("without progress the budget is not guessed: the fix names one to set", () => {
    const sized = sizeTimeout({ ...TRY, commandMs: 600_000, timedOut: true, outputTail: "no progress here" });
    expect(sized?.seconds).toBe(600);
    expect(sized?.problem?.fix).toMatch(/^set `timeout: 2400` under tests: in \.github\/ranex\.yml/);
  });

  it("never writes more than the schema allows, and then says to run fewer tests", () => {
    const sized = sizeTimeout({ ...TRY, commandMs: 600_000, timedOut: true, outputTail: "[  2%]" });
    expect(sized?.seconds).toBe(21_600);
    expect(sized?.problem?.fix).toMatch(/^run fewer tests/);
  });

  it("reads the last [ NN%] only", () => {
    expect(progress("x [  8%]\ny [ 16%]\nz")).toBe(16);
    expect(progress("nothing")).toBeNull();
  });
});
