import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataDirKey, publicKeyPem, verifyEnvelope } from "../../src/attest/index.js";
import { detailsUrl } from "../../src/github/deps.js";
import { openJournal } from "../../src/journal/index.js";
import { journalHref, pageRoutes, pageSecret, verdictHref, webDepsOf, withPageFacts } from "../../src/web/index.js";
import { PAGE_SECRET_FILE, verdictToken } from "../../src/web/page-token.js";
import { readPageFacts, writePageFacts } from "../../src/web/page-facts.js";
import { webRoutes } from "../../src/web/routes.js";
import { tempDir } from "../helpers/git-repo.js";
import { FACTS, recordFor } from "./verdicts.js";

let server: Server;
let base: string;
let dataDir: string;
let secret: string;
const ids: Record<string, string> = {};

async function serve(route: ReturnType<typeof webRoutes>): Promise<{ server: Server; base: string }> {
  const s = createServer((req, res) => { void route(req, res).then((handled) => { if (!handled) res.writeHead(418).end(); }); });
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return { server: s, base: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  dataDir = tempDir();
  ids.first = await recordFor(dataDir, "acme/calc", "pass");
  ids.other = await recordFor(dataDir, "acme/secret-repo", "fail");
  ids.fail = await recordFor(dataDir, "acme/calc", "fail", "9".repeat(40));
  for (let i = 0; i < 26; i++) ids[`bulk${i}`] = await recordFor(dataDir, "acme/bulk", "pass", i.toString(16).padStart(40, "0"));
  await writePageFacts(dataDir, ids.fail, FACTS);
  secret = pageSecret(dataDir);
  ({ server, base } = await serve(pageRoutes({ dataDir })));
});
afterAll(() => server.close());

describe("tokens", () => {
  it("keeps a generated secret in the data dir, readable only by its owner, and the same across calls", () => {
    expect(statSync(join(dataDir, PAGE_SECRET_FILE)).mode & 0o777).toBe(0o600);
    expect(pageSecret(dataDir)).toBe(secret);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(pageSecret(dataDir, "x".repeat(40))).toBe("x".repeat(40));
    expect(() => pageSecret(dataDir, "short")).toThrow(/at least 32/);
  });

  it("puts the token into details_url, and that URL opens the page", async () => {
    const url = detailsUrl({ publicUrl: "https://gate.example.com/", dataDir }, ids.fail!)!;
    expect(url).toBe(`https://gate.example.com/ranex/verdicts/${ids.fail}?token=${verdictToken(secret, ids.fail!)}`);
    const res = await fetch(url.replace("https://gate.example.com", base));
    expect(res.status).toBe(200);
  });

  it("answers a missing, wrong or borrowed token with the same 404 as an unknown id", async () => {
    const unknown = await fetch(`${base}${verdictHref(secret, "00000000-0000-0000-0000-000000000000")}`);
    const body404 = await unknown.text();
    expect(unknown.status).toBe(404);
    for (const path of [
      `/ranex/verdicts/${ids.fail}`,
      `/ranex/verdicts/${ids.fail}?token=`,
      `/ranex/verdicts/${ids.fail}?token=${verdictToken(secret, ids.first!)}`,
      `/ranex/verdicts/${ids.fail}?token=${verdictToken("another-secret-of-at-least-32-chars!!", ids.fail!)}`,
      `/ranex/verdicts/${ids.fail}/envelope.json`,
      `/ranex/journal/acme/calc`,
      `/ranex/journal/acme/calc?token=${verdictToken(secret, ids.fail!)}`,
    ]) {
      const res = await fetch(`${base}${path}`);
      expect([path, res.status]).toEqual([path, 404]);
      expect(await res.text()).toBe(body404);
    }
  });
});

describe("the pages", () => {
  it("serves the verdict page with security headers, its facts and the neighbours it may link", async () => {
    const res = await fetch(`${base}${verdictHref(secret, ids.fail!)}`);
    const page = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(page).toContain('<p class="verdict">FAIL');
    expect(page).toContain("<svg");
    // The previous entry is another repository's: its hash is shown, never a link with its token.
    expect(page).toContain("entry 2 (verdict)");
    expect(page).not.toContain(verdictToken(secret, ids.other!));
    expect(page).not.toContain(ids.other!);
    // The next entry is not this repository's either; the repository's journal link carries its own token.
    expect(page).toContain(journalHref(secret, "acme/calc").replace(/&/g, "&amp;"));
  });

  it("links a same-repository neighbour with its own token", async () => {
    const page = await (await fetch(`${base}${verdictHref(secret, ids.bulk1!)}`)).text();
    expect(page).toContain(`href="${verdictHref(secret, ids.bulk0!)}"`);
    expect(page).toContain(`href="${verdictHref(secret, ids.bulk2!)}"`);
  });

  it("serves the envelope, which verifies with the served public key", async () => {
    const envelope = await (await fetch(`${base}/ranex/verdicts/${ids.fail}/envelope.json?token=${verdictToken(secret, ids.fail!)}`)).json();
    const pemRes = await fetch(`${base}/ranex/public-key`);
    const pem = await pemRes.text();
    expect(pem).toBe(publicKeyPem((await dataDirKey(dataDir)).publicKey));
    const verified = await verifyEnvelope(envelope, pem, { commit: "9".repeat(40) });
    expect(verified.ok).toBe(true);
  });

  it("lists a repository's entries newest first, 25 to a page", async () => {
    const first = await (await fetch(`${base}${journalHref(secret, "acme/bulk")}`)).text();
    const links = [...first.matchAll(/href="\/ranex\/verdicts\/([^?"]+)\?/g)].map((m) => m[1]);
    expect(links).toHaveLength(25);
    expect(links[0]).toBe(ids.bulk25);
    expect(links[24]).toBe(ids.bulk1);
    expect(first).toContain("26 entries");
    expect(first).toContain(`href="${journalHref(secret, "acme/bulk", 2).replace(/&/g, "&amp;")}"`);
    const second = await (await fetch(`${base}${journalHref(secret, "acme/bulk", 2)}`)).text();
    expect([...second.matchAll(/href="\/ranex\/verdicts\/([^?"]+)\?/g)].map((m) => m[1])).toEqual([ids.bulk0]);
    expect(second).not.toContain("older →");
    const calc = await (await fetch(`${base}${journalHref(secret, "acme/calc")}`)).text();
    expect(calc).not.toContain(ids.other!);
  });

  it("answers HEAD without a body, other methods with 405, and leaves other paths alone", async () => {
    const head = await fetch(`${base}/ranex/public-key`, { method: "HEAD" });
    expect([head.status, await head.text()]).toEqual([200, ""]);
    expect((await fetch(`${base}/ranex/public-key`, { method: "POST" })).status).toBe(405);
    expect((await fetch(`${base}/api/github/webhooks`)).status).toBe(418);
  });

  it("fails closed with a reason a person understands when the journal cannot be read", async () => {
    const broken = await serve(webRoutes({ ...webDepsOf({ dataDir }), openJournal: async () => { throw new Error("disk on fire at /secret/path"); } }));
    try {
      const res = await fetch(`${broken.base}${verdictHref(secret, ids.fail!)}`);
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(text).toContain("could not read it");
      expect(text).not.toContain("/secret/path");
    } finally {
      broken.server.close();
    }
  });
});

describe("page facts", () => {
  it("are kept beside the journal entry by the app's record, with the signing time", async () => {
    const dir = tempDir();
    const judgment = { verdict: {} as never, evidence: [], facts: [], timings: { fetch: 5 } };
    const deps = withPageFacts({ dataDir: dir, record: async () => ({ envelope: {} as never, journalId: "abc-123", journalHash: "h" }) } as never);
    await deps.record(judgment, { repository: "a/b", ref: "r", time: "t" });
    const facts = await readPageFacts(dir, "abc-123");
    expect(facts?.timings.fetch).toBe(5);
    expect(facts?.timings.sign).toBeGreaterThanOrEqual(0);
    expect(await readPageFacts(dir, "../../etc/passwd")).toBeNull();
    await expect(writePageFacts(dir, "../x", facts!)).rejects.toThrow(/not a journal id/);
  });

  it("never fail the verdict when they cannot be kept", async () => {
    const errors: unknown[] = [];
    // A data dir that is a file: the facts cannot be written.
    const notADir = join(tempDir(), "file");
    writeFileSync(notADir, "");
    const deps = withPageFacts({ dataDir: notADir, record: async () => ({ envelope: {} as never, journalId: "abc", journalHash: "h" }) } as never, (e) => errors.push(e));
    const recorded = await deps.record({ verdict: {} as never, evidence: [], facts: [], timings: {} }, { repository: "a/b", ref: "r", time: "t" });
    expect(recorded.journalId).toBe("abc");
    expect(errors).toHaveLength(1);
  });
});

it("reads the same journal the app records into", async () => {
  const pages = await webDepsOf({ dataDir }).openJournal();
  const app = await openJournal({ dataDir });
  expect((await pages.head())?.sequence).toBe(29);
  expect(await pages.head()).toEqual(await app.head());
  await Promise.all([pages.close(), app.close()]);
});
