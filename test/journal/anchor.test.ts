import { describe, expect, it } from "vitest";
import { renderApproval } from "../../src/github/approval/check.js";
import { OUTPUT_TEXT_LIMIT } from "../../src/github/limits.js";
import { renderOutput } from "../../src/github/pull-request/render.js";
import { anchorOf, parseAnchorBlock, renderAnchorBlock, type JournalAnchor } from "../../src/journal/anchor.js";
import { GENESIS_HASH } from "../../src/journal/chain.js";
import type { JournalEntry } from "../../src/journal/types.js";
import { makeVerdictFixture } from "../attest/verdict-fixture.js";

const entry: JournalEntry = {
  id: "7f3c2a10-1111-4222-8333-444455556666", sequence: 7, prevHash: "a".repeat(64), kind: "verdict",
  subject: "sha256:" + "b".repeat(64), payload: {}, hash: "c".repeat(64),
};
const anchor = anchorOf(entry);
const fixture = makeVerdictFixture("fail");

describe("the journal anchor on a check run", () => {
  it("has one stable JSON shape: the entry, and the head it extends", () => {
    expect(anchor).toEqual({
      v: 1, entry: { id: entry.id, sequence: 7, hash: entry.hash, kind: "verdict" }, extends: { sequence: 6, hash: entry.prevHash }, subject: entry.subject,
    });
    expect(renderAnchorBlock(anchor)).toMatchInlineSnapshot(`
      "<!-- ranex-journal-anchor v1 -->
      **Journal anchor:** this check run is journal entry 7 (verdict), extending entry 6. GitHub keeps this record; \`ranex journal verify --github <owner/repo>\` checks the gate's journal against it.

      \`\`\`json
      {"v":1,"entry":{"id":"7f3c2a10-1111-4222-8333-444455556666","sequence":7,"hash":"cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc","kind":"verdict"},"extends":{"sequence":6,"hash":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},"subject":"sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}
      \`\`\`"
    `);
  });

  it("opens the ranex/judge text and reads back, also when the findings fill GitHub's limit", () => {
    const long = { ...fixture.verdict, claims: fixture.verdict.claims.map((c) => ({ ...c, status: "fail" as const, details: Array.from({ length: 3000 }, (_, i) => ({ message: `finding ${i} ${"x".repeat(40)}` })) })) };
    const output = renderOutput({ verdict: long, timings: {}, envelope: { payloadType: "x", payload: "", signatures: [] }, journalId: entry.id, draft: false, anchor });
    expect(output.text.length).toBeLessThanOrEqual(OUTPUT_TEXT_LIMIT);
    expect(output.text).toContain("characters of findings cut");
    expect(parseAnchorBlock(output.text)).toEqual({ kind: "anchor", anchor });
    const without = renderOutput({ verdict: long, timings: {}, envelope: { payloadType: "x", payload: "", signatures: [] }, journalId: entry.id, draft: false });
    expect(parseAnchorBlock(without.text)).toEqual({ kind: "none" });
  });

  it("opens the text of an approved ranex/approval, and of no other approval state", () => {
    const decision = { head: "d".repeat(40), needed: 1, qualifying: [{ login: "monalisa", reviewId: 80 }], refused: [], ineligible: [], baseMerges: [], blocked: [], satisfied: true };
    const approved = renderApproval({ kind: "approved", head: decision.head, judgeEntry: "j", decision, journalId: entry.id, envelope: { payloadType: "x", payload: "", signatures: [] }, anchor }, null);
    expect(parseAnchorBlock(approved.text)).toEqual({ kind: "anchor", anchor });
    expect(approved.externalId).toBe(entry.id);
    expect(renderApproval({ kind: "waiting", head: decision.head, judgeEntry: "j", decision: { ...decision, satisfied: false, qualifying: [] }, teams: [] }, null).text).toBeUndefined();
  });

  it("counts only a block at the very start: one quoted further down (an agent's test name) is not an anchor", () => {
    const forged = renderAnchorBlock({ ...anchor, entry: { ...anchor.entry, sequence: 99 }, extends: { sequence: 98, hash: "e".repeat(64) } });
    expect(parseAnchorBlock(`### \`tests.targets\`: fail\n\n- ${forged}`)).toEqual({ kind: "none" });
    expect(parseAnchorBlock(`${renderAnchorBlock(anchor)}\n\n${forged}`)).toEqual({ kind: "anchor", anchor });
  });

  it("calls a block that opens with the marker but is broken invalid, saying why", () => {
    const block = renderAnchorBlock(anchor);
    const swap = (json: unknown) => block.replace(/\n\{.*\}\n/, `\n${JSON.stringify(json)}\n`);
    expect(parseAnchorBlock(block.replace(/\{.*\}/, "{not json"))).toEqual({ kind: "invalid", problem: "the anchor block is not JSON" });
    expect(parseAnchorBlock(swap({ ...anchor, extends: { sequence: 3, hash: entry.prevHash } }))).toMatchObject({ kind: "invalid", problem: expect.stringContaining("extends must be the entry right before") });
    expect(parseAnchorBlock(swap({ ...anchor, extra: 1 }))).toMatchObject({ kind: "invalid" });
    const first: JournalAnchor = { ...anchor, entry: { ...anchor.entry, sequence: 1 }, extends: { sequence: 0, hash: "1".repeat(64) } };
    expect(parseAnchorBlock(swap(first))).toEqual({ kind: "invalid", problem: "the anchor's first entry does not extend the genesis hash" });
    expect(parseAnchorBlock(swap({ ...first, extends: { sequence: 0, hash: GENESIS_HASH } }))).toMatchObject({ kind: "anchor" });
    expect(parseAnchorBlock("<!-- ranex-journal-anchor v1 -->\nnothing")).toMatchObject({ kind: "invalid" });
    expect(parseAnchorBlock(null)).toEqual({ kind: "none" });
  });
});
