import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mergeAuthority } from "../../src/github/approval/deps.js";
import { openJournal } from "../../src/journal/index.js";
import { verdictEntry } from "../../src/web/journal-view.js";
import { pageRoutes, pageSecret, verdictHref } from "../../src/web/index.js";
import type { Verdict } from "../../src/kernel/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { recordFor } from "./verdicts.js";

// The page shows who approved a CANDIDATE, read from the signed `approval` entry that names it.
let server: Server;
let base: string;
let dataDir: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  dataDir = tempDir();
  ids.approved = await recordFor(dataDir, "acme/calc", "pass", "a".repeat(40));
  ids.waiting = await recordFor(dataDir, "acme/calc", "pass", "b".repeat(40));
  const journal = await openJournal({ dataDir });
  const entry = await journal.get(ids.approved);
  await journal.close();
  const predicate = verdictEntry(entry!)!.statement.predicate;
  const verdict = { ...predicate, verdict: "PASS" } as unknown as Verdict;
  await mergeAuthority({ dataDir }).recordApproval({
    repository: "acme/calc", pullRequest: 7, head: "a".repeat(40), approvers: [{ login: "<mona>lisa", reviewId: 80 }],
    judgeEntry: ids.approved, verdict, time: "2026-02-03T05:00:00Z",
  });
  server = createServer((req, res) => { void pageRoutes({ dataDir })(req, res).then((handled) => { if (!handled) res.writeHead(418).end(); }); });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe("the approval on the verdict page", () => {
  it("names who approved the judged head, escaped, from the signed approval entry", async () => {
    const page = await (await fetch(`${base}${verdictHref(pageSecret(dataDir), ids.approved!)}`)).text();
    expect(page).toContain("approval: given");
    expect(page).toContain("@&lt;mona&gt;lisa");
    expect(page).toContain("review 80");
    expect(page).not.toContain("<mona>");
  });

  it("stays pending for a CANDIDATE nobody approved yet", async () => {
    const page = await (await fetch(`${base}${verdictHref(pageSecret(dataDir), ids.waiting!)}`)).text();
    expect(page).toContain("approval: pending");
    expect(page).not.toContain("approval: given");
  });
});
