import { createHash } from "node:crypto";
import type { z } from "zod";
import { locateZodIssues, policyErrorMap, type PolicyIssue } from "./issues.js";
import { PolicySchema, TaskSchema, TASK_ID_PATTERN, type Policy, type Task } from "./schema.js";
import { allowedKeysAt } from "./schema-keys.js";
import { readYaml, type YamlSource } from "./yaml-source.js";

// Turns the bytes of `.github/ranex.yml` and `.ranex/tasks/<id>.yml` (read by the judge from the
// BASE commit, never the head) into validated data, or into issues that name the key and line.

export const POLICY_PATH = ".github/ranex.yml";
export const TASKS_DIR = ".ranex/tasks";

export type PolicyResult = { ok: true; policy: Policy } | { ok: false; errors: PolicyIssue[] };
export type TaskResult = { ok: true; task: Task } | { ok: false; errors: PolicyIssue[] };

/** A task id that cannot name a file outside `.ranex/tasks/` (no `/`, no `..`, no leading dot or dash). */
export class TaskIdError extends Error {
  override readonly name = "TaskIdError";
}

export function isValidTaskId(id: string): boolean {
  return id.length <= 100 && TASK_ID_PATTERN.test(id) && !id.includes("..");
}

export function taskPath(id: string): string {
  if (!isValidTaskId(id)) {
    // The caller names the id; the message says only what a valid one looks like.
    throw new TaskIdError("a task id is letters, digits, '.', '_' or '-', starting with a letter or digit, without '..', at most 100 characters");
  }
  return `${TASKS_DIR}/${id}.yml`;
}

/** `sha256:<hex>` of the exact blob bytes, so the subject names the very file that was judged by. */
export function policyDigest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

export function parsePolicy(text: string | Uint8Array, file: string = POLICY_PATH): PolicyResult {
  const result = parseWith(PolicySchema, text, file);
  return result.ok ? { ok: true, policy: result.value } : result;
}

export function parseTask(text: string | Uint8Array, file: string, expectedId: string): TaskResult {
  if (!isValidTaskId(expectedId)) {
    return { ok: false, errors: [{ file, path: "", line: null, message: `invalid task id ${JSON.stringify(expectedId)}: it must be letters, digits, '.', '_' or '-', starting with a letter or digit` }] };
  }
  const result = parseWith(TaskSchema, text, file, (task, source) =>
    task.id === expectedId ? [] : [{
      file, path: "id", line: source.lineOf(["id"]),
      message: `id '${task.id}' does not match the file name: ${taskPath(expectedId)} must declare id: ${expectedId}`,
    }]);
  return result.ok ? { ok: true, task: result.value } : result;
}

/** A check run shows a page of text, not thousands of lines: the first issues and a count of the rest. */
export const MAX_ISSUES = 50;

function capped(issues: PolicyIssue[], file: string): PolicyIssue[] {
  if (issues.length <= MAX_ISSUES) return issues;
  return [...issues.slice(0, MAX_ISSUES), { file, path: "", line: null, message: `and ${issues.length - MAX_ISSUES} more problems` }];
}

type Parsed<T> = { ok: true; value: T } | { ok: false; errors: PolicyIssue[] };

function parseWith<S extends z.ZodType>(
  schema: S, text: string | Uint8Array, file: string,
  extra: (value: z.output<S>, source: YamlSource) => PolicyIssue[] = () => [],
): Parsed<z.output<S>> {
  const read = readYaml(text, file);
  if (!read.ok) return read;
  const { source } = read;
  const parsed = schema.safeParse(source.data, { error: policyErrorMap });
  if (!parsed.success) {
    return { ok: false, errors: capped(locateZodIssues(parsed.error.issues, source, file, (path) => allowedKeysAt(schema, path)), file) };
  }
  const problems = extra(parsed.data, source);
  return problems.length > 0 ? { ok: false, errors: problems } : { ok: true, value: parsed.data };
}
