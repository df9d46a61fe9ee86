// The page server's routes, registered through Probot's addHandler:
//   GET /ranex/verdicts/<journal id>?token=…                the verdict page
//   GET /ranex/verdicts/<journal id>/envelope.json?token=…  the signed envelope, for `ranex verify`
//   GET /ranex/journal/<owner>/<repo>?token=…&page=N        the repository's entries, newest first
//   GET /ranex/agents?repo=<owner/repo>&token=…             how each agent is doing (issue 23)
//   GET /ranex/public-key                                   the signing key (PEM)
//   GET /ranex/seal-key                                     the sealing key (PEM, X25519): `ranex seal --key <url>`
// Every verdict and journal page needs its token; a wrong or missing one is the same 404 as an
// unknown id, so the server never confirms that an entry exists.
import type { IncomingMessage, ServerResponse } from "node:http";
import { verifyEnvelope } from "../attest/index.js";
import type { Journal } from "../journal/index.js";
import { html } from "./html.js";
import { approvalOf, neighbours, overrideOf, repositoryEntries, verdictEntry } from "./journal-view.js";
import { page } from "./layout.js";
import { readPageFacts } from "./page-facts.js";
import { agentRows } from "./agents/read.js";
import { renderAgentsPage } from "./agents/render.js";
import { agentsReport } from "./agents/stats.js";
import { agentsToken, journalToken, tokenMatches, verdictToken } from "./page-token.js";
import { renderJournalPage } from "./render-journal.js";
import { renderVerdictPage } from "./render-verdict.js";

export interface WebDeps {
  openJournal: () => Promise<Journal>;
  /** The PEM public key of the key that signs verdicts. */
  publicKey: () => Promise<string>;
  /** The PEM public half of the sealing key (issue 20); absent: the route is not served. */
  sealPublicKey?: () => Promise<string>;
  /** Where page facts (timings, diff facts) are kept beside the journal. */
  dataDir: string;
  /** The page secret that tokens are HMACs under. */
  secret: () => string;
}

export const VERDICTS_PATH = "/ranex/verdicts/";
export const JOURNAL_PATH = "/ranex/journal/";
export const PUBLIC_KEY_PATH = "/ranex/public-key";
export const AGENTS_PATH = "/ranex/agents";
export const SEAL_KEY_PATH = "/ranex/seal-key";
const PER_PAGE = 25;

/** A path under this server with its token: what details_url and every page link use. */
export function verdictHref(secret: string, journalId: string): string {
  return `${VERDICTS_PATH}${encodeURIComponent(journalId)}?token=${verdictToken(secret, journalId)}`;
}

export function journalHref(secret: string, repository: string, pageNumber = 1): string {
  const path = repository.split("/").map(encodeURIComponent).join("/");
  return `${JOURNAL_PATH}${path}?token=${journalToken(secret, repository)}${pageNumber > 1 ? `&page=${pageNumber}` : ""}`;
}

export function agentsHref(secret: string, repository: string): string {
  return `${AGENTS_PATH}?repo=${encodeURIComponent(repository)}&token=${agentsToken(secret, repository)}`;
}

export function webRoutes(deps: WebDeps) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname;
    const sealKey = path === SEAL_KEY_PATH ? deps.sealPublicKey : undefined;
    if (path !== PUBLIC_KEY_PATH && path !== AGENTS_PATH && sealKey === undefined && !path.startsWith(VERDICTS_PATH) && !path.startsWith(JOURNAL_PATH)) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      send(req, res, 405, "text/plain", "only GET\n", { allow: "GET, HEAD" });
      return true;
    }
    try {
      if (path === PUBLIC_KEY_PATH) send(req, res, 200, "text/plain", await deps.publicKey());
      else if (path === AGENTS_PATH) await agents(deps, req, res, url);
      else if (sealKey !== undefined) send(req, res, 200, "text/plain", await sealKey());
      else if (path.startsWith(VERDICTS_PATH)) await verdict(deps, req, res, url);
      else await journal(deps, req, res, url);
    } catch {
      // The reason stays in the server: a page may be public, the error may name paths or hosts.
      sendHtml(req, res, 500, problemPage("The journal could not be read", "The verdict is safe in the journal; the page server could not read it just now. Try again, or ask the gate's operator to check its logs."));
    }
    return true;
  };
}

async function verdict(deps: WebDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const rest = url.pathname.slice(VERDICTS_PATH.length).split("/");
  const wantsEnvelope = rest.length === 2 && rest[1] === "envelope.json";
  const id = decode(rest[0] ?? "");
  const secret = deps.secret();
  if (id === null || id === "" || (rest.length !== 1 && !wantsEnvelope) || !tokenMatches(verdictToken(secret, id), url.searchParams.get("token"))) {
    return notFound(req, res);
  }
  const j = await deps.openJournal();
  try {
    const entry = await j.get(id);
    const found = entry === null ? null : verdictEntry(entry);
    if (found === null) return notFound(req, res);
    if (wantsEnvelope) return send(req, res, 200, "application/json", `${JSON.stringify(found.envelope, null, 2)}\n`, { "content-disposition": 'attachment; filename="envelope.json"' });
    const [around, facts, publicKeyPem, approvalEntry, overrideEntry] = await Promise.all([
      neighbours(j, found.entry, found.repository), readPageFacts(deps.dataDir, id), deps.publicKey(), approvalOf(j, found.entry), overrideOf(j, found.entry),
    ]);
    const head = found.statement.predicate.subject.head;
    const signature = await verifyEnvelope(found.envelope, publicKeyPem, { commit: head });
    // An approval is shown only when its own signature holds for the same commit.
    const approval = approvalEntry !== null && (await verifyEnvelope(approvalEntry.envelope, publicKeyPem, { commit: head })).ok ? approvalEntry : null;
    // So is an override: a forged one must not put "OVERRIDDEN" on the page.
    const override = overrideEntry !== null && (await verifyEnvelope(overrideEntry.envelope, publicKeyPem, { commit: head })).ok ? overrideEntry : null;
    sendHtml(req, res, 200, renderVerdictPage({
      verdict: found, ...around, facts, approval, override, publicKeyPem, signature,
      links: {
        verdict: (other) => verdictHref(secret, other), journal: journalHref(secret, found.repository),
        envelope: `${VERDICTS_PATH}${encodeURIComponent(id)}/envelope.json?token=${verdictToken(secret, id)}`,
      },
    }));
  } finally {
    await j.close();
  }
}

async function journal(deps: WebDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const parts = url.pathname.slice(JOURNAL_PATH.length).split("/").map(decode);
  const secret = deps.secret();
  if (parts.length !== 2 || parts.some((p) => p === null || p === "")) return notFound(req, res);
  const repository = parts.join("/");
  if (!tokenMatches(journalToken(secret, repository), url.searchParams.get("token"))) return notFound(req, res);
  const pageNumber = Number(url.searchParams.get("page") ?? "1");
  if (!Number.isSafeInteger(pageNumber) || pageNumber < 1) return notFound(req, res);
  const j = await deps.openJournal();
  try {
    const listed = await repositoryEntries(j, repository, pageNumber, PER_PAGE);
    sendHtml(req, res, 200, renderJournalPage({
      repository, page: pageNumber, ...listed,
      links: { verdict: (id) => verdictHref(secret, id), page: (n) => journalHref(secret, repository, n) },
    }));
  } finally {
    await j.close();
  }
}

async function agents(deps: WebDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const repository = url.searchParams.get("repo") ?? "";
  const secret = deps.secret();
  if (!/^[^/\s]+\/[^/\s]+$/.test(repository) || !tokenMatches(agentsToken(secret, repository), url.searchParams.get("token"))) return notFound(req, res);
  const j = await deps.openJournal();
  try {
    const rows = await agentRows(j, repository);
    sendHtml(req, res, 200, renderAgentsPage({
      repository, report: agentsReport(rows.judgments, rows.overrides),
      links: { verdict: (id) => verdictHref(secret, id), journal: journalHref(secret, repository) },
    }));
  } finally {
    await j.close();
  }
}

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function notFound(req: IncomingMessage, res: ServerResponse): void {
  sendHtml(req, res, 404, problemPage("Not found", "There is no page here, or the link is missing its token. Open the verdict from the check run's \"Details\" link."));
}

function problemPage(title: string, text: string): string {
  return page(title, html`<h1>${title}</h1><p>${text}</p>`);
}

function sendHtml(req: IncomingMessage, res: ServerResponse, status: number, body: string): void {
  send(req, res, status, "text/html", body);
}

// No scripts, no external requests, no referrer (the URL holds a token), nothing cached by proxies.
const HEADERS = {
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "private, no-store",
};

function send(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  const bytes = Buffer.from(body, "utf8");
  res.writeHead(status, { ...HEADERS, ...extra, "content-type": `${type}; charset=utf-8`, "content-length": bytes.length });
  res.end(req.method === "HEAD" ? undefined : bytes);
}
