// The runs section of the verdict page (issue 15, "Verdicts say why"): every run the claims stood on,
// how it ended, its stage timings and what became of its report, from the signed verdict itself. The
// output of a run that did not go as a run should is shown open; the others' output is one click away.
import type { ClaimResult } from "../kernel/index.js";
import { distinctRuns, endText } from "../measure/run-report.js";
import { html, type Html } from "./html.js";
import { seconds } from "./timeline.js";

export function runsSection(claims: readonly ClaimResult[]): Html {
  const runs = distinctRuns(claims);
  if (runs.length === 0) return html``;
  const rows = runs.map((r) => html`<tr><th scope="row"><code>${r.run}</code></th><td><span class="status ${r.ok ? "pass" : "fail"}">${r.ok ? "✓" : "✗"} ${endText(r)}</span>${
    r.limit === null ? "" : html`<br><strong>limit:</strong> ${r.limit}`}</td><td>${Object.entries(r.stages).map(([stage, ms], i) => html`${i > 0 ? ", " : ""}${stage} ${seconds(ms)}`)}</td><td>${r.report ?? html`<span class="muted">(a check writes no report)</span>`}${
    r.provenance === undefined ? "" : html`<br><span class="muted">${r.provenance}</span>`}</td></tr>`);
  const outputs = runs.filter((r) => r.outputTail !== "").map((r) => r.ok
    ? html`<details><summary>Last lines of output: <code>${r.run}</code></summary><pre>${r.outputTail}</pre></details>`
    : html`<h3>Last lines of output: <code>${r.run}</code></h3><pre>${r.outputTail}</pre>`);
  const silent = runs.filter((r) => !r.ok && r.outputTail === "").map((r) => html`<p><code>${r.run}</code> printed nothing.</p>`);
  return html`<section aria-labelledby="runs"><h2 id="runs">Runs</h2><table><caption class="muted">Each run of untrusted commands in the sandbox, as the signed verdict records it.</caption><thead><tr><th scope="col">run</th><th scope="col">how it ended</th><th scope="col">stages</th><th scope="col">report</th></tr></thead><tbody>${rows}</tbody></table>${silent}${outputs}</section>`;
}
