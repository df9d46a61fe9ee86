import { describe, expect, it } from "vitest";
import { scopeClaim } from "../../../src/measure/diff/index.js";
import { added, context, deleted, modified, policy, renamed, task } from "./builders.js";

const scoped = (overrides: Record<string, unknown>) => policy({ scope: { allow: ["src/**"], deny: [] }, ...overrides });

describe("diff.scope", () => {
  it("passes paths inside scope.allow and says what it checked", () => {
    const evidence = scopeClaim(context([modified("src/calc.py"), added("src/new.py")], { policy: scoped({}) }));
    expect(evidence).toMatchObject({ claim: "diff.scope", subject: "sha256:subject", outcome: "pass", details: [] });
    expect(evidence.reason).toBe("2 changed paths within scope (allow src/**)");
  });

  it("fails a path outside scope.allow, naming it", () => {
    const evidence = scopeClaim(context([modified("src/calc.py"), modified("README.md")], { policy: scoped({}) }));
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("1 changed path out of scope: README.md (outside scope.allow)");
    expect(evidence.details).toEqual([{ path: "README.md", kind: "outside-allow", message: "README.md: outside scope.allow" }]);
  });

  it("judges both sides of a rename, and deletions", () => {
    expect(scopeClaim(context([renamed("src/util.py", "lib/util.py")], { policy: scoped({}) })).details.map((d) => d.path)).toEqual(["lib/util.py"]);
    expect(scopeClaim(context([renamed("docs/a.md", "src/a.md")], { policy: scoped({}) })).details.map((d) => d.path)).toEqual(["docs/a.md"]);
    expect(scopeClaim(context([deleted("README.md")], { policy: scoped({}) })).outcome).toBe("fail");
  });

  it("fails a path inside scope.deny, case-insensitively so a case twin cannot slip past", () => {
    const deny = policy({ scope: { allow: ["**"], deny: ["src/secrets/**"] } });
    expect(scopeClaim(context([added("src/secrets/key.py")], { policy: deny })).details[0]?.kind).toBe("denied");
    expect(scopeClaim(context([added("src/Secrets/key.py")], { policy: deny })).details[0]?.kind).toBe("denied");
    expect(scopeClaim(context([added("src/public/key.py")], { policy: deny })).outcome).toBe("pass");
  });

  it("narrows the policy scope by the task's scope", () => {
    const ctx = context([modified("src/calc.py"), modified("src/util.py")], { policy: scoped({}), task: task({ scope: ["src/calc.py"] }) });
    const evidence = scopeClaim(ctx);
    expect(evidence.details).toEqual([{ path: "src/util.py", kind: "outside-task", message: "src/util.py: outside the task's scope" }]);
    // The task narrows; it can never widen what the policy allows.
    const wider = scopeClaim(context([modified("README.md")], { policy: scoped({}), task: task({ scope: ["**"] }) }));
    expect(wider.details[0]?.kind).toBe("outside-allow");
    const fits = scopeClaim(context([modified("src/calc.py")], { policy: scoped({}), task: task({ scope: ["src/calc.py"] }) }));
    expect(fits.reason).toBe("1 changed path within scope (allow src/**; task calc-1: src/calc.py)");
  });

  it("fails everything when the task's scope lists no glob", () => {
    const evidence = scopeClaim(context([modified("src/calc.py")], { task: task({ scope: [] }) }));
    expect(evidence.details[0]?.kind).toBe("outside-task");
  });

  it("leaves new test files and frozen paths to diff.frozen, so nothing is counted twice", () => {
    const facts = [modified("src/calc.py"), added("tests/test_new.py"), modified("tests/test_calc.py"), added("lib/conftest.py")];
    const evidence = scopeClaim(context(facts, { policy: scoped({}) }));
    expect(evidence.outcome).toBe("pass");
    expect(evidence.reason).toBe("1 changed path within scope (allow src/**); not judged here: 1 new test file, 2 frozen paths left to diff.frozen");
  });

  it("judges frozen paths itself when the policy does not require diff.frozen, so they escape neither", () => {
    const facts = [modified("src/calc.py"), modified("tests/test_calc.py"), added("tests/test_new.py")];
    const evidence = scopeClaim(context(facts, { policy: scoped({ require: ["diff.scope"] }) }));
    expect(evidence.details.map((d) => d.path)).toEqual(["tests/test_calc.py"]);
  });

  it("keeps the reason on one line when a path holds a newline", () => {
    const evidence = scopeClaim(context([added("docs/a\nPASS.md")], { policy: scoped({}) }));
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe('1 changed path out of scope: "docs/a\\nPASS.md" (outside scope.allow)');
  });
});
