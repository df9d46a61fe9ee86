import { z } from "zod";
import { KNOWN_CLAIMS } from "../kernel/claims.js";
import { PolicySchema, SandboxSchema, TaskSchema } from "./schema.js";

// JSON schemas for editors and other tools, generated from the zod schemas so the two cannot drift.
// `io: "input"` describes what a person may write: keys with defaults are optional.

export const POLICY_SCHEMA_FILE = "schema/ranex.schema.json";
export const TASK_SCHEMA_FILE = "schema/ranex-task.schema.json";

type JsonSchema = Record<string, unknown>;

function generate(schema: z.ZodType, title: string): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: "input",
    target: "draft-2020-12",
    override: (ctx) => {
      const node = ctx.jsonSchema as JsonSchema;
      // zod's `startsWith` becomes a format no validator knows; the pattern beside it says the same.
      if (node.format === "starts_with") delete node.format;
      if (ctx.zodSchema === SandboxSchema) {
        // The preprocess step accepts `sandbox: none` as shorthand; zod cannot see through it.
        const { default: fallback, ...objectForm } = node;
        for (const key of Object.keys(node)) delete node[key];
        if (fallback !== undefined) node.default = fallback;
        node.anyOf = [{ type: "string", enum: ["bwrap", "none"] }, objectForm];
      }
    },
  }) as JsonSchema;
  return { $schema: json.$schema, title, ...json };
}

export function policyJsonSchema(): JsonSchema {
  const json = generate(PolicySchema, "Ranex Gate policy (.github/ranex.yml)");
  const properties = json.properties as Record<string, JsonSchema>;
  const require = properties.require;
  // Claim names are checked by a refinement zod cannot express; spell them out for editors.
  // zod drops the default around the preprocessed sandbox schema; restore it from the schema itself.
  const sandbox = properties.sandbox;
  if (sandbox && sandbox.default === undefined) sandbox.default = PolicySchema.parse({ version: 1, require: ["diff.frozen"] }).sandbox;
  if (require) require.items = { anyOf: [{ type: "string", enum: [...KNOWN_CLAIMS] }, { type: "string", pattern: "^check:[A-Za-z0-9_.-]+$" }] };
  return json;
}

export function taskJsonSchema(): JsonSchema {
  return generate(TaskSchema, "Ranex Gate task manifest (.ranex/tasks/<id>.yml)");
}

/** The exact text of each committed schema file. */
export function schemaFiles(): Record<string, string> {
  return {
    [POLICY_SCHEMA_FILE]: `${JSON.stringify(policyJsonSchema(), null, 2)}\n`,
    [TASK_SCHEMA_FILE]: `${JSON.stringify(taskJsonSchema(), null, 2)}\n`,
  };
}
