export { WorkspaceError } from "./errors.js";
export { openRepository, type OpenOptions, type Repository } from "./repository.js";
export type { DiffOptions } from "./diff.js";
export { mirrorDirFor } from "./mirror.js";
export { unsafePathReason } from "./tree.js";
export * from "./types.js";
export type { MergeResult } from "./merge.js";
export type { CommitsAhead, CommitSummary } from "./history.js";
