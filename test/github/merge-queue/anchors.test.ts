import { describe, expect, it } from "vitest";
import { anchorOf, parseAnchorBlock, type JournalEntry } from "../../../src/journal/index.js";
import { useStrictNock } from "../../helpers/probot.js";
import { journalEntries } from "../approval/helpers.js";
import { judgePatches, posted, twoAgents } from "./helpers.js";

// Issue 13: a merge group's check runs are journal records like a pull request's. Its ranex/judge
// verdict opens its text with its journal anchor; its ranex/approval, when approvals were journalled
// for the group, names the latest of them with its anchor (whose hash covers the ones before it).

useStrictNock();

function last(entries: JournalEntry[], kind: string): JournalEntry {
  return entries.filter((e) => e.kind === kind).at(-1)!;
}

describe("a merge group's check runs carry their journal anchors", () => {
  it("when checks_requested judges it: ranex/judge is its verdict's entry, ranex/approval the latest approval's", async () => {
    const { dataDir } = await twoAgents(["alice"], ["bob"]);
    const entries = await journalEntries(dataDir);
    expect(entries.map((e) => e.kind)).toEqual(["verdict", "verdict", "approval", "approval", "verdict"]);

    const done = judgePatches()[1]!;
    const verdict = last(entries, "verdict");
    expect(done).toMatchObject({ status: "completed", conclusion: "success", external_id: verdict.id });
    expect(parseAnchorBlock(done.output.text)).toEqual({ kind: "anchor", anchor: anchorOf(verdict) });

    const [approval] = posted("ranex/approval");
    const approved = last(entries, "approval");
    expect(approval).toMatchObject({ conclusion: "success", external_id: approved.id });
    expect(parseAnchorBlock(approval!.output.text)).toEqual({ kind: "anchor", anchor: anchorOf(approved) });
    expect(approval!.output.summary).toContain(`names journal entry \`${approved.id}\`, the latest of the 2 approvals journalled for this group`);
  });

  it("also when the group is not approved yet: the one approval journalled for it is anchored", async () => {
    const { dataDir } = await twoAgents(["alice"], []);
    const approved = last(await journalEntries(dataDir), "approval");
    const [approval] = posted("ranex/approval");
    expect(approval).toMatchObject({ conclusion: "failure", external_id: approved.id });
    expect(parseAnchorBlock(approval!.output.text)).toEqual({ kind: "anchor", anchor: anchorOf(approved) });
    expect(approval!.output.summary).toContain(`This check run is journal entry \`${approved.id}\`, the approval journalled for this group.`);
  });

  it("and no anchor where nothing was journalled for the group's approval", async () => {
    await twoAgents([], []);
    const [approval] = posted("ranex/approval");
    expect(approval).toMatchObject({ conclusion: "failure" });
    expect(approval).not.toHaveProperty("external_id");
    expect(parseAnchorBlock(approval!.output.text)).toEqual({ kind: "none" });
  });
});
