import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareGo, goModVersions, localGoVersion, neededToolchain } from "../../src/runners/go-toolchain.js";
import { tempDir } from "../helpers/git-repo.js";

// Which Go toolchain a module needs when the machine's go is older than its go line (issue 22).
describe("the Go toolchain a module needs", () => {
  it("orders versions as Go does: a language version, then its betas and rcs, then its releases", () => {
    const sorted = ["1.26.8", "1.27", "1.27beta1", "1.27rc2", "1.27.0", "1.27.3", "1.28"];
    for (let i = 1; i < sorted.length; i++) expect(compareGo(sorted[i - 1]!, sorted[i]!), `${sorted[i - 1]} < ${sorted[i]}`).toBeLessThan(0);
    expect(compareGo("1.27.3", "1.27.3")).toBe(0);
    expect(compareGo("1.27.x", "1.27")).toBeNull();
  });

  it("reads go.mod's go and toolchain lines", () => {
    expect(goModVersions("module m\n\ngo 1.27 // the floor\n\ntoolchain go1.27.3\n")).toEqual({ go: "1.27", toolchain: "1.27.3" });
    expect(goModVersions("module m\ntoolchain default\n")).toEqual({ go: null, toolchain: null });
  });

  it("names the toolchain Go would pick when the machine's go is older than the go line, and none otherwise", () => {
    expect(neededToolchain("go 1.27\ntoolchain go1.27.3\n", "go1.26.8")).toBe("go1.27.3");
    // A language version means its first release; a release means itself.
    expect(neededToolchain("go 1.27\n", "go1.26.8")).toBe("go1.27.0");
    expect(neededToolchain("go 1.27.1\n", "go1.26.8")).toBe("go1.27.1");
    expect(neededToolchain("go 1.27rc1\n", "go1.26.8")).toBe("go1.27rc1");
    // A toolchain line older than the go line is not a choice.
    expect(neededToolchain("go 1.27.2\ntoolchain go1.27.1\n", "go1.26.8")).toBe("go1.27.2");
    // The machine's go builds it: a toolchain line alone is a preference, nothing is fetched.
    expect(neededToolchain("go 1.22\ntoolchain go1.27.3\n", "go1.26.8")).toBeNull();
    expect(neededToolchain("go 1.26\n", "go1.26.8")).toBeNull();
    expect(neededToolchain("module m\n", "go1.26.8")).toBeNull();
  });

  it("reads the machine's go version from its GOROOT", () => {
    const root = tempDir();
    mkdirSync(join(root, "bin"));
    expect(localGoVersion(join(root, "bin"))).toBeNull();
    writeFileSync(join(root, "VERSION"), "go1.26.8\ntime 2026-08-28T16:20:06Z\n");
    expect(localGoVersion(join(root, "bin"))).toBe("go1.26.8");
  });
});
