// Content-creating writes spaced per installation, not per process (issue 21). GitHub asks for at
// least a second between POST/PATCH/PUT/DELETE requests of one installation; Probot's throttling
// spaces every write of the whole process instead, so two installations slowed each other and two
// workers sharing one did not see each other. Here each write reserves the next free slot of its
// installation in a store all workers share (Postgres when DATABASE_URL is set; in memory for the
// embedded server, which is one process per data dir) and waits for it.
//
// The installation is named by the repository's owner: an app has one installation per account.
// Writes outside a repository (token exchanges are not throttled at all) share the key "app".

export const WRITE_SPACING_MS = 1000;

export interface WriteSlots {
  /** Reserves the next slot of `key` and returns how many ms to wait for it. */
  reserve(key: string, spacingMs: number): Promise<number>;
}

/** One process's slots (the embedded server). */
export class MemoryWriteSlots implements WriteSlots {
  private readonly next = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async reserve(key: string, spacingMs: number): Promise<number> {
    const now = this.now();
    const slot = Math.max(this.next.get(key) ?? 0, now);
    this.next.set(key, slot + spacingMs);
    // Keys of installations idle for a while are forgotten: the map stays as small as the busy set.
    if (this.next.size > 1000) for (const [k, at] of this.next) if (at < now) this.next.delete(k);
    return slot - now;
  }
}

const AUTH = /^\/app\/installations\/[^/]+\/access_tokens$|^\/applications\//;

/** The installation key of a write, or null when the request is not a throttled write. */
export function writeKey(method: string, url: string, owner: unknown): string | null {
  if (method === "GET" || method === "HEAD") return null;
  const path = url.replace(/^https?:\/\/[^/]+/, "").replace(/^\/api\/v3(?=\/)/, "").split("?")[0] ?? "";
  if (AUTH.test(path)) return null;
  const named = typeof owner === "string" && owner !== "" ? owner : /^\/repos\/([^/{]+)\//.exec(path)?.[1];
  return named === undefined ? "app" : `installation:${decodeURIComponent(named).toLowerCase()}`;
}

interface RequestOptions { method: string; url: string; [key: string]: unknown }
type Request = (options: RequestOptions) => Promise<unknown>;
interface Hookable { hook: { wrap: (name: "request", wrapper: (request: Request, options: RequestOptions) => Promise<unknown>) => void } }

export interface ThrottleOptions {
  slots: WriteSlots;
  spacingMs?: number;
  sleep: (ms: number) => Promise<void>;
}

/** An Octokit plugin: every write waits for its installation's next slot (each retry too). */
export function spaceWrites(options: ThrottleOptions): (octokit: Hookable) => void {
  const spacing = options.spacingMs ?? WRITE_SPACING_MS;
  return (octokit) => {
    octokit.hook.wrap("request", async (request, opts) => {
      const key = writeKey(opts.method, opts.url, opts.owner);
      if (key !== null && spacing > 0) {
        const wait = await options.slots.reserve(key, spacing);
        if (wait > 0) await options.sleep(wait);
      }
      return request(opts);
    });
  };
}

/**
 * Probot's throttling keeps its read limits and its handling of rate-limit answers, but its write
 * group (one write a second per process) gives way to `spaceWrites`: a group that never waits.
 */
export const UNSPACED_GROUP = {
  key: () => ({
    schedule: <A extends unknown[], R>(_options: unknown, task: (...args: A) => R, ...args: A): R => task(...args),
  }),
};
