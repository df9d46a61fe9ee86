// Several tasks judged as one change: a merge group of agent pull requests, each with its own
// `Ranex-Task:`. Every task's targets and edges are required of the combined change. Task scopes
// are not: each pull request was held to its own task's scope on its own judgment, and the group
// also carries the other pull requests' changes, which no single task's scope describes (the
// policy's scope and frozen rules still apply to the whole group).
import type { Task } from "../policy/schema.js";

/** The task ids of a request, sorted and unique: `tasks` when given, else the single `task`. */
export function taskIdsOf(request: { task: string | null; tasks?: readonly string[] }): string[] {
  if (request.tasks === undefined) return request.task === null ? [] : [request.task];
  return [...new Set(request.tasks)].sort();
}

/** The subject's task field: the ids joined with `+`, a character no task id may contain. */
export function subjectTask(request: { task: string | null; tasks?: readonly string[] }): string | null {
  if (request.tasks === undefined) return request.task;
  const ids = taskIdsOf(request);
  return ids.length === 0 ? null : ids.join("+");
}

type LoadedOne = { failure: string } | { task: Task | null };

/** Loads each task with the base's policy; the first that cannot be loaded fails the whole judgment. */
export async function loadTasks<L extends LoadedOne>(ids: readonly string[], load: (id: string | null) => Promise<L>): Promise<L> {
  if (ids.length === 0) return load(null);
  const loaded: L[] = [];
  for (const id of ids) {
    const one = await load(id);
    if ("failure" in one) return one;
    loaded.push(one);
  }
  const first = loaded[0] as L & { task: Task | null };
  if (loaded.length === 1) return first;
  // Each pull request's sealed tests judged it on its own; a group of several sealed tasks is refused
  // with the reason rather than judged against only one of them (fail closed, issue 20).
  const sealed = new Set(loaded.flatMap((l) => (l as { task: Task }).task.sealed ?? []));
  if (sealed.size > 1) {
    return { ...first, failure: `several tasks of this group carry sealed tests (${[...sealed].join(", ")}): the gate judges one sealed task at a time; merge these pull requests one by one`, details: [] } as unknown as L;
  }
  return { ...first, task: mergeTasks(loaded.map((l) => (l as { task: Task }).task)) };
}

export function mergeTasks(tasks: readonly Task[]): Task {
  const unique = <T>(items: T[]): T[] => [...new Set(items)];
  return {
    id: tasks.map((t) => t.id).join("+"),
    title: tasks.map((t) => t.title).join("; "),
    acceptance: tasks.flatMap((t) => t.acceptance),
    targets: unique(tasks.flatMap((t) => t.targets)),
    // Edge ids are unique within a task only: the task id keeps them apart in the evidence.
    edges: tasks.flatMap((t) => t.edges.map((e) => ({ ...e, id: `${t.id}/${e.id}` }))),
    ...(tasks.some((t) => t.sealed !== undefined) ? { sealed: tasks.find((t) => t.sealed !== undefined)?.sealed } : {}),
  };
}
