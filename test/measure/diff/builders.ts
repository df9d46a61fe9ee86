import { PolicySchema, TaskSchema, type Policy, type Task } from "../../../src/policy/schema.js";
import { MODE_GITLINK, MODE_NONE, MODE_SYMLINK, ZERO_SHA, type AddedLines, type DiffFact } from "../../../src/workspace/types.js";
import type { DiffContext } from "../../../src/measure/diff/index.js";

// Small, readable DiffFact builders: tests state the change as git would report it, nothing more.

const OLD = "1".repeat(40);
const NEW = "2".repeat(40);

export const added = (path: string, size = 10): DiffFact =>
  make({ status: "A", path, oldMode: MODE_NONE, oldBlob: ZERO_SHA, size });
export const modified = (path: string): DiffFact => make({ status: "M", path });
export const deleted = (path: string): DiffFact =>
  make({ status: "D", path, newMode: MODE_NONE, newBlob: ZERO_SHA, size: null });
export const renamed = (from: string, to: string): DiffFact => make({ status: "R", path: to, oldPath: from, score: 100, oldBlob: NEW });
export const copied = (from: string, to: string): DiffFact => make({ status: "C", path: to, oldPath: from, score: 100, oldBlob: NEW });
/** Same content, new mode (`chmod +x`). */
export const chmod = (path: string, from = "100644", to = "100755"): DiffFact =>
  make({ status: "M", path, oldMode: from, newMode: to, oldBlob: NEW });
/** A regular file replaced by a symlink. */
export const typeChanged = (path: string, target: string): DiffFact =>
  make({ status: "T", path, newMode: MODE_SYMLINK, symlinkTarget: target, size: target.length });
export const symlink = (path: string, target: string): DiffFact =>
  make({ status: "A", path, oldMode: MODE_NONE, oldBlob: ZERO_SHA, newMode: MODE_SYMLINK, symlinkTarget: target, size: target.length });
export const submoduleAdded = (path: string): DiffFact =>
  make({ status: "A", path, oldMode: MODE_NONE, oldBlob: ZERO_SHA, newMode: MODE_GITLINK, submodule: true, size: null });
export const submoduleUpdated = (path: string): DiffFact =>
  make({ status: "M", path, oldMode: MODE_GITLINK, newMode: MODE_GITLINK, submodule: true, size: null });
export const submoduleRemoved = (path: string): DiffFact =>
  make({ status: "D", path, oldMode: MODE_GITLINK, newMode: MODE_NONE, newBlob: ZERO_SHA, submodule: true, size: null });

function make(over: Partial<DiffFact> & Pick<DiffFact, "status" | "path">): DiffFact {
  return {
    oldPath: null, score: null, oldMode: "100644", newMode: "100644", oldBlob: OLD, newBlob: NEW,
    size: 10, symlinkTarget: null, submodule: false, binary: false, ...over,
  };
}

export function policy(overrides: Record<string, unknown> = {}): Policy {
  return PolicySchema.parse({ version: 1, tests: { command: "python3 -m pytest -q --junitxml=$RANEX_JUNIT tests" }, ...overrides });
}

export function task(overrides: Record<string, unknown> = {}): Task {
  return TaskSchema.parse({ id: "calc-1", title: "Fix the calculator", ...overrides });
}

/** The base every test starts from: a small Python project with tests and a harness. */
export const BASE_PATHS = [
  ".github/ranex.yml", "README.md", "conftest.py", "pyproject.toml",
  "src/calc.py", "src/util.py", "tests/test_calc.py", "tests/test_util.py",
];

export function context(facts: DiffFact[], over: Partial<DiffContext> = {}): DiffContext {
  return { subject: "sha256:subject", facts, basePaths: BASE_PATHS, policy: policy(), task: null, added: [], ...over };
}

export function lines(path: string, ...texts: string[]): AddedLines {
  return { path, lines: texts.map((text, i) => ({ line: i + 1, text })) };
}
