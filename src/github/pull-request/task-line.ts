// The one piece of the agent's words the gate reads (invariant 8): a `Ranex-Task: <id>` line may
// select a task manifest that already exists on the base. It cannot change a verdict by itself.

const TASK_LINE = /^[ \t]*Ranex-Task:[ \t]*(\S+)[ \t]*$/im;

export function taskFromBody(body: string | null | undefined): string | null {
  if (body === null || body === undefined) return null;
  return TASK_LINE.exec(body)?.[1] ?? null;
}
