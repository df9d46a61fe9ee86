import { describe, expect, it } from "vitest";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { initPolicyRepo } from "../helpers/init-policy-repo.js";
import { tempDir, TestRepo } from "../helpers/git-repo.js";

// The PR's own runs (head+new, base+new) select its new test classes with Maven Surefire (-Dtest) and
// Gradle (--tests), issue 22: maven-calc and gradle-calc with `ranex init`'s policy, real builds in the
// real sandbox. An honest change is a CANDIDATE whose own runs hold only its new class's tests; a new
// test that already passes on the base FAILs tests.red_green; a new class whose package clause is not
// its path is not the class the selection names, so the selected run does not prove it ran it and the
// whole suite runs, saying why. Each Maven run costs seconds of CPU and a Gradle start 15-20 s: three
// judgments each (about 200 s of CI's two cores for Maven's), so Maven's run with RANEX_E2E_JVM_SELECT=1
// and Gradle's with RANEX_E2E_GRADLE=1 (as test/e2e/ecosystem-gradle.test.ts); the selection commands
// themselves are checked in test/runners/select-files.test.ts and maven.test.ts on every run.

const redGreen = (j: Judgment) => j.verdict.claims.find((c) => c.name === "tests.red_green");
const report = (j: Judgment, name: string): string =>
  j.verdict.claims.flatMap((c) => c.runs ?? []).find((r) => r.run === name)?.report ?? "(no such run)";
const why = (j: Judgment): string => j.verdict.reasons.join("; ");

const DIR = "src/test/java/com/example/calc";

/** A JUnit test class of gradle-calc's (JUnit 4) or maven-calc's (JUnit 5) kind. */
function testClass(junit4: boolean, pkg: string, name: string, method: string, assertion: string): string {
  const vis = junit4 ? "public " : "";
  const api = junit4 ? "org.junit" : "org.junit.jupiter.api";
  return `package ${pkg};\n\nimport static ${api}.${junit4 ? "Assert" : "Assertions"}.assertEquals;\n\nimport com.example.calc.Calc;\nimport ${api}.Test;\n\n`
    + `${vis}class ${name} {\n  @Test\n  ${vis}void ${method}() {\n    ${assertion};\n  }\n}\n`;
}

describe.each([
  { name: "maven-calc", how: "mvn -Dtest, by class", junit4: false, run: process.env.RANEX_E2E_JVM_SELECT === "1" },
  { name: "gradle-calc", how: "gradle test --tests, by class", junit4: true, run: process.env.RANEX_E2E_GRADLE === "1" },
])("$name: the PR's own runs select its new test classes", ({ name, how, junit4, run }) => {
  it.runIf(run)("an honest change is a CANDIDATE with only its new class run; a new test green on base FAILs; a class the selection cannot name runs the whole suite", async () => {
    const repo = new TestRepo(await initPolicyRepo(name, ["honest"]));
    repo.branch("green-on-base");
    repo.commit({ [`${DIR}/AddMoreTest.java`]: testClass(junit4, "com.example.calc", "AddMoreTest", "addsMore", "assertEquals(4, Calc.add(2, 2))") }, "a test that needs no change");
    // A class in package com.example.calc.more whose source sits in com/example/calc: javac takes it,
    // the selection names com.example.calc.MulMoreTest, which is no class.
    repo.branch("odd-package", "honest");
    repo.commit({ [`${DIR}/MulMoreTest.java`]: testClass(junit4, "com.example.calc.more", "MulMoreTest", "mulsZero", "assertEquals(0, Calc.mul(0, 7))") }, "a test in another package");
    repo.checkout("main");
    const dataDir = tempDir("ranex-data-");
    const judged = (head: string, task: string | null): Promise<Judgment> => judge({ source: repo.dir, base: "main", head, task, dataDir });

    const honest = await judged("honest", "mul");
    expect(honest.verdict.verdict, why(honest)).toBe("CANDIDATE");
    expect(report(honest, "head+new")).toBe(`1 test case; selected for the PR's new test files: ${DIR}/MulTest.java`);
    expect(report(honest, "base+new")).toBe(`1 test case; selected for the PR's new test files: ${DIR}/MulTest.java`);
    expect(report(honest, "head")).toBe("3 test cases");

    const green = await judged("green-on-base", null);
    expect(green.verdict.verdict).toBe("FAIL");
    expect(redGreen(green)?.reason).toBe("targets that do not fail on base: com.example.calc.AddMoreTest#addsMore");
    expect(report(green, "base+new")).toBe(`1 test case; selected for the PR's new test files: ${DIR}/AddMoreTest.java`);

    const odd = await judged("odd-package", "mul");
    expect(report(odd, "head+new"), why(odd)).toBe(`5 test cases; the whole suite ran: selecting the PR's new test files did not take effect (the run of the selection (${how}) reported nothing of ${DIR}/MulMoreTest.java)`);
  }, 1_500_000);
});
