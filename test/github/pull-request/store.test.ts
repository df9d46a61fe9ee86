import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { PULL_REQUEST_FILE, PullRequestStore, type RecordedJudgment } from "../../../src/github/pull-request/store.js";
import { GENESIS_HASH } from "../../../src/journal/chain.js";
import type { JournalAnchor } from "../../../src/journal/index.js";
import { makeVerdictFixture } from "../../attest/verdict-fixture.js";
import { tempDir } from "../../helpers/git-repo.js";

// The recorded verdicts in pull-requests.db keep their journal anchor (issue 13), and a file made
// before that column existed keeps working: its rows say their anchor is unknown.

const fixture = makeVerdictFixture();
const inputs = { repository: "acme/widgets", base: "b".repeat(40), head: "c".repeat(40), task: "mul" };
const envelope = { payloadType: "application/vnd.in-toto+json", payload: "e30=", signatures: [] };

function anchorFor(id: string): JournalAnchor {
  return { v: 1, entry: { id, sequence: 3, hash: "a".repeat(64), kind: "verdict" }, extends: { sequence: 2, hash: "d".repeat(64) }, subject: fixture.verdict.subject.digest };
}

function judgment(id: string, anchor?: JournalAnchor): RecordedJudgment {
  return { journalId: id, verdict: fixture.verdict, timings: { judge: 1 }, envelope, ...(anchor === undefined ? {} : { anchor }) };
}

/** pull-requests.db exactly as the app before issue 13 created it, holding one recorded verdict. */
function oldFile(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, PULL_REQUEST_FILE));
  db.exec(`CREATE TABLE ranex_verdicts (
  repository TEXT NOT NULL, base TEXT NOT NULL, head TEXT NOT NULL, task TEXT NOT NULL,
  journal_id TEXT NOT NULL, verdict TEXT NOT NULL, timings TEXT NOT NULL, envelope TEXT NOT NULL,
  PRIMARY KEY (repository, base, head, task)
);`);
  db.prepare("INSERT INTO ranex_verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
    .run(inputs.repository, inputs.base, inputs.head, inputs.task, "old-entry", JSON.stringify(fixture.verdict), "{}", JSON.stringify(envelope));
  db.close();
}

describe("recorded verdicts in pull-requests.db", () => {
  it("keep the journal anchor they were recorded with, and a re-judgment's replaces it", () => {
    const store = new PullRequestStore(tempDir());
    store.recordJudgment(inputs, judgment("first", anchorFor("first")));
    expect(store.recordedJudgment(inputs)).toEqual(judgment("first", anchorFor("first")));
    const genesis: JournalAnchor = { ...anchorFor("second"), entry: { ...anchorFor("second").entry, sequence: 1 }, extends: { sequence: 0, hash: GENESIS_HASH } };
    store.recordJudgment(inputs, judgment("second", genesis));
    expect(store.recordedJudgment(inputs)?.anchor).toEqual(genesis);
  });

  it("read a file from before anchors were kept: its rows re-post with the anchor unknown, new rows keep theirs", () => {
    const dataDir = tempDir();
    oldFile(dataDir);
    // Two stores on one data dir (two replicas): the column is added once, by whichever opens first.
    const [one, two] = [new PullRequestStore(dataDir), new PullRequestStore(dataDir)];
    expect(one.recordedJudgment(inputs)).toEqual({ ...judgment("old-entry"), timings: {}, anchor: "unknown" });
    expect(two.recordedJudgment(inputs)?.anchor).toBe("unknown");
    const other = { ...inputs, task: null };
    two.recordJudgment(other, judgment("new-entry", anchorFor("new-entry")));
    expect(one.recordedJudgment(other)?.anchor).toEqual(anchorFor("new-entry"));
  });

  it("never re-post an anchor that is not this entry's: a stored anchor naming another entry, or none at all, is unknown", () => {
    const store = new PullRequestStore(tempDir());
    store.recordJudgment(inputs, judgment("mine", anchorFor("someone-else")));
    expect(store.recordedJudgment(inputs)?.anchor).toBe("unknown");
    store.recordJudgment(inputs, judgment("mine"));
    expect(store.recordedJudgment(inputs)?.anchor).toBe("unknown");
  });
});
