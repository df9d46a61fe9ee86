import type { z } from "zod";
import type { KeyPath, YamlSource } from "./yaml-source.js";

/** One problem with a policy or task file, located as precisely as the file allows. */
export interface PolicyIssue {
  file: string;
  /** Key path like `tests.timeout` or `checks[0].name`; empty for the file as a whole. */
  path: string;
  /** 1-based line in the file, or null when the problem has no line (an oversized file). */
  line: number | null;
  message: string;
}

/** One human line per issue: `.github/ranex.yml:7: tests.fooo: unknown key 'fooo'`. */
export function formatIssues(issues: readonly PolicyIssue[]): string[] {
  return issues.map((i) => `${i.file}${i.line === null ? "" : `:${i.line}`}: ${i.path === "" ? "" : `${i.path}: `}${i.message}`);
}

export function formatKeyPath(path: KeyPath): string {
  let out = "";
  for (const step of path) out += typeof step === "number" ? `[${step}]` : out === "" ? step : `.${step}`;
  return out;
}

/**
 * Turns zod's issues into located ones. An unknown key becomes one issue per key, pointing at the
 * key's own line and suggesting the closest allowed key, since a typo is the usual cause.
 */
export function locateZodIssues(issues: readonly z.core.$ZodIssue[], source: YamlSource, file: string, allowedKeys: (path: KeyPath) => string[]): PolicyIssue[] {
  const out: PolicyIssue[] = [];
  for (const issue of issues) {
    const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
    if (issue.code === "unrecognized_keys") {
      const allowed = allowedKeys(path);
      for (const key of issue.keys) {
        const keyPath = [...path, key];
        const hint = suggestion(key, allowed);
        out.push({ file, path: formatKeyPath(keyPath), line: source.lineOf(keyPath), message: `unknown key '${key}'${hint}` });
      }
      continue;
    }
    const absent = path.length > 0 && !source.has(path) && (issue.code === "invalid_type" || issue.code === "invalid_value");
    const message = absent ? "required key is missing" : issue.message;
    out.push({ file, path: formatKeyPath(path), line: source.lineOf(path), message });
  }
  return out.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

function suggestion(key: string, allowed: readonly string[]): string {
  if (allowed.length === 0) return "";
  const scored = allowed.map((name) => ({ name, distance: editDistance(key.toLowerCase(), name.toLowerCase()) }));
  const best = scored.sort((a, b) => a.distance - b.distance)[0];
  if (best !== undefined && best.distance <= Math.max(2, Math.floor(key.length / 3))) return ` (did you mean '${best.name}'?)`;
  return ` (allowed here: ${allowed.join(", ")})`;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** Plainer wording than zod's defaults, for a repository owner reading a check run. */
export const policyErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case "invalid_type":
      return `expected ${article(issue.expected)}, got ${describe(issue.input)}`;
    case "invalid_value":
      return issue.values.length === 1 ? `must be ${JSON.stringify(issue.values[0])}` : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "too_small":
      if (issue.origin === "string" && issue.minimum === 1) return "must not be empty";
      if (issue.origin === "array") return `needs at least ${issue.minimum} item${issue.minimum === 1 ? "" : "s"}`;
      return `must be ${issue.inclusive ? "at least" : "greater than"} ${issue.minimum}`;
    case "too_big":
      return `must be ${issue.inclusive ? "at most" : "less than"} ${issue.maximum}`;
    default:
      return undefined;
  }
};

function article(expected: string): string {
  if (expected === "object") return "a mapping (key: value)";
  if (expected === "array") return "a list";
  if (expected === "int") return "a whole number";
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}
