import { describe } from "vitest";
import { judgedAsNewUser } from "./ecosystem-case.js";

// Gradle as a new user meets it (issue 22): see ecosystem-case.ts. Debian's gradle (4.4.1, which
// works with Java 17), JUnit 4 from Maven Central. Each Gradle start costs 15-20 s of CPU, so its
// three judgments alone would take several minutes of CI's two cores: it runs when RANEX_E2E_GRADLE=1
// (and gradle is installed), and is reported skipped otherwise. Gradle's reader, selection and
// canary run in test/runners/gradle.test.ts on XML a real Gradle wrote.
describe.runIf(process.env.RANEX_E2E_GRADLE === "1")("gradle (RANEX_E2E_GRADLE=1)", () => {
  judgedAsNewUser({ name: "gradle-calc", runner: "gradle", target: "com.example.calc.CalcTest#muls", frozen: "src/test/java/com/example/calc/CalcTest.java", newTest: "com.example.calc.MulTest#mulsNegative" });
});
