import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serveGit } from "../helpers/git-http-backend.js";

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
    serveGit(req, res, projectRoot);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seenAuthorization,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
