import { describe, expect } from "vitest";
import { judgedAsNewUser } from "./ecosystem-case.js";

// A Go module whose go.mod asks for a newer Go than the machine's (issue 22): see ecosystem-case.ts
// and fixtures/repos/go-newer.sh (`go 1.27`, `toolchain go1.27.3`; the machine has Go 1.26). Under
// GOTOOLCHAIN=local every run failed ("go.mod requires go >= 1.27"). init names the toolchain; the
// setup fetches it from the Go module proxy into the module cache it stores, and the offline runs
// start it from there: the frozen TestToolchain checks that the tests ran under go1.27.
// Each run downloads the toolchain (about 70 MB) from the proxy and builds its standard library: over
// three minutes of CI's two cores, so it runs when RANEX_E2E_GO_TOOLCHAIN=1 (as Gradle's, with
// RANEX_E2E_GRADLE=1); test/runners/go-toolchain.test.ts and test/cli/suite-summary.test.ts always run.
describe.runIf(process.env.RANEX_E2E_GO_TOOLCHAIN === "1")("go-newer (RANEX_E2E_GO_TOOLCHAIN=1)", () => judgedAsNewUser({
  name: "go-newer", runner: "go", target: "example.com/newer/TestMul", frozen: "calc_test.go", newTest: "example.com/newer/TestMulNegative",
  initSaw: ({ stdout, written }) => {
    expect(stdout).toMatch(/runner: go \(go\.mod; it asks for a newer Go than this machine's go1\.\d+\.\d+, so setup fetches go1\.27\.3 from the Go module proxy/);
    expect(written).toContain("GOTOOLCHAIN=go1.27.3");
    expect(written).not.toContain("GOTOOLCHAIN=local");
    // TestToolchain passed: only the owner's red target fails on HEAD (ecosystem-case.ts checks it).
    expect(stdout).toContain("tests found: 3 in 1 file(s)");
  },
}));
