/** Per-stage wall-clock timings of one judgment, in milliseconds, for the verdict and the bench. */
export class Stopwatch {
  readonly timings: Record<string, number> = {};

  async time<T>(stage: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.record(stage, performance.now() - started);
    }
  }

  timeSync<T>(stage: string, work: () => T): T {
    const started = performance.now();
    try {
      return work();
    } finally {
      this.record(stage, performance.now() - started);
    }
  }

  record(stage: string, ms: number): void {
    this.timings[stage] = Math.round((this.timings[stage] ?? 0) + ms);
  }
}
