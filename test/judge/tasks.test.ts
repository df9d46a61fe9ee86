import { describe, expect, it } from "vitest";
import { loadTasks, mergeTasks, subjectTask, taskIdsOf } from "../../src/judge/tasks.js";
import type { Task } from "../../src/policy/schema.js";

const task = (id: string, extra: Partial<Task> = {}): Task => ({ id, title: `do ${id}`, acceptance: [], targets: [], edges: [], ...extra });

describe("several tasks judged as one change", () => {
  it("keeps a single task as it is, and names several in the subject sorted and joined", () => {
    expect(taskIdsOf({ task: "mul" })).toEqual(["mul"]);
    expect(taskIdsOf({ task: null })).toEqual([]);
    expect(subjectTask({ task: "mul" })).toBe("mul");
    expect(taskIdsOf({ task: null, tasks: ["mul", "add", "mul"] })).toEqual(["add", "mul"]);
    expect(subjectTask({ task: null, tasks: ["mul", "add"] })).toBe("add+mul");
    expect(subjectTask({ task: "ignored", tasks: [] })).toBeNull();
  });

  it("requires every task's targets and edges, and drops the task scopes", () => {
    const merged = mergeTasks([
      task("add", { targets: ["t.py::test_add", "t.py::shared"], scope: ["src/add.py"], edges: [{ id: "e1", from: "a", to: "b", tests: ["t.py::test_add"] }] }),
      task("mul", { targets: ["t.py::test_mul", "t.py::shared"], edges: [{ id: "e1", from: "c", to: "d", tests: ["t.py::test_mul"] }] }),
    ]);
    expect(merged.targets).toEqual(["t.py::test_add", "t.py::shared", "t.py::test_mul"]);
    expect(merged.edges.map((e) => e.id)).toEqual(["add/e1", "mul/e1"]);
    expect(merged.scope).toBeUndefined();
    expect(merged.id).toBe("add+mul");
  });

  it("fails the whole judgment when one task cannot be loaded", async () => {
    const loaded = await loadTasks(["add", "nope"], async (id) => (id === "nope" ? { failure: "no task 'nope'" } : { task: task(id ?? "") }));
    expect(loaded).toEqual({ failure: "no task 'nope'" });
    expect(await loadTasks([], async (id) => ({ task: id === null ? null : task(id) }))).toEqual({ task: null });
  });

  it("carries one task's sealed tests, and refuses a group of several sealed tasks rather than judge only one (issue 20)", async () => {
    expect(mergeTasks([task("add", { sealed: ".ranex/sealed/add.sealed" }), task("mul")]).sealed).toBe(".ranex/sealed/add.sealed");
    const both = await loadTasks(["add", "mul"], async (id) => ({ task: task(id ?? "", { sealed: `.ranex/sealed/${id}.sealed` }) }));
    expect(both).toMatchObject({ failure: expect.stringMatching(/several tasks of this group carry sealed tests .*merge these pull requests one by one/) });
  });
});
