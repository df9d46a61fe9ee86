import { describe, expect, it } from "vitest";
import { openRepository } from "../../src/workspace/index.js";
import { inlineTestFacts } from "../../src/judge/inline-test-facts.js";
import { PolicySchema } from "../../src/policy/schema.js";
import { tempDir, TestRepo } from "../helpers/git-repo.js";

// The base's inline tests read from real git (issue 22): deletions, renames and edits of a Rust file
// are mapped onto its test items; a base too large to read fails closed.
const LIB = "pub fn one() -> i64 { 1 }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn is_one() {\n        assert_eq!(super::one(), 1);\n    }\n}\n";
const policy = (fileBytes = 1024 * 1024) =>
  PolicySchema.parse({ version: 1, tests: { command: "cargo test" }, limits: { file_bytes: fileBytes } });

async function edits(after: Record<string, string | null>, fileBytes?: number) {
  const repo = TestRepo.init();
  const base = repo.commit({ "src/lib.rs": LIB, "src/other.rs": "fn x() {}\n" });
  const head = repo.commit(after);
  const opened = await openRepository(repo.dir, tempDir());
  const found = await inlineTestFacts(opened, base, await opened.diff(base, head), policy(fileBytes));
  return found.map((e) => [e.path, e.test, e.what]);
}

describe("inlineTestFacts", () => {
  it("leaves code outside the tests and a new test in the module alone", async () => {
    const added = LIB.replace("1 }\n", "2 - 1 }\n").replace("    }\n}\n", "    }\n\n    #[test]\n    fn more() {}\n}\n");
    expect(await edits({ "src/lib.rs": added, "src/other.rs": "fn y() {}\n" })).toEqual([]);
  });

  it("fails an assert deleted, the file deleted, and a rename that edits the test", async () => {
    expect(await edits({ "src/lib.rs": LIB.replace("        assert_eq!(super::one(), 1);\n", "") })).toEqual([
      ["src/lib.rs", "tests::is_one", "test fn tests::is_one (lines 5-8 on base) changed: base line 7 modified or deleted"],
    ]);
    expect((await edits({ "src/lib.rs": null })).map(([, test]) => test)).toEqual(["tests", "tests::is_one"]);
    const renamed = await edits({ "src/lib.rs": null, "src/core.rs": LIB.replace("1);", "one());") });
    expect(renamed).toEqual([["src/lib.rs", "tests::is_one", expect.stringContaining("base line 7 modified or deleted")]]);
  });

  it("fails closed when the base version is too large to read", async () => {
    const found = await edits({ "src/lib.rs": LIB + "// more\n" }, 64);
    expect(found).toEqual([["src/lib.rs", "(unread)", expect.stringContaining("so its inline tests cannot be checked")]]);
  });
});
