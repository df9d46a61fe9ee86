import { describe, expect, it } from "vitest";
import { dataDirKey, publicKeyPem, verifyEnvelope } from "../../src/attest/index.js";
import { recordVerdict } from "../../src/judge/record.js";
import { openJournal } from "../../src/journal/index.js";
import { evaluate, makeGate, subjectDigest, type Evidence } from "../../src/kernel/index.js";
import { verdictEntry } from "../../src/web/journal-view.js";
import { escapeHtml } from "../../src/web/html.js";
import { renderVerdictPage } from "../../src/web/render-verdict.js";
import { tempDir } from "../helpers/git-repo.js";
import { FACTS, HOSTILE_REASON, QUOTED_PATH, subjectFor } from "./verdicts.js";

// The reviewer's brief heads a CANDIDATE's page (issue 13), and diff.needed's hunks are listed in
// "What changed" with those no test needs highlighted. Signed verdicts from the real kernel, read
// back from a real journal; hostile strings on purpose.

const HOSTILE_SUBJECT = `<script>alert("base")</script> & thanks @alice`;
const AHEAD = `on the base tip, not in the head: abc1234 ${HOSTILE_SUBJECT} (changes src/stats.py; the pull request changes src/calc.py too)`;

async function rendered(claims: string[], evidence: (digest: string) => Evidence[]): Promise<string> {
  const dataDir = tempDir();
  const subject = subjectFor("acme/calc");
  const verdict = evaluate(makeGate(claims), evidence(subjectDigest(subject)), subject, null);
  const { entry } = await recordVerdict(verdict, { dataDir, ref: "refs/pull/7/head", time: "2026-02-03T04:05:06Z" });
  const journal = await openJournal({ dataDir });
  const read = verdictEntry((await journal.get(entry.id))!)!;
  await journal.close();
  const pem = publicKeyPem((await dataDirKey(dataDir)).publicKey);
  return renderVerdictPage({
    verdict: read, previous: null, next: null, facts: FACTS, publicKeyPem: pem, signature: await verifyEnvelope(read.envelope, pem),
    links: { verdict: (other) => `/v/${other}?token=t`, journal: "/j?token=t", envelope: "/e?token=t" },
  });
}

const section = (page: string, id: string): string => page.split(`<h2 id="${id}">`)[1]?.split("</section>")[0] ?? "";

describe("the reviewer's brief on the verdict page", () => {
  const candidate = (ahead: Evidence["details"]) => rendered(["diff.scope", "tests.red_green", "tests.regression", "diff.needed"], (digest) => [
    { claim: "diff.scope", subject: digest, outcome: "pass", reason: "every changed path is in scope", details: [] },
    { claim: "tests.red_green", subject: digest, outcome: "pass", reason: "1 target",
      details: [{ kind: "red-green", path: "tests/test_mul.py", message: "tests/test_mul.py::test_mul: failed on base, passed on head" },
        { kind: "self-authored", path: QUOTED_PATH, message: `self-authored: ${HOSTILE_REASON}` }] },
    { claim: "tests.regression", subject: digest, outcome: "pass", reason: "all 3 tests that passed on base pass on head", details: ahead },
    { claim: "diff.needed", subject: digest, outcome: "pass", reason: "each of the 1 changed hunks is needed by a test",
      details: [{ kind: "needed", path: QUOTED_PATH, line: 3, message: `${QUOTED_PATH}:3-4: needed by tests/test_mul.py::test_mul` }] },
  ]);

  it("heads a CANDIDATE's page: every section, the base tip's commits the head lacks, all escaped", async () => {
    const page = await candidate([{ kind: "base-ahead", message: AHEAD }, { kind: "base-ahead", message: "and 2 more commits on the base tip, not in the head (3 in all: git log bbbbbbb..aaaaaaa)" }]);
    expect(page.indexOf('<h2 id="brief">')).toBeGreaterThan(page.indexOf('class="banner CANDIDATE"'));
    expect(page.indexOf('<h2 id="brief">')).toBeLessThan(page.indexOf('<h2 id="claims">'));
    const brief = section(page, "brief");
    expect(brief).toContain("<h3>Tests the agent wrote itself (read these: they prove only what their author chose)</h3>");
    expect(brief).toContain(`<li><code class="break">${escapeHtml(QUOTED_PATH)}</code> self-authored: ${escapeHtml(HOSTILE_REASON)}</li>`);
    expect(brief).toContain(`<li>abc1234 ${escapeHtml(HOSTILE_SUBJECT)} (changes src/stats.py; the pull request changes src/calc.py too)</li>`);
    expect(brief).toContain("<li>and 2 more commits on the base tip, not in the head (3 in all: git log bbbbbbb..aaaaaaa)</li>");
    expect(brief).toContain(`Judged against base tip <code>aaaaaaa</code>. This page cannot see whether the base branch moved on since`);
    // Measured and nothing found, linked to the hunks table; not measured says so, with the names as code.
    expect(brief).toContain('<h3>Changed hunks no test needs</h3><p><strong>none</strong>: every changed hunk is needed by some test.</p><p class="muted"><a href="#hunks">');
    expect(brief).toContain("<h3>Flaky targets</h3><p><strong>not measured</strong>: <code>tests.stable</code> was not measured: the targets ran once.</p>");
    expect(page).not.toMatch(/<script|<img|<iframe/i);
    // The commits are the brief's, not findings of tests.regression.
    expect(section(page, "tests")).not.toContain("abc1234");
    expect(page.match(/abc1234/g)).toHaveLength(1);
    expect(page).not.toContain('<h2 id="base-tip">');
  });

  it("says 'none' when the head contains the base tip", async () => {
    const brief = section(await candidate([{ kind: "base-contained", message: "head bbbbbbb contains base tip aaaaaaa: the base has no commit the head lacks" }]), "brief");
    expect(brief).toContain("<p><strong>none</strong>: the head contains the base tip it was judged against.</p>");
  });

  it("is not on a FAIL's page; the unneeded hunk is highlighted in the diff and the base tip's commits still shown", async () => {
    const page = await rendered(["diff.scope", "tests.regression", "diff.needed"], (digest) => [
      { claim: "diff.scope", subject: digest, outcome: "pass", reason: "in scope", details: [] },
      { claim: "tests.regression", subject: digest, outcome: "fail", reason: "tests/test_stats.py::test_total passed on base, failed on head",
        details: [{ kind: "regressed", message: "tests/test_stats.py::test_total passed on base, failed on head" }, { kind: "base-ahead", message: AHEAD }] },
      { claim: "diff.needed", subject: digest, outcome: "fail", reason: `hunks no test needs: ${QUOTED_PATH}:5-6`, details: [
        { kind: "needed", path: QUOTED_PATH, line: 3, message: `${QUOTED_PATH}:3: needed by tests/test_mul.py::test_mul` },
        { kind: "unneeded", path: QUOTED_PATH, line: 5, message: `${QUOTED_PATH}:5-6: no test changes its outcome without this change` },
      ] },
    ]);
    expect(page).not.toContain('<h2 id="brief">');
    const diff = section(page, "diff");
    expect(diff).toContain(`<tr id="hunk-2" class="unneeded"><td class="break"><code>${escapeHtml(QUOTED_PATH)}:5</code></td><td><span class="status fail">✗ no test needs it</span>`);
    expect(diff).toContain(`<tr id="hunk-1" class="needed">`);
    // The file's row in the table of changed files is highlighted and links to its hunk.
    expect(diff).toMatch(new RegExp(`<tr class="unneeded"><td>modified</td><td class="break"><code>${escapeHtml(QUOTED_PATH).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}</code>.*<strong>no test needs</strong> <a href="#hunk-2">line 5</a>`));
    expect(section(page, "other") ?? "").not.toContain("diff.needed");
    expect(section(page, "base-tip")).toContain(`<li>abc1234 ${escapeHtml(HOSTILE_SUBJECT)}`);
    expect(section(page, "tests")).toContain("tests/test_stats.py::test_total passed on base, failed on head");
    expect(section(page, "tests")).not.toContain("abc1234");
  });
});
