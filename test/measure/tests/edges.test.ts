import { describe, expect, it } from "vitest";
import { edgesClaim } from "../../../src/measure/tests/edges.js";
import { TaskSchema } from "../../../src/policy/schema.js";
import { runSuite } from "./real-run.js";

const SUBJECT = "sha256:subject";
const TESTS = [
  "import pytest",
  "def test_login():\n    assert True",
  "def test_logout():\n    assert False, 'still logged in'",
  "@pytest.mark.skip(reason='flaky')\ndef test_timeout():\n    pass",
].join("\n\n") + "\n";

const task = (edges: unknown[]): ReturnType<typeof TaskSchema.parse> => TaskSchema.parse({ id: "auth", title: "Auth", edges });

describe("edges.covered", () => {
  it("passes when every edge has a passing listed test, fails naming the uncovered ones", async () => {
    const head = await runSuite("head", { "tests/test_auth.py": TESTS });
    const covered = edgesClaim(SUBJECT, task([
      { id: "login", from: "anonymous", to: "user", tests: ["tests/test_auth.py::test_logout", "tests/test_auth.py::test_login"] },
    ]), head);
    expect(covered.outcome).toBe("pass");
    expect(covered.details).toEqual([{ kind: "covered", message: "edge login (anonymous -> user): covered by tests/test_auth.py::test_login" }]);

    const evidence = edgesClaim(SUBJECT, task([
      { id: "login", from: "anonymous", to: "user", tests: ["tests/test_auth.py::test_login"] },
      { id: "logout", from: "user", to: "anonymous", tests: ["tests/test_auth.py::test_logout"] },
      { id: "expire", from: "user", to: "anonymous", tests: ["tests/test_auth.py::test_timeout", "tests/test_auth.py::test_missing"] },
    ]), head);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("edges without a passing test on head: logout, expire");
    expect(evidence.details).toContainEqual({
      kind: "uncovered",
      message: "edge expire (user -> anonymous): no listed test passed on head (tests/test_auth.py::test_timeout skipped, tests/test_auth.py::test_missing absent)",
    });
  });

  it("a task without edges gives absent evidence; a head run that timed out fails", async () => {
    const head = await runSuite("head", { "tests/test_auth.py": TESTS });
    expect(edgesClaim(SUBJECT, task([]), head)).toMatchObject({ outcome: "absent", reason: "task auth declares no edges" });
    const hung = await runSuite("head", { "tests/test_auth.py": "def test_hang():\n    import time\n    time.sleep(30)\n" }, { timeoutMs: 1000 });
    const evidence = edgesClaim(SUBJECT, task([{ id: "e", from: "a", to: "b", tests: ["tests/test_auth.py::test_hang"] }]), hung);
    expect(evidence.reason).toMatch(/^cannot judge the edges: the head test run timed out after 1\.\d s$/);
  });
});
