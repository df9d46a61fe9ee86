import { describe, expect, it } from "vitest";
import {
  formatIssues, parsePolicy, parseTask, policyDigest, POLICY_PATH, taskPath, TaskIdError, MAX_YAML_BYTES, DEFAULT_REQUIRE,
  type PolicyIssue,
} from "../../src/policy/index.js";

const MINIMAL = "version: 1\ntests:\n  command: npm test\n";

function errorsOf(text: string | Uint8Array): PolicyIssue[] {
  const result = parsePolicy(text);
  if (result.ok) throw new Error(`expected errors, got a policy: ${JSON.stringify(result.policy)}`);
  return result.errors;
}

describe("parsePolicy: valid files", () => {
  it("fills every default for a minimal policy", () => {
    const result = parsePolicy(MINIMAL);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.policy.require).toEqual([...DEFAULT_REQUIRE]);
    expect(result.policy.tests.timeout).toBe(600);
    expect(result.policy.tests.allow_new).toBe(true);
    expect(result.policy.scope).toEqual({ allow: ["**"], deny: [] });
    expect(result.policy.sandbox.backend).toBe("bwrap");
    expect(result.policy.retries).toBe(3);
  });

  it("accepts the shorthand `sandbox: none` and a UTF-8 byte array", () => {
    const result = parsePolicy(new TextEncoder().encode("version: 1\nrequire: [diff.frozen]\nsandbox: none\n"));
    expect(result.ok && result.policy.sandbox.backend).toBe("none");
  });

  it("accepts a modest use of anchors", () => {
    const result = parsePolicy("version: 1\nrequire: [diff.scope]\nfrozen: &f [a.txt]\nscope: { allow: [\"**\"], deny: *f }\n");
    expect(result.ok && result.policy.scope.deny).toEqual(["a.txt"]);
  });
});

describe("parsePolicy: errors name the key path and the line", () => {
  it("an unknown key, with a suggestion for a typo", () => {
    const errors = errorsOf(`${MINIMAL}  timout: 5\n  fooo: 1\n`);
    expect(formatIssues(errors)).toEqual([
      ".github/ranex.yml:4: tests.timout: unknown key 'timout' (did you mean 'timeout'?)",
      ".github/ranex.yml:5: tests.fooo: unknown key 'fooo' (allowed here: files, command, setup, timeout, allow_new, setup_network, setup_inputs, repeat, select, rejudge_on_base_push, helpers)",
    ]);
  });

  it("an unknown top-level key and a bad value inside a list", () => {
    const errors = errorsOf(`${MINIMAL}checks:\n  - name: typecheck\n    run: tsc\n  - name: "has space"\n    run: x\nwhatever: 1\n`);
    expect(errors).toContainEqual({ file: POLICY_PATH, path: "checks[1].name", line: 7, message: "a check name is letters, digits, '.', '_' or '-'" });
    expect(errors).toContainEqual(expect.objectContaining({ path: "whatever", line: 9 }));
  });

  it("wrong types, out-of-range numbers and unknown claims", () => {
    const errors = errorsOf("version: 1\ntests:\n  command: x\n  timeout: \"ten\"\nlimits: { file_bytes: 0 }\nrequire: [diff.frozen, diff.everything]\n");
    expect(formatIssues(errors)).toEqual([
      ".github/ranex.yml:4: tests.timeout: expected a number, got the text \"ten\"",
      ".github/ranex.yml:5: limits.file_bytes: must be greater than 0",
      expect.stringMatching(/^\.github\/ranex\.yml:6: require\[1\]: unknown claim/),
    ]);
  });

  it("a missing version, a wrong version", () => {
    expect(formatIssues(errorsOf("tests:\n  command: x\n"))).toEqual([".github/ranex.yml:1: version: required key is missing"]);
    expect(formatIssues(errorsOf("version: 2\ntests: { command: x }\n"))).toEqual([".github/ranex.yml:1: version: must be 1"]);
  });

  it("cross-field rules: tests.command for tests claims, checks named by require, unique check names", () => {
    expect(formatIssues(errorsOf("version: 1\n"))).toEqual([
      ".github/ranex.yml:1: tests.command: tests.command is required while require lists a tests.* claim",
    ]);
    const errors = errorsOf("version: 1\nrequire: [diff.frozen, \"check:lint\"]\nchecks:\n  - { name: a, run: x }\n  - { name: a, run: y }\n");
    expect(errors.map((e) => `${e.path}@${e.line}`)).toEqual(["require[1]@2", "checks@3"]);
  });

  it("a gate that requires nothing is refused at its line", () => {
    expect(formatIssues(errorsOf("version: 1\nrequire: []\n"))[0]).toMatch(/^\.github\/ranex\.yml:2: require: .*could never block/);
  });

  it("unfreeze takes paths, not globs", () => {
    expect(errorsOf("version: 1\nrequire: [diff.frozen]\nunfreeze: [\"tests/**\"]\n")).toEqual([
      { file: POLICY_PATH, path: "unfreeze[0]", line: 3, message: "name a path, not a glob" },
    ]);
  });
});

describe("parsePolicy: hostile or broken YAML", () => {
  it("duplicate keys", () => {
    expect(formatIssues(errorsOf("version: 1\nrequire: [diff.frozen]\nrequire: [secrets]\n"))).toEqual([
      ".github/ranex.yml:3: duplicate key: a key may appear only once in a mapping",
    ]);
  });

  it("syntax errors carry the line", () => {
    const errors = errorsOf("version: 1\ntests:\n  command: [unclosed\nfrozen: []\n");
    expect(errors[0]?.line).toBeGreaterThanOrEqual(3);
    expect(errors[0]?.message).toMatch(/^YAML syntax error/);
  });

  it("an alias bomb is refused without expanding it", () => {
    let text = "version: 1\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (let i = 1; i < 10; i++) text += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(", ")}]\n`;
    const started = Date.now();
    expect(errorsOf(text)[0]?.message).toMatch(/aliases expand too far/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("empty files, comment-only files, non-mapping top levels, several documents, tags", () => {
    expect(errorsOf("")[0]?.message).toMatch(/file is empty/);
    expect(errorsOf("# nothing yet\n")[0]?.message).toMatch(/file is empty/);
    expect(errorsOf("- version: 1\n")[0]?.message).toMatch(/top level must be a mapping/);
    expect(errorsOf("just text\n")[0]?.message).toMatch(/top level must be a mapping/);
    expect(errorsOf(`${MINIMAL}---\nversion: 1\n`)[0]).toMatchObject({ line: 4, message: expect.stringMatching(/more than one YAML document/) });
    expect(errorsOf(`${MINIMAL}frozen: !custom [a]\n`)[0]).toMatchObject({ line: 4, message: expect.stringMatching(/tags are not allowed/) });
  });

  it("files over 256 KiB and bytes that are not UTF-8", () => {
    const big = `${MINIMAL}# ${"x".repeat(MAX_YAML_BYTES)}\n`;
    expect(errorsOf(big)[0]).toMatchObject({ line: null, message: expect.stringMatching(/limit is 262144 bytes/) });
    expect(errorsOf(new Uint8Array([0x76, 0x3a, 0x20, 0xff, 0xfe]))[0]?.message).toBe("file is not valid UTF-8");
  });
});

describe("parseTask", () => {
  const file = taskPath("add-login");
  it("parses a manifest whose id matches its file", () => {
    const result = parseTask("id: add-login\ntitle: Add login\ntargets: [\"tests/test_login.py::test_ok\"]\n", file, "add-login");
    expect(result.ok && result.task).toMatchObject({ id: "add-login", targets: ["tests/test_login.py::test_ok"], edges: [], acceptance: [] });
  });

  it("refuses a manifest that claims another id", () => {
    const result = parseTask("title: x\nid: other\n", file, "add-login");
    expect(result.ok ? [] : formatIssues(result.errors)).toEqual([
      ".ranex/tasks/add-login.yml:2: id: id 'other' does not match the file name: .ranex/tasks/add-login.yml must declare id: add-login",
    ]);
  });

  it("locates errors inside edges", () => {
    const result = parseTask("id: t\ntitle: x\nedges:\n  - id: e1\n    from: a\n    to: b\n    tests: []\n", ".ranex/tasks/t.yml", "t");
    expect(result.ok ? [] : formatIssues(result.errors)).toEqual([".ranex/tasks/t.yml:7: edges[0].tests: needs at least 1 item"]);
  });
});

describe("paths and digests", () => {
  it("taskPath builds the path and refuses ids that could escape the tasks folder", () => {
    expect(taskPath("fix-42_a.b")).toBe(".ranex/tasks/fix-42_a.b.yml");
    for (const bad of ["", "../x", "a/b", "..", ".hidden", "-rf", "a..b", "a\\b", "a b", "x".repeat(101)]) {
      expect(() => taskPath(bad), bad).toThrow(TaskIdError);
    }
  });

  it("policyDigest hashes the exact bytes", () => {
    expect(policyDigest(new Uint8Array())).toBe("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(policyDigest(new TextEncoder().encode(MINIMAL))).not.toBe(policyDigest(new TextEncoder().encode(`${MINIMAL}\n`)));
  });
});

describe("claims the policy may not list, and very long error lists", () => {
  it("refuses sandbox.isolated, saying the judge adds it itself", () => {
    expect(formatIssues(errorsOf("version: 1\nrequire: [diff.frozen, sandbox.isolated]\n"))).toEqual([
      ".github/ranex.yml:2: require[1]: sandbox.isolated is added by the judge itself when sandbox is none: do not list it",
    ]);
  });

  it("relative read-only mounts are refused", () => {
    expect(formatIssues(errorsOf("version: 1\nrequire: [diff.frozen]\nsandbox:\n  readonly: [opt/x]\n"))).toEqual([
      ".github/ranex.yml:4: sandbox.readonly[0]: must be an absolute path (starting with /)",
    ]);
  });

  it("keeps the first 50 issues and counts the rest", () => {
    const text = `${MINIMAL}${Array.from({ length: 80 }, (_, i) => `extra_${i}: 1`).join("\n")}\n`;
    const errors = errorsOf(text);
    expect(errors).toHaveLength(51);
    expect(errors[0]).toMatchObject({ path: "extra_0", line: 4 });
    expect(errors[50]).toEqual({ file: POLICY_PATH, path: "", line: null, message: "and 30 more problems" });
  });
});
