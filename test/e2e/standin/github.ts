import { execFileSync } from "node:child_process";
import { createPublicKey, randomBytes, verify } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { requestProblems } from "../../helpers/openapi.js";
import { serveGit } from "../../helpers/git-http-backend.js";

// A stand-in for GitHub on loopback, for tests that run the real server process: the REST endpoints
// the app uses (each request body checked against GitHub's OpenAPI description), installation tokens
// for an app JWT it verifies, and the repositories over git's smart HTTP, only with a token it issued.
// Faults can be switched on: 502s, or a secondary rate limit, for the requests a pattern matches.

export interface CheckRun {
  id: number; owner: string; repo: string; name: string; head_sha: string; status: string;
  conclusion: string | null; external_id?: string; details_url?: string; output?: { title?: string; summary?: string; text?: string };
  /** The app that posted it: this stand-in's app unless a test plants another app's run. */
  appId?: number;
  /** Every body this check run received, in order. */
  bodies: Record<string, unknown>[];
}

export interface Pull {
  number: number; head: string; base: string; headRef: string; author: string; body: string; labels: string[];
  /** The base branch's name (`main` when not given). */
  baseRef?: string;
  /** `open` when not given. */
  state?: string;
  updatedAt?: string;
  /** Merged (state closed): the commit it landed as, a merge queue's group commit when the queue merged it. */
  mergeCommit?: string;
}

interface Fault { pattern: RegExp; kind: "502" | "secondary-rate-limit"; left: number }

export class GitHubStandIn {
  readonly checkRuns: CheckRun[] = [];
  readonly comments: { issue: number; body: string }[] = [];
  /** Strict-mock complaints: invalid bodies, bad credentials, endpoints the stand-in does not know. */
  readonly problems: string[] = [];
  readonly log: string[] = [];
  /** Every request the app sent to the API, with its body as received: what a leak test greps. */
  readonly sent: string[] = [];
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

  /** Commits `files` (null deletes) on top of `branch` in the served repository and moves the branch: its new tip. */
  commitOnBranch(owner: string, name: string, branch: string, files: Record<string, string | null>, message: string): string {
    const dir = join(this.gitRoot, owner, `${name}.git`);
    const work = mkdtempSync(join(tmpdir(), "ranex-standin-work-"));
    const env = { ...process.env, GIT_AUTHOR_NAME: "maintainer", GIT_AUTHOR_EMAIL: "maintainer@example.com", GIT_COMMITTER_NAME: "maintainer", GIT_COMMITTER_EMAIL: "maintainer@example.com" };
    const git = (...args: string[]): string => execFileSync("git", ["-C", work, ...args], { encoding: "utf8", env }).trim();
    execFileSync("git", ["clone", "-q", "--branch", branch, dir, work], { env });
    for (const [path, content] of Object.entries(files)) {
      if (content === null) git("rm", "-q", path);
      else {
        mkdirSync(dirname(join(work, path)), { recursive: true });
        writeFileSync(join(work, path), content);
        git("add", path);
      }
    }
    git("commit", "-q", "-m", message);
    git("push", "-q", "origin", `HEAD:refs/heads/${branch}`);
    const sha = git("rev-parse", "HEAD");
    rmSync(work, { recursive: true, force: true });
    return sha;
  }

  /** Makes `branch` point at `rev` in the served repository. */
  branch(owner: string, name: string, branch: string, rev: string): void {
    execFileSync("git", ["-C", join(this.gitRoot, owner, `${name}.git`), "update-ref", `refs/heads/${branch}`, this.rev(owner, name, rev)]);
  }

  /** A file's text at `rev` of the served repository. */
  show(owner: string, name: string, rev: string, path: string): string {
    return execFileSync("git", ["-C", join(this.gitRoot, owner, `${name}.git`), "show", `${rev}:${path}`], { encoding: "utf8" });
  }

  rev(owner: string, name: string, rev: string): string {
    return execFileSync("git", ["-C", join(this.gitRoot, owner, `${name}.git`), "rev-parse", rev], { encoding: "utf8" }).trim();
  }

  /** An installation token this stand-in accepts, as a person's GITHUB_TOKEN would be in tests. */
  mintToken(): string {
    const token = `ghs_standin${randomBytes(12).toString("hex")}`;
    this.tokens.add(token);
    return token;
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
    this.sent.push(`${method} ${req.url ?? path}\n${body === undefined ? "" : JSON.stringify(body)}`);
    // Every request, GETs too: an endpoint GitHub does not have is a problem even without a body.
    this.problems.push(...requestProblems(method, path, body));
    const fault = this.faults.find((f) => f.left > 0 && f.pattern.test(`${method} ${path}`));
    if (fault !== undefined) {
      fault.left -= 1;
      if (fault.kind === "502") return send(res, 502, { message: "Bad Gateway" });
      return send(res, 403, { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again." }, { "retry-after": "1" });
    }
    const token = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (method === "POST" && token !== null) return this.issueToken(req, res);
    const installation = /^\/repos\/([^/]+)\/([^/]+)\/installation$/.exec(path);
    if (method === "GET" && installation !== null) return this.repoInstallation(req, res, installation[1]!);
    if (method === "GET" && path === "/app/installations") {
      if (!this.validJwt(req)) return send(res, 401, { message: "A JSON web token could not be decoded" });
      return send(res, 200, [{ id: 1, account: { login: "Codertocat" }, suspended_at: null }]);
    }
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

  private validJwt(req: IncomingMessage): boolean {
    const jwt = /^bearer (\S+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "";
    const [header = "", claims = "", signature = ""] = jwt.split(".");
    const valid = verify("RSA-SHA256", Buffer.from(`${header}.${claims}`), createPublicKey(this.privateKeyPem), Buffer.from(signature, "base64url"));
    const iss = (JSON.parse(Buffer.from(claims, "base64url").toString("utf8") || "{}") as { iss?: unknown }).iss;
    if (valid && String(iss) === String(this.appId)) return true;
    this.problems.push("an app endpoint was asked without a valid app JWT");
    return false;
  }

  private issueToken(req: IncomingMessage, res: ServerResponse): void {
    if (!this.validJwt(req)) return send(res, 401, { message: "A JSON web token could not be decoded" });
    const token = `ghs_standin${randomBytes(12).toString("hex")}`;
    this.tokens.add(token);
    send(res, 201, { token, expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: { checks: "write", contents: "read" }, repository_selection: "all" });
  }

  private rest(method: string, path: string, url: URL, body: Record<string, unknown> | undefined, res: ServerResponse): void {
    const m = (pattern: RegExp): string[] | null => pattern.exec(path)?.slice(1) ?? null;
    let p: string[] | null;
    if (method === "POST" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/check-runs$/))) {
      const run: CheckRun = { id: this.nextId++, owner: p[0]!, repo: p[1]!, name: String(body?.name), head_sha: String(body?.head_sha), status: body?.conclusion !== undefined ? "completed" : String(body?.status ?? "queued"), conclusion: (body?.conclusion as string | undefined) ?? null, output: body?.output as CheckRun["output"], bodies: [body ?? {}],
        ...(typeof body?.external_id === "string" ? { external_id: body.external_id } : {}), ...(typeof body?.details_url === "string" ? { details_url: body.details_url } : {}) };
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
      const appId = url.searchParams.get("app_id");
      const runs = this.checkRuns.filter((r) => r.owner === p![0] && r.repo === p![1] && r.head_sha === p![2] && (url.searchParams.get("check_name") ?? r.name) === r.name &&
        (appId === null || String(r.appId ?? this.appId) === appId));
      const page = paged(url, runs);
      return send(res, 200, { total_count: runs.length, check_runs: page.items.map((r) => this.checkJson(r)) }, page.headers);
    }
    if (method === "GET" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/pulls$/))) {
      const base = url.searchParams.get("base");
      const listed = this.listPulls(p[0]!, p[1]!, url.searchParams.get("state") ?? "open").filter((pull) => base === null || (pull.baseRef ?? "main") === base);
      const page = paged(url, listed);
      return send(res, 200, page.items.map((pull) => this.pullJson(p![0]!, p![1]!, pull)), page.headers);
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
    if (method === "GET" && path === "/installation/repositories") {
      const repositories = readdirSync(this.gitRoot).flatMap((owner) => readdirSync(join(this.gitRoot, owner)).filter((d) => d.endsWith(".git"))
        .map((d) => this.repositoryJson(owner, d.slice(0, -".git".length))));
      return send(res, 200, { total_count: repositories.length, repositories });
    }
    if (method === "GET" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/commits\/([0-9a-f]{40})\/pulls$/))) {
      const pulls = this.pullsOf(p[0]!, p[1]!).filter((pull) => pull.head === p![2]);
      return send(res, 200, pulls.map((pull) => this.pullJson(p![0]!, p![1]!, pull)));
    }
    if (method === "GET" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/branches\/([^/]+)$/))) {
      try {
        return send(res, 200, { name: decodeURIComponent(p[2]!), commit: { sha: this.rev(p[0]!, p[1]!, `refs/heads/${decodeURIComponent(p[2]!)}`) } });
      } catch {
        return send(res, 404, { message: "Branch not found" });
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
    // The approval reads every hand in the change from these, and refuses when GitHub counts more commits than it lists.
    if (method === "GET" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/commits$/))) {
      const pull = this.pulls.get(`${p[0]}/${p[1]}#${p[2]}`);
      if (pull === undefined) return send(res, 404, { message: "Not Found" });
      const page = paged(url, this.commitsOf(p[0]!, p[1]!, pull));
      return send(res, 200, page.items, page.headers);
    }
    // The pull request's timeline (force pushes name their pusher): none here.
    if (method === "GET" && m(/^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/timeline$/)) return send(res, 200, []);
    if (method === "GET" && m(/^\/repos\/[^/]+\/[^/]+\/branches\/[^/]+\/protection\/required_status_checks$/)) return send(res, 404, { message: "Branch not protected" });
    if (method === "GET" && m(/^\/repos\/[^/]+\/[^/]+\/rules\/branches\/[^/]+$/)) return send(res, 200, []);
    if (method === "GET" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/compare\/([0-9a-f]{40})\.\.\.([0-9a-f]{40})$/))) return send(res, 200, this.compare(p[0]!, p[1]!, p[2]!, p[3]!, url));
    if (method === "GET" && (p = m(/^\/repos\/([^/]+)\/([^/]+)\/git\/matching-refs\/(.+)$/))) return send(res, 200, this.matchingRefs(p[0]!, p[1]!, decodeURIComponent(p[2]!)));
    if (method === "GET" && (p = m(/^\/users\/([^/]+)$/))) return send(res, 200, { login: p[0], type: p[0]!.endsWith("[bot]") ? "Bot" : "User" });
    this.problems.push(`the stand-in does not answer ${method} ${path}`);
    send(res, 404, { message: "Not Found" });
  }

  private checkJson(run: CheckRun): Record<string, unknown> {
    const { bodies: _bodies, owner, repo, appId, ...json } = run;
    const output = { title: null, summary: null, text: null, annotations_count: 0, ...json.output };
    return {
      ...json, external_id: json.external_id ?? null, output, html_url: `${this.url}/${owner}/${repo}/runs/${run.id}`,
      app: { id: appId ?? this.appId, slug: appId === undefined ? "ranex-gate" : `app-${appId}` },
    };
  }

  /** `compare/{base}...{head}` from the served repository: the commits in head not in base, oldest first, paginated. */
  private compare(owner: string, repo: string, base: string, head: string, url: URL): Record<string, unknown> {
    const git = (...args: string[]): string => execFileSync("git", ["-C", join(this.gitRoot, owner, `${repo}.git`), ...args], { encoding: "utf8" }).trim();
    const ahead = git("rev-list", "--reverse", `${base}..${head}`).split("\n").filter(Boolean);
    const behind = git("rev-list", `${head}..${base}`).split("\n").filter(Boolean);
    const perPage = Number(url.searchParams.get("per_page") ?? 250);
    const page = Number(url.searchParams.get("page") ?? 1);
    const status = ahead.length === 0 && behind.length === 0 ? "identical" : behind.length === 0 ? "ahead" : ahead.length === 0 ? "behind" : "diverged";
    return {
      status, ahead_by: ahead.length, behind_by: behind.length, total_commits: ahead.length,
      commits: ahead.slice((page - 1) * perPage, page * perPage).map((sha) => ({
        sha, commit: { message: git("log", "-1", "--format=%B", sha) }, parents: git("log", "-1", "--format=%P", sha).split(" ").filter(Boolean).map((parent) => ({ sha: parent })),
      })), files: [],
    };
  }

  /** `git/matching-refs/{ref}`: every ref of the served repository under `refs/<ref>`. */
  private matchingRefs(owner: string, repo: string, prefix: string): Record<string, unknown>[] {
    const lines = execFileSync("git", ["-C", join(this.gitRoot, owner, `${repo}.git`), "for-each-ref", "--format=%(refname) %(objectname)", `refs/${prefix}`], { encoding: "utf8" });
    return lines.split("\n").filter(Boolean).map((line) => {
      const [ref = "", sha = ""] = line.split(" ");
      return { ref, object: { sha, type: "commit" } };
    }).filter((r) => r.ref.startsWith(`refs/${prefix}`));
  }

  /**
   * A merge queue entry as GitHub builds it with the merge method: a merge commit of the pull
   * request's head onto `onto` (the base or the entry ahead), on `gh-readonly-queue/<base>/pr-<n>-<onto>`.
   */
  queueEntry(owner: string, name: string, base: string, number: number, onto: string, head: string, message = `Merge pull request #${number}`): { sha: string; ref: string } {
    const dir = join(this.gitRoot, owner, `${name}.git`);
    const env = { ...process.env, GIT_AUTHOR_NAME: "GitHub", GIT_AUTHOR_EMAIL: "noreply@github.com", GIT_COMMITTER_NAME: "GitHub", GIT_COMMITTER_EMAIL: "noreply@github.com" };
    const tree = execFileSync("git", ["-C", dir, "merge-tree", "--write-tree", onto, head], { encoding: "utf8", env }).trim().split("\n")[0]!;
    const sha = execFileSync("git", ["-C", dir, "commit-tree", tree, "-p", onto, "-p", head, "-m", message], { encoding: "utf8", env }).trim();
    const ref = `refs/heads/gh-readonly-queue/${base}/pr-${number}-${onto}`;
    execFileSync("git", ["-C", dir, "update-ref", ref, sha]);
    return { sha, ref };
  }

  /** The pull requests GET /pulls lists: the ones a test registered, and every refs/pull/N/head of the repository, newest update first. */
  private listPulls(owner: string, repo: string, state: string): Pull[] {
    // Known pulls by state; every refs/pull/N/head of the repository joins only a listing of all states
    // (the journal's read-back), so the reconcile sweep never meets pulls no test registered.
    const known = this.pullsOf(owner, repo).filter((pull) => state === "all" || (pull.state ?? "open") === state);
    if (state !== "all") return known.sort((a, b) => (b.updatedAt ?? "").localeCompare(a.updatedAt ?? "") || b.number - a.number);
    const dir = join(this.gitRoot, owner, `${repo}.git`);
    const refs = existsSync(dir) ? execFileSync("git", ["-C", dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/pull/"], { encoding: "utf8" }) : "";
    const pulls = [...known];
    for (const line of refs.split("\n").filter(Boolean)) {
      const [ref = "", sha = ""] = line.split(" ");
      const number = Number(/^refs\/pull\/(\d+)\/head$/.exec(ref)?.[1] ?? NaN);
      if (Number.isNaN(number) || pulls.some((pull) => pull.number === number)) continue;
      pulls.push({ number, head: sha, base: this.rev(owner, repo, "HEAD"), headRef: `pull-${number}`, author: "agent", body: "", labels: [] });
    }
    return pulls.sort((a, b) => (b.updatedAt ?? "").localeCompare(a.updatedAt ?? "") || b.number - a.number);
  }

  private repoInstallation(req: IncomingMessage, res: ServerResponse, owner: string): void {
    if (!this.validJwt(req)) return send(res, 401, { message: "A JSON web token could not be decoded" });
    send(res, 200, { id: 1, app_id: this.appId, account: { login: owner }, target_type: "Organization", permissions: { checks: "write", contents: "read" } });
  }

  /** The pull request's commits as `pulls/N/commits` lists them, from git (`base..head`, oldest first). */
  private commitsOf(owner: string, repo: string, pull: Pull): Record<string, unknown>[] {
    const dir = join(this.gitRoot, owner, `${repo}.git`);
    // A pull request registered for a repository with no git behind it (the journal read-back) has none.
    if (!existsSync(dir)) return [];
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

  private pullsOf(owner: string, repo: string): Pull[] {
    return [...this.pulls.entries()].filter(([key]) => key.startsWith(`${owner}/${repo}#`)).map(([, pull]) => pull);
  }

  private repositoryJson(owner: string, repo: string): Record<string, unknown> {
    return { name: repo, full_name: `${owner}/${repo}`, owner: { login: owner }, clone_url: `${this.url}/${owner}/${repo}.git`, archived: false };
  }

  private pullJson(owner: string, repo: string, pull: Pull): Record<string, unknown> {
    const repository = this.repositoryJson(owner, repo);
    return {
      number: pull.number, draft: false, state: pull.state ?? "open", body: pull.body, commits: this.commitsOf(owner, repo, pull).length, updated_at: pull.updatedAt ?? new Date().toISOString(),
      merged_at: pull.mergeCommit === undefined ? null : pull.updatedAt ?? new Date().toISOString(), merge_commit_sha: pull.mergeCommit ?? null, user: { login: pull.author, type: "User" }, labels: pull.labels.map((name) => ({ name })),
      head: { sha: pull.head, ref: pull.headRef, repo: repository }, base: { sha: pull.base, ref: pull.baseRef ?? "main", repo: repository },
    };
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? undefined : JSON.parse(text) as unknown;
}

/** One page of `items` as GitHub pages a list: `per_page` (default 30) and `page`, with a `link` header to the next. */
function paged<T>(url: URL, items: T[]): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Number(url.searchParams.get("per_page") ?? 30));
  const page = Number(url.searchParams.get("page") ?? 1);
  const slice = items.slice((page - 1) * perPage, page * perPage);
  if (page * perPage >= items.length) return { items: slice, headers: {} };
  const next = new URL(url);
  next.searchParams.set("page", String(page + 1));
  return { items: slice, headers: { link: `<${next.toString()}>; rel="next"` } };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(body));
}
