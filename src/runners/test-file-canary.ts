// The canary of runners that collect test files from the tree (vitest, jest): a test file at the
// tree's root with a fresh name, written read-only into the run's own copy and removed after it.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CanaryContext, CanaryResult } from "./types.js";

export async function rootTestFile(ctx: CanaryContext, file: string, body: string): Promise<CanaryResult> {
  await writeFile(join(ctx.treeDir, file), body, { flag: "wx" });
  return { treeFiles: [file] };
}
