import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { PULL_REQUEST_FILE } from "../../../src/github/pull-request/store.js";
import { anchorOf, parseAnchorBlock } from "../../../src/journal/index.js";
import { UNKNOWN_ANCHOR_LINE } from "../../../src/journal/anchor.js";
import { deliveryId, useStrictNock } from "../../helpers/probot.js";
import { journalEntries } from "../approval/helpers.js";
import { agentEvent, completion, lifecycleApp, mockCheck, mockPolicy } from "./helpers.js";

// Issue 13: every ranex/judge check run that carries a verdict carries its journal anchor, also the
// one that posts a recorded verdict again for the same inputs (base tip, head, policy, task), so
// `ranex journal verify --github` reads that position from GitHub's copy of each.

useStrictNock();

async function judgedThenReopened(beforeReopen: (dataDir: string) => void = () => {}) {
  const app = await lifecycleApp({ outcome: "fail", claim: "diff.scope" });
  mockCheck(app.api, 42);
  mockPolicy(app.api, undefined, undefined, 2);
  await app.probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened") as never });
  await app.runner.idle();
  beforeReopen(app.dataDir);
  mockCheck(app.api, 43);
  await app.probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.reopened") as never });
  await app.runner.idle();
  expect(app.stand.requests).toHaveLength(1);
  return { first: completion(42)!, again: completion(43)!, entries: await journalEntries(app.dataDir) };
}

describe("a recorded verdict posted again", () => {
  it("opens its text with the anchor of its original journal entry", async () => {
    const { first, again, entries } = await judgedThenReopened();
    expect(entries.map((e) => e.kind)).toEqual(["verdict"]);
    const original = anchorOf(entries[0]!);
    expect(parseAnchorBlock(first.output.text)).toEqual({ kind: "anchor", anchor: original });
    expect(again).toMatchObject({ conclusion: "failure", external_id: original.entry.id });
    expect(again.output.summary).toContain("not a new measurement");
    expect(parseAnchorBlock(again.output.text)).toEqual({ kind: "anchor", anchor: original });
  });

  it("says its anchor is unknown when pull-requests.db is from before anchors were kept, and names its entry by id", async () => {
    const { again, entries } = await judgedThenReopened((dataDir) => {
      // The file as the app before issue 13 left it: the same row, without the anchor column.
      const db = new Database(join(dataDir, PULL_REQUEST_FILE));
      db.exec("ALTER TABLE ranex_verdicts DROP COLUMN anchor");
      db.close();
    });
    expect(again).toMatchObject({ conclusion: "failure", external_id: entries[0]!.id });
    expect(again.output.summary).toContain("not a new measurement");
    expect(again.output.text.startsWith(`${UNKNOWN_ANCHOR_LINE}\n\n`)).toBe(true);
    expect(parseAnchorBlock(again.output.text)).toEqual({ kind: "none" });
  });
});
