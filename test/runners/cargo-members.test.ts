import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { workspaceMembers } from "../../src/runners/cargo-members.js";
import { testBinaries } from "../../src/runners/cargo-targets.js";
import { packageDirs } from "../../src/runners/cargo-report.js";
import { tempDir } from "../helpers/git-repo.js";

// A Cargo workspace's members at any depth, from its manifest (issue 22): a member three folders down
// gets its ids and its canary like one beside the root.
function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}
const pkg = (name: string, extra = ""): string => `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n${extra}`;

describe("workspace members", () => {
  it("takes member globs and plain paths at any depth, less exclude, and path dependencies inside the tree", () => {
    const tree = tempDir("ranex-cargo-members-");
    write(tree, {
      "Cargo.toml": `${pkg("root", '\n[dependencies]\nhelper = { path = "tools/a/b/helper" }\n')}\n[workspace]\nmembers = [\n  "crates/*",\n  # a comment\n  "libs/num/deep",\n  "far/**",\n]\nexclude = ["crates/old"]\n`,
      "crates/one/Cargo.toml": pkg("one", '\n[dev-dependencies]\nshared = { path = "../../shared/x/y" }\n'),
      "crates/old/Cargo.toml": pkg("old"),
      "libs/num/deep/Cargo.toml": pkg("deep"),
      "far/p/q/r/Cargo.toml": pkg("far-r"),
      "tools/a/b/helper/Cargo.toml": pkg("helper"),
      "shared/x/y/Cargo.toml": pkg("shared"),
      "libs/num/deep/src/lib.rs": "", "libs/num/deep/tests/t.rs": "", "crates/one/src/lib.rs": "",
    });
    // A symlinked member could lead anywhere: it is not followed.
    const elsewhere = tempDir("ranex-cargo-members-elsewhere-");
    write(elsewhere, { "Cargo.toml": pkg("linked") });
    symlinkSync(elsewhere, join(tree, "crates", "link"));
    expect(workspaceMembers(tree).sort()).toEqual(["crates/one", "far/p/q/r", "libs/num/deep", "shared/x/y", "tools/a/b/helper"]);
    expect([...packageDirs(tree)].filter(([name]) => name !== "old").sort()).toEqual([
      ["deep", "libs/num/deep"], ["far-r", "far/p/q/r"], ["helper", "tools/a/b/helper"], ["one", "crates/one"], ["root", ""], ["shared", "shared/x/y"],
    ]);
    // The canary goes into every test binary of the member three folders down.
    expect(testBinaries(tree).filter((b) => b.crate === "deep").map((b) => [b.root, b.target])).toEqual([["libs/num/deep/src/lib.rs", "lib"], ["libs/num/deep/tests/t.rs", "t"]]);
  });

  it("a package without [workspace] has no members: its path dependencies are not tested", () => {
    const tree = tempDir("ranex-cargo-members-none-");
    write(tree, { "Cargo.toml": pkg("solo", '\n[dependencies]\nhelper = { path = "vendor/a/helper" }\n'), "vendor/a/helper/Cargo.toml": pkg("helper") });
    expect(workspaceMembers(tree)).toEqual([]);
  });

  it("paths that leave the tree are not members", () => {
    const tree = tempDir("ranex-cargo-members-out-");
    write(tree, { "Cargo.toml": '[workspace]\nmembers = ["../x", "/etc", "a/../../y"]\n' });
    expect(workspaceMembers(tree)).toEqual([]);
  });
});
