// The evidence sections of the verdict page: what changed, red then green per target, regressions,
// every other finding, and the timeline. Every string here may come from untrusted code: the `html`
// tag escapes it; findings are shown as the claims recorded them (secrets already masked there).
import type { ClaimResult, Detail } from "../kernel/index.js";
import { html, type Html } from "./html.js";
import type { FileFact, PageFacts } from "./page-facts.js";
import { hunkRows, hunksSection, NEEDED_CLAIM, unneededByPath, type HunkRow } from "./render-hunks.js";
import { seconds, timelineBars, timelineSvg } from "./timeline.js";

const DIFF_CLAIMS = ["diff.frozen", "diff.scope", "diff.safety", "diff.change", "secrets"];
const TEST_CLAIMS = ["tests.red_green", "tests.regression"];
const STATUS_NAMES: Record<FileFact["status"], string> = { A: "added", M: "modified", D: "deleted", R: "renamed", C: "copied", T: "type changed" };

export function diffSection(claims: readonly ClaimResult[], facts: PageFacts | null): Html {
  const diffClaims = claims.filter((c) => DIFF_CLAIMS.includes(c.name));
  const files = facts === null
    ? html`<p class="note">The changed files were not recorded beside this journal entry (judged before the page existed, or on another machine); the findings below come from the signed claims.</p>`
    : facts.files.length === 0 ? html`<p>No file changed.</p>` : filesTable(facts.files, diffClaims, unneededByPath(hunkRows(claims)));
  return html`<section aria-labelledby="diff"><h2 id="diff">What changed</h2>${files}${hunksSection(claims, facts?.hunks)}<h3>Findings on the diff</h3>${findingsBy(diffClaims, "No finding: no frozen, out-of-scope or unsafe path, and no credential in the added lines.")}</section>`;
}

function filesTable(files: readonly FileFact[], claims: readonly ClaimResult[], unneeded: ReadonlyMap<string, HunkRow[]>): Html {
  const rows = files.map((f) => {
    const flagged = claims.filter((c) => c.details.some((d) => d.path !== undefined && (d.path === f.path || d.path === f.oldPath))).map((c) => c.name);
    const hunks = unneeded.get(f.path) ?? [];
    const notes = [
      f.oldMode !== f.newMode && f.oldMode !== "000000" && f.newMode !== "000000" ? `mode ${f.oldMode} → ${f.newMode}` : null,
      f.symlinkTarget !== null ? `symlink → ${f.symlinkTarget}` : null,
      f.submodule ? "submodule" : null, f.binary ? "binary" : null,
      f.size !== null ? `${f.size} bytes` : null,
    ].filter((n): n is string => n !== null);
    const unneededNote = hunks.length === 0 ? "" : html`${flagged.length === 0 ? "" : "; "}<strong>no test needs</strong> ${hunks.map((h, i) => html`${i > 0 ? ", " : ""}<a href="#${h.anchor}">${h.detail.line === undefined ? "the whole file" : `line ${h.detail.line}`}</a>`)}`;
    const findings = flagged.length === 0 && hunks.length === 0 ? html`<span class="muted">none</span>` : html`${flagged.length === 0 ? "" : html`<strong>${flagged.join(", ")}</strong>`}${unneededNote}`;
    return html`<tr${hunks.length === 0 ? "" : html` class="unneeded"`}><td>${STATUS_NAMES[f.status] ?? f.status}</td><td class="break"><code>${f.oldPath !== null ? `${f.oldPath} → ` : ""}${f.path}</code></td><td>${notes.join(", ")}</td><td>${findings}</td></tr>`;
  });
  return html`<table><caption class="muted">${files.length} changed ${files.length === 1 ? "file" : "files"} (git diff of the base and head trees)</caption><thead><tr><th scope="col">status</th><th scope="col">path</th><th scope="col">notes</th><th scope="col">findings</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function testsSection(claims: readonly ClaimResult[], facts: PageFacts | null): Html {
  const redGreen = claims.find((c) => c.name === "tests.red_green");
  const regression = claims.find((c) => c.name === "tests.regression");
  if (redGreen === undefined && regression === undefined) return html``;
  const targets = (redGreen?.details ?? []).filter((d) => d.kind === "red-green" || d.kind === "target");
  const notes = (redGreen?.details ?? []).filter((d) => d.kind !== "red-green" && d.kind !== "target");
  const runs = facts?.runs;
  const runLine = runs === undefined || (runs.base === null && runs.head === null) ? html`` : html`<p class="muted">Base run: ${runText(runs.base)}. Head run: ${runText(runs.head)}.</p>`;
  return html`<section aria-labelledby="tests"><h2 id="tests">Tests: red on base, green on head</h2>${runLine}${
    targets.length === 0 ? html`<p>${redGreen === undefined ? "tests.red_green is not required by this gate." : redGreen.reason}</p>` : targetsTable(targets)}${
    notes.length > 0 ? findingList(notes) : ""}<h3>Regressions</h3>${
    regression === undefined ? html`<p>tests.regression is not required by this gate.</p>` : html`<p>${regression.reason}</p>${findingList(regression.details)}`}</section>`;
}

interface TargetRow { id: string; base: string; head: string; note: string }

/** Splits "<id>: failed on base, passed on head (not red on base)", as red-green.ts writes it. */
export function targetRow(detail: Detail): TargetRow {
  const match = /^(.*): (.+?) on base, (.+?) on head((?: \([^)]*\))*)$/s.exec(detail.message);
  if (match === null) return { id: detail.message, base: "?", head: "?", note: "" };
  return { id: match[1] ?? "", base: match[2] ?? "", head: match[3] ?? "", note: (match[4] ?? "").trim() };
}

function targetsTable(targets: readonly Detail[]): Html {
  const rows = targets.map((d) => {
    const row = targetRow(d);
    const ok = d.kind === "red-green";
    return html`<tr><td class="break"><code>${row.id}</code></td><td>${row.base}</td><td>${row.head}</td><td><span class="status ${ok ? "pass" : "fail"}">${ok ? "✓ red → green" : "✗ not red → green"}</span> ${row.note}</td></tr>`;
  });
  return html`<table><caption class="muted">Each target must fail on the base (with the PR's new tests laid over it) and pass on the head.</caption><thead><tr><th scope="col">target test</th><th scope="col">on base</th><th scope="col">on head</th><th scope="col">result</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function runText(run: PageFacts["runs"]["base"]): string {
  if (run === null) return "not run (or its result came from the cache)";
  const parts = [run.cases === null ? "no report" : `${run.cases} test cases`, run.exitCode === null ? "no exit status" : `exit ${run.exitCode}`];
  if (run.timedOut) parts.push("timed out");
  if (run.setupMs !== null) parts.push(`setup ${seconds(run.setupMs)}`);
  if (run.testsMs !== null) parts.push(`tests ${seconds(run.testsMs)}`);
  return parts.join(", ");
}

export function otherFindingsSection(claims: readonly ClaimResult[]): Html {
  // diff.needed's hunks have their own table in "What changed".
  const others = claims.filter((c) => !DIFF_CLAIMS.includes(c.name) && !TEST_CLAIMS.includes(c.name) && c.name !== NEEDED_CLAIM && c.details.length > 0);
  if (others.length === 0) return html``;
  return html`<section aria-labelledby="other"><h2 id="other">Other findings</h2>${findingsBy(others, "")}</section>`;
}

function findingsBy(claims: readonly ClaimResult[], none: string): Html {
  const withDetails = claims.filter((c) => c.details.length > 0);
  if (withDetails.length === 0) return html`<p class="muted">${none}</p>`;
  return html`${withDetails.map((c) => html`<h3><code>${c.name}</code>: <span class="status ${c.status}">${c.status}</span></h3>${findingList(c.details)}`)}`;
}

function findingList(details: readonly Detail[]): Html {
  if (details.length === 0) return html``;
  return html`<ul class="findings">${details.map((d) => html`<li>${d.path === undefined ? "" : html`<code class="break">${d.path}${d.line === undefined ? "" : `:${d.line}`}</code> `}${d.kind === undefined ? "" : html`<span class="muted">[${d.kind}]</span> `}${d.message}</li>`)}</ul>`;
}

export function timelineSection(facts: PageFacts | null): Html {
  if (facts === null || Object.keys(facts.timings).length === 0) {
    return html`<section aria-labelledby="timeline"><h2 id="timeline">Timeline</h2><p class="note">No stage timings were recorded beside this journal entry.</p></section>`;
  }
  const bars = timelineBars(facts);
  const rows = Object.entries(facts.timings).map(([stage, ms]) => html`<tr><td><code>${stage}</code></td><td>${seconds(ms)}</td></tr>`);
  return html`<section aria-labelledby="timeline"><h2 id="timeline">Timeline</h2>${timelineSvg(bars)}<details open><summary>Stage timings as a table</summary><table><thead><tr><th scope="col">stage</th><th scope="col">duration</th></tr></thead><tbody>${rows}</tbody></table></details><p class="muted">Durations as the judge recorded them (unsigned, stored beside the journal entry). Top-level stages ran one after another; the head and base runs ran side by side.</p></section>`;
}
