import { judgedAsNewUser } from "./ecosystem-case.js";

// Go as a new user meets it (issue 22): see ecosystem-case.ts.
judgedAsNewUser({ name: "go-calc", runner: "go", target: "example.com/calc/TestMul", frozen: "calc_test.go", newTest: "example.com/calc/TestMulNegative" });
