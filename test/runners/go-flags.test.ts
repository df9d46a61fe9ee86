import { describe, expect, it } from "vitest";
import { GO_SETUP_COMMAND, GO_TEST_COMMAND } from "../../src/runners/go.js";
import { goBuildFlags, shellWords } from "../../src/runners/go-flags.js";

// Which standard-library layer a policy's Go commands need (issue 22): read from the commands as
// the shell splits them.
describe("the build flags of a policy's go commands", () => {
  it("init's commands need the default layer only", () => {
    expect(goBuildFlags([GO_SETUP_COMMAND, GO_TEST_COMMAND])).toEqual([{ args: [], env: [], unsupported: [] }]);
    // A toolchain fetched for a newer go line (src/runners/go-toolchain.ts) is named: the gate's layer is the machine's go's.
    const newer = (c: string): string => c.replace("GOTOOLCHAIN=local", "GOTOOLCHAIN=go1.27.3");
    expect(goBuildFlags([newer(GO_SETUP_COMMAND), newer(GO_TEST_COMMAND)])).toEqual([{ args: [], env: [], unsupported: ["GOTOOLCHAIN=go1.27.3"] }]);
  });

  it("-race, CGO_ENABLED=0 and tags get layers of their own; -cover, -run and -json share the default", () => {
    expect(goBuildFlags([GO_SETUP_COMMAND, GO_TEST_COMMAND.replace("go test", "CGO_ENABLED=0 go test -race -tags 'netgo,osusergo' -cover -run '^(A|B)$'")])).toEqual([
      { args: [], env: [], unsupported: [] },
      { args: ["-race", "-tags=netgo,osusergo"], env: ["CGO_ENABLED=0"], unsupported: [] },
    ]);
    expect(goBuildFlags(["go test -cover -covermode=atomic -coverpkg=./... -json ./..."])).toEqual([{ args: [], env: [], unsupported: [] }]);
  });

  it("an export earlier in the command counts, and GOFLAGS' contents are flags", () => {
    expect(goBuildFlags(["export CGO_ENABLED=0 GOFLAGS='-mod=readonly -race'; go mod download && go test ./..."])).toEqual([
      { args: ["-race"], env: ["CGO_ENABLED=0"], unsupported: [] },
    ]);
  });

  it("flags that change the standard library's build but that the gate does not reproduce are named", () => {
    expect(goBuildFlags(["go test -gcflags=all=-N -coverpkg=all ./... -args -race"])).toEqual([
      { args: [], env: [], unsupported: ["-coverpkg=all", "-gcflags=all=-N"] },
    ]);
    expect(goBuildFlags(["GOARCH=386 go test ./..."])[0]?.unsupported).toEqual(["GOARCH=386"]);
  });

  it("a command without go test needs no layer", () => {
    expect(goBuildFlags(["pytest -q", undefined])).toEqual([]);
  });

  it("splits words as the shell does", () => {
    expect(shellWords(`a 'b c' "d \\"e\\"" f;g&&h || { i; }`)).toEqual(["a", "b c", 'd "e"', "f", ";", "g", "&&", "h", "||", "{", "i", ";", "}"]);
  });
});
