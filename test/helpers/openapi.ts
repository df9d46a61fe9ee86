import { Ajv, type ValidateFunction } from "ajv";
import formatsPlugin from "ajv-formats";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

// Validates request bodies against GitHub's own OpenAPI description (@octokit/openapi), so a field
// GitHub would reject fails the test. The dereferenced spec is 70 MB: it is parsed once, and only
// the operations (method, path template, JSON request-body schema) are kept, cached on disk per
// package version so later test files start fast.

export type Spec = "api.github.com" | "ghes-3.19";

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  literals: number;
  schema: unknown;
  /** Whether the operation demands a body at all. */
  required: boolean;
}

const require = createRequire(import.meta.url);
const loaded = new Map<Spec, Operation[]>();
const validators = new Map<unknown, ValidateFunction>();
const ajv = new Ajv({ strict: false, allErrors: true });
// ajv-formats is CommonJS: under NodeNext its default import is module.exports, which carries `.default`.
formatsPlugin.default(ajv);

function operations(spec: Spec): Operation[] {
  const known = loaded.get(spec);
  if (known !== undefined) return known;
  const pkg = require.resolve("@octokit/openapi/package.json");
  const version = (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
  const cache = join(tmpdir(), "ranex-openapi-cache", `${spec}-${version}-v2.json`);
  let raw: Record<string, unknown>;
  if (existsSync(cache)) {
    raw = JSON.parse(readFileSync(cache, "utf8")) as Record<string, unknown>;
  } else {
    const full = JSON.parse(readFileSync(join(dirname(pkg), "generated", `${spec}.deref.json`), "utf8")) as {
      paths: Record<string, Record<string, { requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> } }>>;
    };
    raw = {};
    for (const [template, ops] of Object.entries(full.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
        raw[`${method.toUpperCase()} ${template}`] = { schema: op.requestBody?.content?.["application/json"]?.schema ?? null, required: op.requestBody?.required === true };
      }
    }
    mkdirSync(dirname(cache), { recursive: true });
    writeFileSync(`${cache}.${process.pid}`, JSON.stringify(raw));
    // Written aside and renamed: parallel test workers never read half a file.
    renameSync(`${cache}.${process.pid}`, cache);
  }
  const ops = Object.entries(raw as Record<string, { schema: unknown; required: boolean }>).map(([key, { schema, required }]) => {
    const [method = "", template = ""] = key.split(" ");
    const parts = template.split("/");
    // `{path}` in the contents API spans slashes; every other parameter is one segment.
    const source = parts.map((p) => (p === "{path}" ? ".+" : /^\{[^}]+\}$/.test(p) ? "[^/]+" : p.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))).join("/");
    return { method, template, pattern: new RegExp(`^${source}$`), literals: parts.filter((p) => p !== "" && !p.startsWith("{")).length, schema, required };
  });
  loaded.set(spec, ops);
  return ops;
}

/** The operation for a request, preferring the template with the most literal segments. */
export function findOperation(method: string, path: string, spec: Spec = "api.github.com"): Operation | null {
  const bare = path.replace(/^\/api\/v3(?=\/)/, "").split("?")[0] ?? "";
  const matches = operations(spec).filter((op) => op.method === method.toUpperCase() && op.pattern.test(bare));
  matches.sort((a, b) => b.literals - a.literals);
  return matches[0] ?? null;
}

/** Problems with a request against the spec: no such operation, or a body the schema rejects. */
export function requestProblems(method: string, path: string, body: unknown, spec: Spec = "api.github.com"): string[] {
  const op = findOperation(method, path, spec);
  if (op === null) return [`${method} ${path}: no such operation in the ${spec} OpenAPI description`];
  if (body === undefined) return op.required ? [`${method} ${op.template}: the operation requires a body`] : [];
  if (op.schema === null) return [`${method} ${op.template}: the operation takes no JSON body`];
  const validate = validators.get(op.schema) ?? ajv.compile(op.schema as object);
  validators.set(op.schema, validate);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${method} ${op.template}: body${e.instancePath} ${e.message ?? "is invalid"} ${JSON.stringify(e.params)}`);
}
