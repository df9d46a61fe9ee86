import type nock from "nock";

// GitHub's check runs API as nock interceptors that keep state (runs created, updated, listed), with
// faults a test switches on: an outage on a clock the test controls (the server's injected clock), or
// the next N answers of a kind. Every body still goes through the strict scope's OpenAPI check.

export interface MockRun {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  started_at?: string;
  external_id?: string;
  output?: { title?: string; summary?: string; text?: string };
  /** Every body this run received, in order. */
  bodies: Record<string, unknown>[];
  app?: { id: number };
}

export type Write = "create" | "update";

/** A fault for a write: the HTTP answer, or null to let it through. */
export type Fault = (write: Write, body: Record<string, unknown>) => { status: number; headers?: Record<string, string> } | null;

export class CheckRunsMock {
  readonly runs: MockRun[] = [];
  /** Every write attempt, accepted or not: [write, status]. */
  readonly attempts: [Write, number][] = [];
  fault: Fault = () => null;
  private nextId = 500;

  constructor(private readonly repo: string, private readonly appId: number) {}

  /**
   * Installs the interceptors on a persisted scope. They are optional (a test asserts on `runs` and
   * `attempts` what was written): a test of a delivery that must post nothing uses them too.
   */
  install(scope: nock.Scope, options: { list?: boolean; get?: boolean } = {}): void {
    scope.post(`${this.repo}/check-runs`).optionally().reply((_uri, body) => this.write("create", body as Record<string, unknown>, null));
    scope.patch(new RegExp(`^${escape(this.repo)}/check-runs/\\d+$`)).optionally().reply((uri, body) => this.write("update", body as Record<string, unknown>, Number(/(\d+)$/.exec(uri)?.[1])));
    if (options.get === true) scope.get(new RegExp(`^${escape(this.repo)}/check-runs/\\d+$`)).optionally().reply((uri) => [200, this.runs.find((r) => r.id === Number(/(\d+)$/.exec(uri)?.[1]))]);
    if (options.list === true) {
      scope.get(new RegExp(`^${escape(this.repo)}/commits/[0-9a-f]{40}/check-runs\\?`)).reply((uri) => {
        const url = new URL(uri, "https://api.github.com");
        const sha = /commits\/([0-9a-f]{40})\//.exec(uri)?.[1];
        const runs = this.runs.filter((r) => r.head_sha === sha && r.name === url.searchParams.get("check_name")).reverse();
        return [200, { total_count: runs.length, check_runs: runs.slice(0, Number(url.searchParams.get("per_page") ?? 30)) }];
      });
    }
  }

  /** A run a process that died left behind (another process, long ago). */
  plant(run: Omit<MockRun, "bodies" | "id">): MockRun {
    const planted = { ...run, id: this.nextId++, bodies: [] };
    this.runs.push(planted);
    return planted;
  }

  of(head: string, name = "ranex/judge"): MockRun[] {
    return this.runs.filter((r) => r.head_sha === head && r.name === name);
  }

  private write(write: Write, body: Record<string, unknown>, id: number | null): [number, unknown, Record<string, string>?] {
    const fault = this.fault(write, body);
    this.attempts.push([write, fault?.status ?? (write === "create" ? 201 : 200)]);
    if (fault !== null) return [fault.status, { message: fault.status >= 500 ? "Server Error" : "refused" }, fault.headers ?? {}];
    if (write === "create") {
      const run: MockRun = { id: this.nextId++, name: String(body.name), head_sha: String(body.head_sha), status: "queued", conclusion: null, bodies: [], app: { id: this.appId } };
      this.runs.push(run);
      apply(run, body);
      return [201, run];
    }
    const run = this.runs.find((r) => r.id === id);
    if (run === undefined) return [404, { message: "Not Found" }];
    apply(run, body);
    return [200, run];
  }
}

function apply(run: MockRun, body: Record<string, unknown>): void {
  run.bodies.push(body);
  const { status, conclusion, output, external_id: externalId, started_at: startedAt } = body as Partial<MockRun> & { output?: MockRun["output"] };
  if (typeof status === "string") run.status = status;
  if (typeof conclusion === "string") {
    run.conclusion = conclusion;
    run.status = "completed";
  }
  if (output !== undefined) run.output = output;
  if (typeof externalId === "string") run.external_id = externalId;
  if (typeof startedAt === "string") run.started_at = startedAt;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
