// GET /ranex/verdicts/<journal id>: the journal entry behind a check run, as JSON (details_url).
// A page for people comes later; the JSON is already what `ranex verify` reads.
import type { IncomingMessage, ServerResponse } from "node:http";
import { VERDICT_ROUTE, type AppDeps } from "./deps.js";

export function verdictRoute(deps: Pick<AppDeps, "findEntry">) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (!url.pathname.startsWith(VERDICT_ROUTE)) return false;
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, { error: "only GET" });
    const id = decodeURIComponent(url.pathname.slice(VERDICT_ROUTE.length));
    if (id === "" || id.includes("/")) return send(res, 404, { error: "no such verdict" });
    try {
      const entry = await deps.findEntry(id);
      return entry === null ? send(res, 404, { error: `no journal entry ${id}` }) : send(res, 200, entry);
    } catch {
      return send(res, 500, { error: "the journal could not be read" });
    }
  };
}

function send(res: ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(`${JSON.stringify(body, null, 2)}\n`);
  return true;
}
