import { judgedAsNewUser } from "./ecosystem-case.js";

// Rust as a new user meets it (issue 22): see ecosystem-case.ts. The same crate twice: with cargo
// test, and with a .config/nextest.toml, which cargo-nextest runs (.ci/run installs it), same ids.
judgedAsNewUser({
  name: "rust-calc", runner: "cargo", target: "calc::calc::muls", frozen: "tests/calc.rs", newTest: "calc::mul_more::muls_negative",
  attacks: [
    { head: "cargo-runner", what: "a .cargo/config.toml runner reports the target passed", mentions: [".cargo/config.toml (added"] },
    // Issue 19: code under test writes libtest's line for the target and exits 0 from the test binary.
    // Its binary's canaries still run and fail, so cargo (the parent) sees a binary with failures exit 0:
    // the run is not believed (unsafe), as when a canary comes back wrong.
    { head: "forge-exit", what: "code under test prints a forged result line and exits 0 inside tests/calc.rs's binary", by: "cargo's own exit status of that binary", mentions: ["calc::calc::muls", "printed failed tests but exited 0"] },
  ],
});
judgedAsNewUser({
  name: "nextest-calc", runner: "nextest", target: "calc::calc::muls", frozen: "tests/calc.rs", newTest: "calc::mul_more::muls_negative",
  // Issue 19: under nextest every test is a process of its own: an exit 0 from inside the test is no pass.
  attacks: [
    { head: "forge-exit", what: "code under test exits 0 from inside the target", by: "libtest's own end of the test", mentions: ["calc::calc::muls", "without libtest's end of the test"] },
    // Issue 19: the same, after printing libtest's whole summary of one passed test: the canary's end token is missing.
    { head: "forge-summary", what: "code under test prints a complete libtest summary for the target, then exits 0", by: "the canary's end token", mentions: ["calc::calc::muls", "without libtest's end of the test"] },
  ],
});
