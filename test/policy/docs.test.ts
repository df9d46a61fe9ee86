import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatIssues, parsePolicy, parseTask, PolicySchema, TaskSchema, taskPath } from "../../src/policy/index.js";
import { allowedKeysAt } from "../../src/policy/schema-keys.js";

// The reference's examples are what owners copy: they must stay valid as the schema evolves.
const doc = readFileSync(join(import.meta.dirname, "..", "..", "docs", "policy.md"), "utf8");
const yamlBlocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");

describe("docs/policy.md examples", () => {
  it("has a policy example and a task example", () => {
    expect(yamlBlocks).toHaveLength(2);
  });

  it("the full policy example validates and sets every top-level key", () => {
    const result = parsePolicy(yamlBlocks[0] ?? "");
    expect(result.ok ? [] : formatIssues(result.errors)).toEqual([]);
    const keys = [...(yamlBlocks[0] ?? "").matchAll(/^([a-z_]+):/gm)].map((m) => m[1]);
    expect(keys.sort()).toEqual(allowedKeysAt(PolicySchema, []).sort());
  });

  it("the task example validates", () => {
    const result = parseTask(yamlBlocks[1] ?? "", taskPath("add-login"), "add-login");
    expect(result.ok ? [] : formatIssues(result.errors)).toEqual([]);
  });
});

describe("docs/policy.md covers the schema", () => {
  const paths: [typeof PolicySchema | typeof TaskSchema, (string | number)[]][] = [
    [PolicySchema, []], [PolicySchema, ["agents"]], [PolicySchema, ["tests"]], [PolicySchema, ["scope"]], [PolicySchema, ["checks", 0]],
    [PolicySchema, ["limits"]], [PolicySchema, ["sandbox"]], [PolicySchema, ["approval"]], [PolicySchema, ["override"]], [TaskSchema, []], [TaskSchema, ["edges", 0]],
  ];
  for (const [schema, path] of paths) {
    it(`documents every key at ${schema === TaskSchema ? "task" : "policy"} ${path.join(".") || "top level"}`, () => {
      const keys = allowedKeysAt(schema, path);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((key) => !doc.includes(`\`${key}\``))).toEqual([]);
    });
  }
});
