import { BaseSequencer, type TestSpecification } from "vitest/node";

// The order test files start in. CI runs a fresh clone on two workers, where vitest has no durations
// yet and starts the largest files first, so a small file that judges several repositories (a Maven
// reactor, an init flow) could start last and keep one worker busy minutes after the other ran dry.
// Files that judge or run real toolchains start first; within each group vitest's own order holds
// (the last run's durations when it has them, file size otherwise).
const SLOW_FOLDERS = ["test/e2e/", "test/judge/", "test/runners/", "test/github/", "test/sandbox/"];

function group(spec: TestSpecification, root: string): number {
  const path = spec.moduleId.startsWith(root) ? spec.moduleId.slice(root.length + 1) : spec.moduleId;
  const index = SLOW_FOLDERS.findIndex((folder) => path.startsWith(folder));
  return index === -1 ? SLOW_FOLDERS.length : index;
}

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const root = this.ctx.config.root;
    // Array.prototype.sort is stable: vitest's order stays within a group.
    return ordered.map((spec, i) => ({ spec, i, g: group(spec, root) })).sort((a, b) => a.g - b.g || a.i - b.i).map(({ spec }) => spec);
  }
}
