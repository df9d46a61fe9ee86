import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { policyJsonSchema, schemaFiles, taskJsonSchema, POLICY_SCHEMA_FILE, TASK_SCHEMA_FILE } from "../../src/policy/json-schema.js";

const root = join(import.meta.dirname, "..", "..");

describe("committed JSON schemas", () => {
  for (const [file, expected] of Object.entries(schemaFiles())) {
    it(`${file} is current`, () => {
      let committed = "";
      try {
        committed = readFileSync(join(root, file), "utf8");
      } catch {
        expect.fail(`${file} is missing: run \`npm run schema\` and commit it`);
      }
      expect(committed === expected, `${file} is stale: run \`npm run schema\` and commit the result`).toBe(true);
    });
  }

  it("names both files", () => {
    expect(Object.keys(schemaFiles()).sort()).toEqual([TASK_SCHEMA_FILE, POLICY_SCHEMA_FILE].sort());
  });
});

describe("what the schemas say", () => {
  const policy = policyJsonSchema() as { required: string[]; additionalProperties: boolean; properties: Record<string, Record<string, unknown>> };

  it("is strict and requires only version (defaults make the rest optional)", () => {
    expect(policy.required).toEqual(["version"]);
    expect(policy.additionalProperties).toBe(false);
    expect(policy.properties.tests?.additionalProperties).toBe(false);
  });

  it("allows the `sandbox: none` shorthand and lists claim names", () => {
    expect(JSON.stringify(policy.properties.sandbox?.anyOf)).toContain('"enum":["bwrap","none"]');
    expect(JSON.stringify(policy.properties.require?.items)).toContain("tests.red_green");
    expect(JSON.stringify(policy)).not.toContain("starts_with");
    expect(policy.properties.sandbox?.default).toMatchObject({ backend: "bwrap", memory_mb: 4096 });
  });

  it("the task schema requires id and title", () => {
    expect((taskJsonSchema() as { required: string[] }).required.sort()).toEqual(["id", "title"]);
  });
});
