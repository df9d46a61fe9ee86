import { describe, expect, it } from "vitest";
import { frozenClaim, scopeClaim } from "../../../src/measure/diff/index.js";
import type { SubmoduleFileFact } from "../../../src/workspace/index.js";
import { context, modified, policy, submoduleUpdated } from "./builders.js";

// Files inside a moved submodule are judged as files of the tree (issue 22): plain data in, evidence out.
const within = { path: "vendor/lib", from: "a".repeat(40), to: "b".repeat(40) };
const inside = (path: string): SubmoduleFileFact => ({ ...modified(`vendor/lib/${path}`), within });
const lib = policy({ scope: { allow: ["src/**"], deny: [] }, tests: { command: "pytest", files: ["tests/**", "vendor/lib/tests/**"] } });

describe("files inside a moved submodule", () => {
  it("a test of the base's submodule, modified by the move, fails diff.frozen naming it and the move", () => {
    const ctx = context([submoduleUpdated("vendor/lib")], {
      policy: lib, inside: { facts: [inside("tests/test_a.py"), inside("lib.py")], basePaths: ["vendor/lib/tests/test_a.py", "vendor/lib/lib.py"], problems: [] },
    });
    const evidence = frozenClaim(ctx);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("1 frozen path changed: vendor/lib/tests/test_a.py (modified inside the submodule vendor/lib, moved aaaaaaaaaaaa→bbbbbbbbbbbb)");
  });

  it("diff.scope judges them by their paths in the tree", () => {
    const ctx = context([submoduleUpdated("vendor/lib")], { policy: lib, inside: { facts: [inside("lib.py")], basePaths: ["vendor/lib/lib.py"], problems: [] } });
    expect(scopeClaim(ctx).details.map((d) => d.path)).toEqual(["vendor/lib", "vendor/lib/lib.py"]);
    expect(frozenClaim(ctx).reason).toBe("1 changed path and 1 file inside a moved submodule compared, none frozen");
  });

  it("a submodule whose files could not be compared leaves diff.frozen without evidence (blocking, class incomplete), never a pass", () => {
    const ctx = context([submoduleUpdated("vendor/lib")], { policy: lib, inside: { facts: [], basePaths: [], problems: [{ path: "vendor/lib", why: "its files on the head could not be compared: refused" }] } });
    const evidence = frozenClaim(ctx);
    // Missing evidence, not tampering: the kernel fails an absent claim as incomplete.
    expect(evidence.outcome).toBe("absent");
    expect(evidence.reason).toBe("not measured: vendor/lib (submodule moved; its files on the head could not be compared: refused)");
    expect(evidence.details).toEqual([{ path: "vendor/lib", kind: "submodule", message: "vendor/lib: submodule moved; its files on the head could not be compared: refused" }]);
  });
});
