import { spawn } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";

// Serves bare repositories (test fixtures) over git's smart HTTP protocol by running `git http-backend` as CGI, the
// way GitHub serves clones: only the fetch side (upload-pack), never a push.

export function serveGit(req: IncomingMessage, res: ServerResponse, projectRoot: string): void {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.searchParams.get("service") === "git-receive-pack" || url.pathname.endsWith("/git-receive-pack")) {
    res.writeHead(403).end("read only\n");
    return;
  }
  const cgi = spawn("git", ["http-backend"], {
    env: {
      PATH: process.env.PATH, GIT_PROJECT_ROOT: projectRoot, GIT_HTTP_EXPORT_ALL: "1", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null",
      REQUEST_METHOD: req.method ?? "GET", PATH_INFO: decodeURIComponent(url.pathname), QUERY_STRING: url.search.replace(/^\?/, ""),
      CONTENT_TYPE: req.headers["content-type"] ?? "", REMOTE_ADDR: "127.0.0.1",
      ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"]) } : {}),
      ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
    },
    stdio: ["pipe", "pipe", "ignore"],
  });
  req.pipe(cgi.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  cgi.stdout.on("data", (chunk: Buffer) => {
    if (headersDone) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end === -1) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  cgi.stdout.on("end", () => res.end());
  cgi.on("error", () => res.destroy());
}
