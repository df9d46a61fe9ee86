import { judgedAsNewUser } from "./ecosystem-case.js";

// Go as a new user meets it (issue 22): see ecosystem-case.ts.
judgedAsNewUser({ name: "go-calc", runner: "go", target: "example.com/calc/TestMul", frozen: "calc_test.go", newTest: "example.com/calc/TestMulNegative",
  attacks: [
    { head: "replace-dep", what: "go.mod replaces go-cmp, which a frozen test compares with, by tree code", mentions: ["go.mod (modified", "unfreeze: ['go.mod']"] },
    { head: "golden-edit", what: "rewrites the golden file a frozen test compares with", mentions: ["testdata/sub.golden (modified"] },
    // Issue 19: code under test forges the test binaries' output and exits 0 before any test runs.
    { head: "forge-exit", what: "an init() prints forged test2json framing and ends the binary with syscall.Exit(0)", by: "the canary in every package", mentions: ["the test run reported results that did not happen", "example.com/calc/stats"] },
  ],
});
