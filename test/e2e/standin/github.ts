import { execFileSync } from "node:child_process";
import { createPublicKey, randomBytes, verify } from "node:crypto";
import { mkdirSync, mkdtempSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requestProblems } from "../../helpers/openapi.js";
import { serveGit } from "../../helpers/git-http-backend.js";

// A stand-in for GitHub on loopback, for tests that run the real server process: the REST endpoints
// the app uses (each request body checked against GitHub's OpenAPI description), installation tokens
// for an app JWT it verifies, and the repositories over git's smart HTTP, only with a token it issued.
// Faults can be switched on: 502s, or a secondary rate limit, for the requests a pattern matches.

export interface CheckRun {
  id: number; owner: string; repo: string; name: string; head_sha: string; status: string;
  conclusion: string | null; external_id?: string; details_url?: string; output?: { title?: string; summary?: string };
  /** Every body this check run received, in order. */
  bodies: Record<string, unknown>[];
}

export interface Pull { number: number; head: string; base: string; headRef: string; author: string; body: string; labels: string[] }

interface Fault { pattern: RegExp; kind: "502" | "secondary-rate-limit"; left: number }

export class GitHubStandIn {
  readonly checkRuns: CheckRun[] = [];
  readonly comments: { issue: number; body: string }[] = [];
  /** Strict-mock complaints: invalid bodies, bad credentials, endpoints the stand-in does not know. */
  readonly problems: string[] = [];
  readonly log: string[] = [];
  readonly pulls = new Map<string, Pull>();
  readonly permissions = new Map<string, string>();
  /** Reviews per pull request (`owner/repo#N`), as `GET /pulls/N/reviews` lists them. */
  readonly reviews = new Map<string, Record<string, unknown>[]>();
  // Not the tests' tempDir (it registers a vitest hook): the bench runs the stand-in outside vitest.
  readonly gitRoot = mkdtempSync(join(tmpdir(), "ranex-standin-git-"));
  private readonly tokens = new Set<string>();
  private readonly faults: Fault[] = [];
  private nextId = 1000;
  private server!: Server;
  url = "";

  constructor(private readonly appId: number, private readonly privateKeyPem: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res).catch((err: unknown) => {
      this.problems.push(`stand-in crashed on ${req.method} ${req.url}: ${String(err)}`);
      if (!res.headersSent) res.writeHead(500).end();
    }));
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A new commit with `rev`'s tree and `rev` as parent, as the head of pull request `number`: distinct heads, same change. */
  pullWithOwnHead(owner: string, name: string, number: number, rev: string): string {
    const dir = join(this.gitRoot, owner, `${name}.git`);
    const env = { ...process.env, GIT_AUTHOR_NAME: "agent", GIT_AUTHOR_EMAIL: "agent@example.com", GIT_COMMITTER_NAME: "agent", GIT_COMMITTER_EMAIL: "agent@example.com" };
    const sha = execFileSync("git", ["-C", dir, "commit-tree", `${rev}^{tree}`, "-p", rev, "-m", `pull request ${number}`], { encoding: "utf8", env }).trim();
    execFileSync("git", ["-C", dir, "update-ref", `refs/pull/${number}/head`, sha]);
    return sha;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** A bare mirror of `source` served as owner/name, with refs/pull/<n>/head for each given branch. */
  addRepo(owner: string, name: string, source: string, pulls: Record<number, string> = {}): string {
    const dir = join(this.gitRoot, owner, `${name}.git`);
    mkdirSync(join(this.gitRoot, owner), { recursive: true });
    execFileSync("git", ["clone", "-q", "--mirror", source, dir]);
    for (const [number, branch] of Object.entries(pulls)) execFileSync("git", ["-C", dir, "update-ref", `refs/pull/${number}/head`, `refs/heads/${branch}`]);
    return `${this.url}/${owner}/${name}.git`;
  }

  rev(owner: string, name: string, rev: string): string {
    return execFileSync("git", ["-C", join(this.gitRoot, owner, `${name}.git`), "rev-parse", rev], { encoding: "utf8" }).trim();
  }

  /** The next `times` requests matching `pattern` ("PATCH /repos/o/r/check-runs/1") get the fault. */
  fault(pattern: RegExp, kind: Fault["kind"], times: number): void {
    this.faults.push({ pattern, kind, left: times });
  }

  runsFor(head: string, name = "ranex/judge"): CheckRun[] {
    return this.checkRuns.filter((run) => run.head_sha === head && run.name === name);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    if (/^\/[^/]+\/[^/]+\.git\//.test(url.pathname)) return this.git(req, res);
    const path = url.pathname.replace(/^\/api\/v3(?=\/)/, "");
    const method = req.method ?? "GET";
    const body = await readJson(req);
    this.log.push(`${method} ${path}`);
    if (body !== undefined || ["POST", "PATCH", "PUT"].includes(method)) this.problems.push(...requestProblems(method, path, body));
    const fault = this.faults.find((f) => f.left > 0 && f.pattern.test(`${method} ${path}`));
    if (fault !== undefined) {
      fault.left -= 1;
      if (fault.kind === "502") return send(res, 502, { message: "Bad Gateway" });
      return send(res, 403, { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again." }, { "retry-after": "1" });
    }
    const token = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (method === "POST" && token !== null) return this.issueToken(req, res);
    const auth = /^token (\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (auth === undefined || !this.tokens.has(auth)) {
      this.problems.push(`${method} ${path} without a valid installation token`);
      return send(res, 401, { message: "Bad credentials" });
    }
    return this.rest(method, path, url, body as Record<string, unknown> | undefined, res);
  }

  private git(req: IncomingMessage, res: ServerResponse): void {
    const basic = /^basic (\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const [user, token] = Buffer.from(basic ?? "", "base64").toString("utf8").split(":");
    if (user !== "x-access-token" || token === undefined || !this.tokens.has(token)) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="GitHub"' }).end();
      return;
    }
    serveGit(req, res, this.gitRoot);
  }

  private issueToken(req: IncomingMessage, res: ServerResponse): void {
    const jwt = /^bearer (\S+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "";
    const [header = "", claims = "", signature = ""] = jwt.split(".");
    const valid = verify("RSA-SHA256", Buffer.from(`${header}.${claims}`), createPublicKey(this.privateKeyPem), Buffer.from(signature, "base64url"));
    const iss = (JSON.parse(Buffer.from(claims, "base64url").toString("utf8") || "{}") as { iss?: unknown }).iss;
    if (!valid || String(iss) !== String(this.appId)) {
      this.problems.push("an installation token was asked for without a valid app JWT");
      return send(res, 401, { message: "A JSON web token could not be decoded" });
    }
    const token = `ghs_standin${randomBytes(12).toString("hex")}`;
    this.tokens.add(token);
    send(res, 201, { token, expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: { checks: "write", contents: "read" }, repository_selection: "all" });
  }

  private rest(method: string, path: string, url: URL, body: Record<string, unknown> | undefined, res: ServerResponse): void {
    const m = (pattern: RegExp): string[] | null => pattern.exec(path)?.slice(1) ?? null;
    let p: string[] | null;
    if (method === "POST" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/check-runs$/))) {
      const run: CheckRun = { id: this.nextId++, owner: p[0]!, repo: p[1]!, name: String(body?.name), head_sha: String(body?.head_sha), status: body?.conclusion !== undefined ? "completed" : String(body?.status ?? "queued"), conclusion: (body?.conclusion as string | undefined) ?? null, output: body?.output as CheckRun["output"], bodies: [body ?? {}] };
      this.checkRuns.push(run);
      return send(res, 201, this.checkJson(run));
    }
    if ((p = m(/^\/repos\/[^/]+\/[^/]+\/check-runs\/(\d+)$/))) {
      const run = this.checkRuns.find((r) => r.id === Number(p![0]));
      if (run === undefined) return send(res, 404, { message: "Not Found" });
      if (method === "PATCH") {
        run.bodies.push(body ?? {});
        Object.assign(run, body);
        if (body?.conclusion !== undefined) run.status = "completed";
      }
      return send(res, 200, this.checkJson(run));
    }
    if (method === "GET" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/commits\/([^/]+)\/check-runs$/))) {
      const runs = this.checkRuns.filter((r) => r.head_sha === p![2] && (url.searchParams.get("check_name") ?? r.name) === r.name);
      return send(res, 200, { total_count: runs.length, check_runs: runs.map((r) => this.checkJson(r)) });
    }
    if (method === "GET" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/contents\/(.+)$/))) {
      const ref = url.searchParams.get("ref") ?? "HEAD";
      try {
        const content = execFileSync("git", ["-C", join(this.gitRoot, p[0]!, `${p[1]!}.git`), "show", `${ref}:${decodeURIComponent(p[2]!)}`]);
        return send(res, 200, { type: "file", encoding: "base64", content: content.toString("base64"), path: decodeURIComponent(p[2]!) });
      } catch {
        return send(res, 404, { message: "Not Found" });
      }
    }
    if (method === "GET" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/))) {
      const pull = this.pulls.get(`${p[0]}/${p[1]}#${p[2]}`);
      return pull === undefined ? send(res, 404, { message: "Not Found" }) : send(res, 200, this.pullJson(p[0]!, p[1]!, pull));
    }
    if (method === "GET" && (p = m(/^\/repos\/[^/]+\/[^/]+\/collaborators\/([^/]+)\/permission$/))) {
      const permission = this.permissions.get(p[0]!) ?? "read";
      return send(res, 200, { permission, role_name: permission, user: { login: p[0], type: "User" } });
    }
    if (method === "POST" && (p = m(/^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/))) {
      this.comments.push({ issue: Number(p[0]), body: String(body?.body) });
      return send(res, 201, { id: this.nextId++, body: body?.body });
    }
    if (method === "POST" && m(/^\/repos\/[^/]+\/[^/]+\/issues\/comments\/\d+\/reactions$/)) return send(res, 201, { id: this.nextId++, content: body?.content });
    if (method === "POST" && m(/^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/labels$/)) return send(res, 200, []);
    if (method === "GET" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/reviews$/))) return send(res, 200, this.reviews.get(`${p[0]}/${p[1]}#${p[2]}`) ?? []);
    if (method === "GET" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/commits$/))) {
      const pull = this.pulls.get(`${p[0]}/${p[1]}#${p[2]}`);
      return pull === undefined ? send(res, 404, { message: "Not Found" }) : send(res, 200, this.commitsOf(p[0]!, p[1]!, pull));
    }
    // The open pull requests whose head is this commit (GitHub lists merged ones too; none are merged here).
    if (method === "GET" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/commits\/([^/]+)\/pulls$/))) {
      const owner = p[0]!;
      const repo = p[1]!;
      const sha = p[2]!;
      const open = [...this.pulls.entries()].filter(([key, pull]) => key.startsWith(`${owner}/${repo}#`) && pull.head === sha);
      return send(res, 200, open.map(([, pull]) => this.pullJson(owner, repo, pull)));
    }
    if (method === "GET" && m(/^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/timeline$/)) return send(res, 200, []);
    if (method === "GET" && m(/^\/repos\/[^/]+\/[^/]+\/branches\/[^/]+\/protection\/required_status_checks$/)) return send(res, 404, { message: "Branch not protected" });
    if (method === "GET" && m(/^\/repos\/[^/]+\/[^/]+\/rules\/branches\/[^/]+$/)) return send(res, 200, []);
    if (method === "GET" && (p = m(/^\/users\/([^/]+)$/))) return send(res, 200, { login: p[0], type: p[0]!.endsWith("[bot]") ? "Bot" : "User" });
    this.problems.push(`the stand-in does not answer ${method} ${path}`);
    send(res, 404, { message: "Not Found" });
  }

  /** The pull request's commits as `pulls/N/commits` lists them, from git (`base..head`, oldest first). */
  private commitsOf(owner: string, repo: string, pull: Pull): Record<string, unknown>[] {
    const dir = join(this.gitRoot, owner, `${repo}.git`);
    const log = execFileSync("git", ["-C", dir, "log", "--reverse", "--format=%H%x00%P%x00%an%x00%ae%x00%cn%x00%ce%x00%B%x1e", `${pull.base}..${pull.head}`], { encoding: "utf8" });
    return log.split("\x1e").map((r) => r.replace(/^\n/, "")).filter((r) => r !== "").map((record) => {
      const [sha, parents, an, ae, cn, ce, message] = record.split("\0");
      const date = "2026-01-01T00:00:00Z";
      return {
        sha, author: null, committer: null, parents: (parents ?? "").split(" ").filter((x) => x !== "").map((x) => ({ sha: x })),
        commit: { author: { name: an, email: ae, date }, committer: { name: cn, email: ce, date }, message: (message ?? "").trimEnd() },
      };
    });
  }

  private checkJson(run: CheckRun): Record<string, unknown> {
    const { bodies: _bodies, owner: _owner, repo: _repo, ...json } = run;
    return json;
  }

  private pullJson(owner: string, repo: string, pull: Pull): Record<string, unknown> {
    const repository = { name: repo, full_name: `${owner}/${repo}`, owner: { login: owner }, clone_url: `${this.url}/${owner}/${repo}.git` };
    return {
      number: pull.number, draft: false, state: "open", body: pull.body, commits: this.commitsOf(owner, repo, pull).length, user: { login: pull.author, type: "User" }, labels: pull.labels.map((name) => ({ name })),
      head: { sha: pull.head, ref: pull.headRef, repo: repository }, base: { sha: pull.base, ref: "main", repo: repository },
    };
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? undefined : JSON.parse(text) as unknown;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(body));
}
