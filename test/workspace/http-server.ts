import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A real smart-HTTP git server for tests: node's http server running `git http-backend` as CGI.
// `requireAuthorization` makes it answer 401 unless that exact Authorization header arrives.

export interface GitHttpServer {
  url: string;
  seenAuthorization: string[];
  close(): Promise<void>;
}

export async function startGitHttpServer(projectRoot: string, requireAuthorization?: string): Promise<GitHttpServer> {
  const seenAuthorization: string[] = [];
  const server: Server = createServer((req, res) => {
    const auth = req.headers.authorization;
    if (auth !== undefined) seenAuthorization.push(auth);
    if (requireAuthorization !== undefined && auth !== requireAuthorization) {
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="test"' }).end();
      return;
    }
    const cgi = spawn("git", ["http-backend"], { env: cgiEnv(req, projectRoot), stdio: ["pipe", "pipe", "inherit"] });
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
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seenAuthorization,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function cgiEnv(req: IncomingMessage, projectRoot: string): NodeJS.ProcessEnv {
  const url = new URL(req.url ?? "/", "http://localhost");
  return {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    REQUEST_METHOD: req.method ?? "GET",
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ""),
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    REMOTE_ADDR: "127.0.0.1",
    ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"]) } : {}),
    ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
  };
}
