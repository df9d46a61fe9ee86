/** A workspace failure, worded for the person reading the verdict (no stack traces needed). */
export class WorkspaceError extends Error {
  override readonly name = "WorkspaceError";
}
