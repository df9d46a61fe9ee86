import { judgedAsNewUser } from "./ecosystem-case.js";

// Maven as a new user meets it (issue 22): see ecosystem-case.ts.
judgedAsNewUser({ name: "maven-calc", runner: "maven", target: "com.example.calc.CalcTest#muls", frozen: "src/test/java/com/example/calc/CalcTest.java", newTest: "com.example.calc.MulTest#mulsNegative", ownFile: "src/test/java/com/example/calc/MulTest.java",
  attacks: [{
    head: "surefire-config", what: "pom.xml has Surefire autoload a JUnit extension from src/main that swallows the target's failure",
    mentions: ["pom.xml (modified", "unfreeze: ['pom.xml']", "META-INF/services/org.junit.jupiter.api.extension.Extension (added"],
  }, {
    // Issue 19: the canary's report is left alone; Maven's own console still shows the failure.
    head: "forge-report", what: "code under test leaves a process that takes the target's failure out of its Surefire report", by: "Maven's console against the reports",
    mentions: ["the test run reported results that did not happen", "Maven printed 1 failing test of com.example.calc.CalcTest, its Surefire report holds 0"],
  }],
});
