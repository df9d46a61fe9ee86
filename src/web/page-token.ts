// Unguessable per-verdict tokens: HMAC-SHA256 of the journal id under the server's page secret. The
// token goes into details_url, so whoever can see the check run can open its page; nobody can
// derive another verdict's token from one they hold.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const PAGE_SECRET_FILE = "page-secret";
const MIN_SECRET_LENGTH = 32;

/** The token for one thing the page server shows: `verdict:<journal id>`, `journal:<owner/repo>` or `agents:<owner/repo>`. */
export function pageToken(secret: string, scope: string): string {
  return createHmac("sha256", secret).update(scope, "utf8").digest("base64url");
}

export function verdictToken(secret: string, journalId: string): string {
  return pageToken(secret, `verdict:${journalId}`);
}

export function journalToken(secret: string, repository: string): string {
  return pageToken(secret, `journal:${repository}`);
}

/** The agents page of one repository (issue 23). */
export function agentsToken(secret: string, repository: string): string {
  return pageToken(secret, `agents:${repository}`);
}

/** Constant-time comparison; a missing or malformed token is simply wrong. */
export function tokenMatches(expected: string, given: string | null): boolean {
  if (given === null) return false;
  const a = Buffer.from(expected, "utf8");
  const b = Buffer.from(given, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

const cache = new Map<string, string>();

/**
 * The page secret: `RANEX_PAGE_SECRET` when set (every replica must share it), else a random one
 * generated once and kept in `<dataDir>/page-secret` (mode 0600), so links survive restarts.
 */
export function pageSecret(dataDir: string, fromEnv?: string): string {
  if (fromEnv !== undefined && fromEnv !== "") {
    if (fromEnv.length < MIN_SECRET_LENGTH) throw new Error(`RANEX_PAGE_SECRET must be at least ${MIN_SECRET_LENGTH} characters`);
    return fromEnv;
  }
  const known = cache.get(dataDir);
  if (known !== undefined) return known;
  const path = join(dataDir, PAGE_SECRET_FILE);
  let secret = readSecret(path);
  if (secret === null) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    try {
      // `wx`: when two processes race, one writes and both read the winner's secret.
      writeFileSync(path, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    secret = readSecret(path);
    if (secret === null) throw new Error(`the page secret at ${path} is empty or too short`);
  }
  cache.set(dataDir, secret);
  return secret;
}

function readSecret(path: string): string | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  if (text.length < MIN_SECRET_LENGTH) throw new Error(`the page secret at ${path} is shorter than ${MIN_SECRET_LENGTH} characters`);
  return text;
}
