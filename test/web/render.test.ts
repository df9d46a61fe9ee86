import { describe, expect, it } from "vitest";
import { escapeHtml, html } from "../../src/web/html.js";
import { openJournal } from "../../src/journal/index.js";
import { verdictEntry } from "../../src/web/journal-view.js";
import { renderVerdictPage } from "../../src/web/render-verdict.js";
import { timelineBars } from "../../src/web/timeline.js";
import { targetRow } from "../../src/web/render-evidence.js";
import { dataDirKey, publicKeyPem, verifyEnvelope } from "../../src/attest/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { FACTS, HOSTILE_OUTPUT, HOSTILE_REASON, HOSTILE_TEST, QUOTED_PATH, recordFor } from "./verdicts.js";

async function renderedFail(facts = FACTS): Promise<string> {
  const dataDir = tempDir();
  const id = await recordFor(dataDir, "acme/calc", "fail");
  const journal = await openJournal({ dataDir });
  const entry = await journal.get(id);
  await journal.close();
  const verdict = verdictEntry(entry!)!;
  const pem = publicKeyPem((await dataDirKey(dataDir)).publicKey);
  return renderVerdictPage({
    verdict, previous: null, next: null, facts, publicKeyPem: pem,
    signature: await verifyEnvelope(verdict.envelope, pem),
    links: { verdict: (other) => `/v/${other}?token=t`, journal: "/j?token=t", envelope: "/e?token=t" },
  });
}

describe("escaping", () => {
  it("escapes every character that could open a tag or leave an attribute", () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\`</a>`)).toBe("&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;");
    expect(escapeHtml("a\u0000b\ud800c")).toBe("a\ufffdb\ufffdc");
    expect(html`<td title="${'" onmouseover="x'}">${"<b>"}${html`<i>ok</i>`}</td>`.text).toBe('<td title="&quot; onmouseover=&quot;x">&lt;b&gt;<i>ok</i></td>');
  });
});

describe("the verdict page", () => {
  it("shows hostile test names, quoted paths and reasons as text, never as markup", async () => {
    const page = await renderedFail();
    expect(page).not.toMatch(/<script|<img|<iframe|<b>bold|<\/textarea>/i);
    // "onerror=" survives only as text: no tag carries it.
    expect(page).not.toMatch(/<[^>]*onerror/i);
    expect(page).toContain("test_&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;");
    expect(page).toContain(escapeHtml(QUOTED_PATH));
    expect(page).toContain(escapeHtml(HOSTILE_REASON));
    expect(page).toContain("symlink → ../&lt;etc&gt;/passwd");
    // Secrets stay masked as the claim masked them.
    expect(page).toContain("AKIA************MPLE");
    expect(HOSTILE_TEST).toContain("<script>");
  });

  it("shows every run: how it ended, its stages, its report, and the output of the run that wrote none, open and escaped", async () => {
    const page = await renderedFail();
    const runs = page.split('<h2 id="runs">')[1]?.split("</section>")[0] ?? "";
    expect(runs).toContain("<code>head</code></th><td><span class=\"status fail\">✗ exit 3</span>");
    expect(runs).toContain("setup 800 ms, tests 1.5 s");
    expect(runs).toContain("no JUnit report at $RANEX_JUNIT: the test command wrote none");
    expect(runs).toContain(`<h3>Last lines of output: <code>head</code></h3><pre>${escapeHtml(HOSTILE_OUTPUT)}</pre>`);
    // The base run went fine: its output is there, one click away.
    expect(runs).toContain("<details><summary>Last lines of output: <code>base</code></summary><pre>1 failed, 3 passed</pre></details>");
    expect(page).not.toContain("<script>alert(1)");
  });

  it("is small, self-contained and makes no external request", async () => {
    const page = await renderedFail();
    expect(Buffer.byteLength(page)).toBeLessThan(50 * 1024);
    // Every src/href is a path on this server; the only absolute URL is the SVG namespace.
    const urls = [...page.matchAll(/\b(?:src|href|action)="([^"]*)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(3);
    expect(urls.filter((u) => !u.startsWith("/"))).toEqual([]);
    expect(page).not.toMatch(/<link|@import|url\(/);
  });

  it("puts the verdict and class first, with every claim's status and reason", async () => {
    const page = await renderedFail();
    expect(page).toMatch(/<p class="verdict">FAIL<span class="class">class: unsafe<\/span><\/p>/);
    for (const claim of ["diff.frozen", "diff.scope", "secrets", "tests.red_green", "tests.regression"]) {
      expect(page).toMatch(new RegExp(`<th scope="row"><code>${claim.replace(".", "\\.")}</code></th><td><span class="status (pass|fail|missing)">`));
    }
    expect(page).toContain("✓ The signature verifies");
    expect(page).toContain("ranex verify envelope.json --public-key signing.pub.pem --commit " + "b".repeat(40));
    expect(page).toContain("openssl pkeyutl -verify -rawin -pubin -inkey signing.pub.pem -sigfile sig.bin -in pae.bin");
    expect(page).toContain("-----BEGIN PUBLIC KEY-----");
    expect(page).toContain("approval: not possible");
  });

  it("shows where the diff started and which tree the tests ran on (issue 12)", async () => {
    const page = await renderedFail();
    expect(page).toContain(`<dt>merge base (diff from)</dt><dd><code>${"9".repeat(40)}</code>`);
    expect(page).toContain(`<dt>merged tree (tests ran on)</dt><dd><code>${"8".repeat(40)}</code>`);
  });

  it("says so when no timings or diff facts were kept beside the entry", async () => {
    const page = await renderedFail(null as never);
    expect(page).toContain("No stage timings were recorded");
    expect(page).toContain("The changed files were not recorded");
    expect(page).not.toContain("<svg");
  });
});

describe("the timeline", () => {
  it("lays top-level stages end to end and the head run's setup, checks and tests after the measurer started", () => {
    const bars = timelineBars(FACTS);
    const judge = bars.filter((b) => b.lane === "judge").map((b) => [b.label, b.startMs, b.ms]);
    expect(judge).toEqual([
      ["fetch", 0, 120], ["policy", 120, 4], ["diff", 124, 9], ["secret scan", 133, 310], ["materialise trees", 443, 40],
      ["measure", 483, 2600], ["evaluate", 3083, 1], ["sign", 3084, 25],
    ]);
    expect(bars.filter((b) => b.lane !== "judge").map((b) => [b.lane, b.label, b.startMs, b.ms])).toEqual([
      ["measuring process", "start", 483, 180],
      ["head run", "setup", 663, 500], ["head run", "check:no-todo", 1163, 150], ["head run", "tests", 1313, 1650],
      ["base run", "cached result", 663, 0],
    ]);
  });

  it("draws what ran beside the measurement in lanes of its own, not end to end after it", () => {
    const timings = { fetch: 100, diff: 10, materialise: 40, "diff-claims": 300, measure: 2000, "measurer-startup": 100, head: 1800, "base-cached": 0, "repeats-early": 600, repeats: 0, evaluate: 1 };
    const bars = timelineBars({ ...FACTS, timings });
    expect(bars.filter((b) => b.lane === "judge").map((b) => b.label)).toEqual(["fetch", "diff", "materialise trees", "measure", "evaluate"]);
    expect(bars.find((b) => b.lane === "diff claims")).toMatchObject({ startMs: 110, ms: 300 });
    // measure starts at 150; the runs after the measurer's 100 ms start.
    expect(bars.find((b) => b.lane === "repeats")).toMatchObject({ label: "early repeats", startMs: 250, ms: 600 });
    // Checks on a tree of their own ran beside the head run, not before its tests.
    const beside = timelineBars({ ...FACTS, timings: { ...timings, checks: 150, "check:no-todo": 150 } });
    expect(beside.filter((b) => b.lane === "checks").map((b) => [b.label, b.startMs, b.ms])).toEqual([["check:no-todo", 250, 150]]);
    expect(beside.filter((b) => b.lane === "head run").map((b) => b.label)).not.toContain("check:no-todo");
  });

  it("reads a target's base and head results from the red-green detail", () => {
    expect(targetRow({ message: "t.py::test_a: failed on base, passed on head", kind: "red-green" })).toEqual({ id: "t.py::test_a", base: "failed", head: "passed", note: "" });
    expect(targetRow({ message: "a: b::c: passed on base, failed on head (not red on base) (not green on head)" }))
      .toEqual({ id: "a: b::c", base: "passed", head: "failed", note: "(not red on base) (not green on head)" });
    expect(targetRow({ message: "ambiguous" }).base).toBe("?");
  });
});
