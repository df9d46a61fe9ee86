// GET /healthz: can this replica do its work? The journal answers, bubblewrap can build a sandbox,
// the queue answers (and how deep it is), and which version runs. 200 when all hold, 503 otherwise,
// with the same JSON either way so a person sees which part failed.
import type { SandboxCheck } from "../sandbox/check.js";
import type { DeliveryQueue, QueueDepth } from "../queue/types.js";
import { GATE_VERSION } from "../version.js";
import { probeSandboxKeyless } from "./sandbox-probe.js";

export interface HealthDeps {
  queue: DeliveryQueue;
  /** Reads the journal's head; throws when the journal cannot be reached. */
  journalHead: () => Promise<unknown>;
  /** Whether this process judges (a webhook-only replica needs no sandbox). */
  judges: boolean;
  sandbox?: () => Promise<SandboxCheck>;
}

export interface Health {
  ok: boolean;
  version: string;
  journal: { ok: boolean; error?: string };
  sandbox: { ok: boolean; problem?: string; fix?: string } | { ok: true; skipped: string };
  queue: { ok: boolean; kind: string; error?: string } & Partial<QueueDepth>;
}

/** The sandbox probe starts bwrap: remembered for a minute so a busy health checker costs little. */
const SANDBOX_CACHE_MS = 60_000;

export function healthCheck(deps: HealthDeps): () => Promise<Health> {
  let sandbox: { at: number; result: Promise<SandboxCheck> } | null = null;
  const probe = deps.sandbox ?? probeSandboxKeyless;
  return async () => {
    if (deps.judges && (sandbox === null || Date.now() - sandbox.at > SANDBOX_CACHE_MS)) {
      sandbox = { at: Date.now(), result: probe().catch((err: unknown) => ({ ok: false, problem: String(err) })) };
    }
    const [journal, box, queue] = await Promise.all([
      deps.journalHead().then(() => ({ ok: true }), (err: unknown) => ({ ok: false, error: errorText(err) })),
      sandbox === null ? { ok: true as const, skipped: "this replica does not judge" } : sandbox.result,
      deps.queue.depth().then((depth) => ({ ok: true, kind: deps.queue.kind, ...depth }), (err: unknown) => ({ ok: false, kind: deps.queue.kind, error: errorText(err) })),
    ]);
    return { ok: journal.ok && box.ok && queue.ok, version: GATE_VERSION, journal, sandbox: box, queue };
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
