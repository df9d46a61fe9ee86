import { describe, expect, it } from "vitest";
import { dataDirKey, publicKeyPem, verifyEnvelope } from "../../src/attest/index.js";
import { recordVerdict } from "../../src/judge/record.js";
import { openJournal } from "../../src/journal/index.js";
import { evaluate, makeGate, subjectDigest, type Detail } from "../../src/kernel/index.js";
import type { HunkText } from "../../src/measure/needed/hunk-text.js";
import { readPageFacts, writePageFacts, type PageFacts } from "../../src/web/page-facts.js";
import { verdictEntry } from "../../src/web/journal-view.js";
import { renderVerdictPage } from "../../src/web/render-verdict.js";
import { tempDir } from "../helpers/git-repo.js";
import { FACTS, subjectFor } from "./verdicts.js";

// diff.needed's hunks on the verdict page with their text (page facts): escaped, with bidi and
// zero-width characters shown by code point; facts without text still give the table.

const NEEDED: Detail = { kind: "needed", path: "src/calc.py", line: 3, message: "src/calc.py:3: needed by tests/test_div.py::test_div" };
const UNNEEDED: Detail = { kind: "unneeded", path: "src/calc.py", line: 9, message: "src/calc.py:9-10: no test changes its outcome without this change" };
const UNCHECKED: Detail = { kind: "not-checked", path: "src/big.py", line: 1, message: "src/big.py:1-40: not checked (beyond needed.max_hunks (2))" };
const SCRIPT = `    return "</td></table><script>alert(1)</script>" if a == 1 else 0`;
// A Trojan Source line: the right-to-left override makes an editor show the comment where the code is.
const BIDI = "    access = 'user' # \u202e } \u2066if admin\u2069 \u2066 begin admin only\u200b";

const TEXTS: HunkText[] = [
  { path: "src/calc.py", line: 3, message: NEEDED.message, lines: [{ op: "-", line: 3, text: "    raise NotImplementedError" }, { op: "+", line: 3, text: "    return a / b" }], moreRemoved: 0, moreAdded: 0 },
  { path: "src/calc.py", line: 9, message: UNNEEDED.message, lines: [{ op: "+", line: 9, text: SCRIPT }, { op: "+", line: 10, text: BIDI, cutChars: 1200 }], moreRemoved: 2, moreAdded: 0 },
  { path: "src/big.py", line: 1, message: UNCHECKED.message, lines: [{ op: "+", line: 1, text: "\tindented = True" }], moreRemoved: 0, moreAdded: 39 },
];

async function page(facts: PageFacts | null): Promise<string> {
  const dataDir = tempDir();
  const subject = subjectFor("acme/calc");
  const digest = subjectDigest(subject);
  const verdict = evaluate(makeGate(["diff.needed"]), [
    { claim: "diff.needed", subject: digest, outcome: "fail", reason: "hunks no test needs: src/calc.py:9-10; hunks not checked: src/big.py:1-40", details: [NEEDED, UNNEEDED, UNCHECKED] },
  ], subject, null);
  const { entry } = await recordVerdict(verdict, { dataDir, ref: "refs/pull/7/head", time: "2026-02-03T04:05:06Z" });
  if (facts !== null) await writePageFacts(dataDir, entry.id, facts);
  const journal = await openJournal({ dataDir });
  const read = verdictEntry((await journal.get(entry.id))!)!;
  await journal.close();
  const pem = publicKeyPem((await dataDirKey(dataDir)).publicKey);
  return renderVerdictPage({
    verdict: read, previous: null, next: null, facts: await readPageFacts(dataDir, entry.id), publicKeyPem: pem,
    signature: await verifyEnvelope(read.envelope, pem), links: { verdict: (id) => `/v/${id}`, journal: "/j", envelope: "/e" },
  });
}

const section = (html: string, id: string): string => html.split(`<h2 id="${id}">`)[1]?.split("</section>")[0] ?? "";
/** The block with this anchor, up to the next hunk or the end of the section. */
const block = (diff: string, anchor: string): string => diff.split(`id="${anchor}"`)[1]?.split(/<(?:div|details) id="hunk-/)[0] ?? "";

describe("diff.needed's hunks with their text", () => {
  it("shows each hunk as a small diff: the unneeded one open, framed and marked in words; the needed one folded", async () => {
    const diff = section(await page({ ...FACTS, hunks: TEXTS }), "diff");
    expect(diff).not.toContain("<table><caption class=\"muted\">Each changed hunk");
    expect(diff).toContain(`<details id="hunk-1" class="hunk needed"><summary><span class="status pass">✓ needed</span>`);
    expect(block(diff, "hunk-1")).toContain(`<tr class="del"><td class="num">3</td><td class="num"></td><td class="op"><span aria-hidden="true">-</span><span class="sr">removed</span></td><td class="code" dir="ltr">    raise NotImplementedError</td></tr>`);
    const unneeded = block(diff, "hunk-2");
    expect(diff).toContain(`<div id="hunk-2" class="hunk unneeded" role="group" aria-label="✗ no test needs it"><p class="hunk-head"><span class="status fail">✗ no test needs it</span> <span class="break">${UNNEEDED.message}</span></p>`);
    expect(unneeded).toContain(`<tr class="more"><td colspan="4">… 2 more removed lines (not kept for this page)</td></tr>`);
    expect(unneeded).toContain(`<td class="num">9</td><td class="op"><span aria-hidden="true">+</span><span class="sr">added</span></td>`);
    expect(unneeded).toContain("<span class=\"cut\"> … 1200 more characters</span>");
    const unchecked = block(diff, "hunk-3");
    expect(diff).toContain(`<div id="hunk-3" class="hunk unchecked" role="group" aria-label="! not checked">`);
    expect(unchecked).toContain(`<td class="code" dir="ltr">\tindented = True</td>`);
    expect(unchecked).toContain("… 39 more added lines (not kept for this page)");
  });

  it("escapes markup in a hunk's lines and names bidi and zero-width characters instead of letting them reorder the line", async () => {
    const html = await page({ ...FACTS, hunks: TEXTS });
    expect(html).not.toMatch(/<script|<\/td><\/table><script/i);
    const unneeded = block(section(html, "diff"), "hunk-2");
    expect(unneeded).toContain(`    return &quot;&lt;/td&gt;&lt;/table&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot; if a == 1 else 0`);
    expect(html).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b-\u200f]/);
    expect(unneeded).toContain(`    access = &#39;user&#39; # <span class="char">U+202E</span> } <span class="char">U+2066</span>if admin<span class="char">U+2069</span> <span class="char">U+2066</span> begin admin only<span class="char">U+200B</span>`);
    expect(unneeded).toContain(`<strong>5 invisible or direction-changing characters</strong> in these lines`);
    // The needed hunk holds none: no warning there.
    expect(block(section(html, "diff"), "hunk-1")).not.toContain("invisible");
  });

  it("falls back to today's table for page facts without hunk text, or with text of the wrong shape", async () => {
    for (const facts of [FACTS, { ...FACTS, hunks: [{ path: "src/calc.py", lines: "<script>" }] as unknown as HunkText[] }, null]) {
      const diff = section(await page(facts), "diff");
      expect(diff).toContain(`<tr id="hunk-2" class="unneeded"><td class="break"><code>src/calc.py:9</code></td><td><span class="status fail">✗ no test needs it</span></td><td class="break">${UNNEEDED.message}</td></tr>`);
      expect(diff).toContain("(The hunks' text was not kept beside this journal entry.)");
      expect(diff).not.toContain("class=\"hunk ");
    }
  });

  it("says so for a hunk whose text was not kept, and still shows it with its finding", async () => {
    const diff = section(await page({ ...FACTS, hunks: TEXTS.slice(0, 1) }), "diff");
    expect(block(diff, "hunk-2")).toContain(`<span class="break">${UNNEEDED.message}</span></p><p class="muted">The text of this hunk was not kept.</p>`);
  });
});
