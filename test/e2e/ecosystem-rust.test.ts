import { judgedAsNewUser } from "./ecosystem-case.js";

// Rust as a new user meets it (issue 22): see ecosystem-case.ts. The same crate twice: with cargo
// test, and with a .config/nextest.toml, which cargo-nextest runs (.ci/run installs it), same ids.
judgedAsNewUser({
  name: "rust-calc", runner: "cargo", target: "calc::calc::muls", frozen: "tests/calc.rs", newTest: "calc::mul_more::muls_negative",
  attacks: [{ head: "cargo-runner", what: "a .cargo/config.toml runner reports the target passed", mentions: [".cargo/config.toml (added"] }],
});
judgedAsNewUser({ name: "nextest-calc", runner: "nextest", target: "calc::calc::muls", frozen: "tests/calc.rs", newTest: "calc::mul_more::muls_negative" });
