import { describe, expect, it } from "vitest";
import { dataDirKey, publicKeyPem, verifyEnvelope } from "../../src/attest/index.js";
import type { AppDeps } from "../../src/github/deps.js";
import { journalDeps } from "../../src/github/journal-deps.js";
import { judge } from "../../src/judge/judge.js";
import { openJournal } from "../../src/journal/index.js";
import { readPageFacts, withPageFacts } from "../../src/web/index.js";
import { verdictEntry } from "../../src/web/journal-view.js";
import { renderVerdictPage } from "../../src/web/render-verdict.js";
import { fixtureRepo, loadExpectations } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";

// A real judgment on the page (issue 13): python-calc's `unneeded-branch` implements div and slips a
// special case for (31337, 7) into add, which no test needs. Judged by the real judge against
// main-strict (diff.needed required), recorded as the app records it (page facts beside the journal
// entry), read back and rendered: the unneeded hunk's own lines are on the page, marked.

describe("diff.needed's hunks of a real judgment on the verdict page", () => {
  it("shows the hunk no test needs with its lines, highlighted and marked, and the needed one folded; the signed verdict carries no code", async () => {
    const want = loadExpectations()["python-calc"]["unneeded-branch"]!;
    expect(want).toMatchObject({ base: "main-strict", task: "div", mentions: ["src/calc.py:5-6"] });
    const dataDir = tempDir();
    const journal = journalDeps({ dataDir });
    const { record } = withPageFacts({ ...journal, dataDir } as unknown as AppDeps, (err) => { throw err; });
    const judgment = await judge({ source: await fixtureRepo("python-calc"), base: want.base!, head: "unneeded-branch", task: want.task!, dataDir, repository: "acme/python-calc" });
    expect(judgment.verdict.verdict).toBe("FAIL");
    const { journalId } = await record(judgment, { repository: "acme/python-calc", ref: "refs/pull/7/head", time: "2026-02-03T04:05:06Z" });

    const j = await openJournal({ dataDir });
    const verdict = verdictEntry((await j.get(journalId))!)!;
    await j.close();
    // The code stays out of what is signed: the envelope names the hunk by path and lines only.
    expect(JSON.stringify(verdict.envelope)).not.toContain("31337");
    const facts = await readPageFacts(dataDir, journalId);
    expect(facts?.hunks?.find((h) => h.line === 5)?.lines).toEqual([
      { op: "+", line: 5, text: "    if (a, b) == (31337, 7):" }, { op: "+", line: 6, text: "        return 0" },
    ]);

    const pem = publicKeyPem((await dataDirKey(dataDir)).publicKey);
    const html = renderVerdictPage({
      verdict, previous: null, next: null, facts, publicKeyPem: pem,
      signature: await verifyEnvelope(verdict.envelope, pem), links: { verdict: (id) => `/v/${id}`, journal: "/j", envelope: "/e" },
    });
    const diff = html.split('<h2 id="diff">')[1]?.split("</section>")[0] ?? "";
    const unneeded = /<div id="(hunk-\d+)" class="hunk unneeded"[^>]*><p class="hunk-head"><span class="status fail">✗ no test needs it<\/span> <span class="break">src\/calc\.py:5-6: no test changes its outcome without this change<\/span><\/p>(.*?)<\/table><\/div>/.exec(diff);
    expect(unneeded, diff).not.toBeNull();
    expect(unneeded![2]).toContain(`<tr class="add"><td class="num"></td><td class="num">5</td><td class="op"><span aria-hidden="true">+</span><span class="sr">added</span></td><td class="code" dir="ltr">    if (a, b) == (31337, 7):</td></tr>`);
    expect(unneeded![2]).toContain(`<td class="num">6</td><td class="op"><span aria-hidden="true">+</span><span class="sr">added</span></td><td class="code" dir="ltr">        return 0</td></tr>`);
    // The changed file's row links to that block.
    expect(diff).toMatch(new RegExp(`<tr class="unneeded"><td>modified</td><td class="break"><code>src/calc.py</code>.*<strong>no test needs</strong> <a href="#${unneeded![1]}">line 5</a>`));
    // div's implementation is needed (test_div kills its mutant): folded, with its lines.
    const needed = /<details id="hunk-\d+" class="hunk needed"><summary><span class="status pass">✓ needed<\/span> <span class="break">src\/calc\.py:15: needed by tests\/test_div\.py::test_div<\/span><\/summary>(.*?)<\/details>/.exec(diff);
    expect(needed?.[1]).toMatch(/<tr class="del"><td class="num">\d+<\/td><td class="num"><\/td>.*raise NotImplementedError\(&quot;div: see \.ranex\/tasks\/div\.yml&quot;\)<\/td><\/tr><tr class="add"><td class="num"><\/td><td class="num">15<\/td>.*dir="ltr"> {4}return a \/ b<\/td>/);
  }, 240_000);
});
