import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { canaryTail, endHook, endToken, mayHook } from "../../src/runners/cargo-end-mark.js";
import { tempDir } from "../helpers/git-repo.js";

// The end hook of nextest's test processes (issue 19): its Rust by edition, when a crate gets one, and
// how the reader finds the run's token (a real run: test/runners/nextest.test.ts).
function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

describe("the end hook", () => {
  it("is written for the crate's edition, with a fresh token each time", () => {
    const old = endHook(false);
    const now = endHook(true);
    expect(old.text).toContain('\nextern "C" {');
    expect(old.text).toContain('#[link_section = ".init_array"]');
    expect(now.text).toContain('unsafe extern "C" {');
    expect(now.text).toContain('#[unsafe(link_section = ".init_array")]');
    expect(old.token).toMatch(/^[0-9a-f]{32}$/);
    expect(old.token).not.toBe(now.token);
  });

  it("is left out of crates that name the unsafe_code lint", () => {
    expect(mayHook(["pub fn a() {}", null, '[package]\nname = "a"\n'])).toBe(true);
    expect(mayHook(["#![forbid(unsafe_code)]\npub fn a() {}"])).toBe(false);
    expect(mayHook(['[workspace.lints.rust]\nunsafe_code = "forbid"\n'])).toBe(false);
    expect(mayHook(['[build]\nrustflags = ["-F", "unsafe-code"]\n'])).toBe(false);
  });

  it("its token is read through the gate's line at the crate root's end, and only there", () => {
    const tree = tempDir("ranex-end-mark-");
    const { text, token } = endHook(false);
    write(tree, { "tests/calc.rs": `#[test]\nfn muls() {}\n${canaryTail("../src/weights_table.rs", "weights_table")}`, "src/weights_table.rs": `#[test]\nfn t() {}\n${text}` });
    expect(endToken(tree, "tests/calc.rs")).toBe(token);
    // The gate's line not last (a run without the canary, whatever the tree says earlier): no token asked for.
    write(tree, { "tests/other.rs": `${canaryTail("../src/weights_table.rs", "weights_table")}\n#[test]\nfn more() {}\n` });
    expect(endToken(tree, "tests/other.rs")).toBeNull();
    expect(endToken(tree, "tests/missing.rs")).toBeNull();
  });
});
