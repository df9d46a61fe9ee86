// The operations routes, as a Probot addHandler handler: GET /healthz and GET /metrics.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Health } from "./health.js";
import type { Metrics } from "./metrics.js";

export interface OpsDeps {
  health: () => Promise<Health>;
  metrics: Metrics;
}

export function opsRoutes(ops: OpsDeps): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return async (req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    if (path === "/healthz") {
      const health = await ops.health();
      res.writeHead(health.ok ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" }).end(`${JSON.stringify(health)}\n`);
      return true;
    }
    if (path === "/metrics") {
      const text = await ops.metrics.registry.metrics();
      res.writeHead(200, { "content-type": ops.metrics.registry.contentType }).end(text);
      return true;
    }
    return false;
  };
}
