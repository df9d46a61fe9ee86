// Whether work beside the head run pays (issue 22, "small suites stay fast"): tests.stable's early
// repeats run beside the head run on a copy of the head and on the cached base's tree. On a machine
// whose cores are busy they only share the head run's core, and the copy costs a checkout, so a
// warm judgment of a small suite got slower than a cold one. They start beside it only when a core
// is free for them; otherwise they wait for the main runs like every other repeat.
import { availableParallelism, loadavg } from "node:os";

/** The machine's cores less its load (the 1-minute load average), never below 0. */
export function idleCores(): number {
  return Math.max(0, availableParallelism() - (loadavg()[0] ?? 0));
}

/**
 * Whether a core is free beside the head run: the head run takes one, so one more must be idle,
 * most of it (the judge's own parent, busy laying out trees while this is asked, counts in the load).
 */
export function coreFreeBeside(idle: number): boolean {
  return idle >= 1.5;
}
