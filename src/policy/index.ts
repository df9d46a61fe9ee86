// The policy loader: validated policy and task manifests from the bytes the judge read on the base.
export { POLICY_PATH, TASKS_DIR, parsePolicy, parseTask, policyDigest, taskPath, isValidTaskId, TaskIdError } from "./load.js";
export type { PolicyResult, TaskResult } from "./load.js";
export { formatIssues, formatKeyPath } from "./issues.js";
export type { PolicyIssue } from "./issues.js";
export { MAX_YAML_BYTES, MAX_YAML_ALIASES } from "./yaml-source.js";
export * from "./schema.js";
