// The verdict page: the verdict and its class in large type, a CANDIDATE's reviewer's brief, every claim, the evidence sections,
// the approval state, the subject digests, the journal neighbours and how to verify it all.
import type { VerifyResult } from "../attest/index.js";
import type { ClaimResult } from "../kernel/index.js";
import { html, type Html } from "./html.js";
import type { ApprovalSeen, Neighbour, VerdictEntry } from "./journal-view.js";
import { page } from "./layout.js";
import type { PageFacts } from "./page-facts.js";
import { baseTipSection, briefSection, withoutBriefOnly } from "./render-brief.js";
import { diffSection, otherFindingsSection, testsSection, timelineSection } from "./render-evidence.js";
import { runsSection } from "./render-runs.js";
import type { OverrideSeen } from "./journal-view.js";

export interface VerdictPage {
  verdict: VerdictEntry;
  previous: Neighbour | null;
  next: Neighbour | null;
  facts: PageFacts | null;
  /** The signed approval that completes this CANDIDATE, when one exists and its signature holds. */
  approval?: ApprovalSeen | null;
  /** The signed override of this FAIL (issue 23), when one exists and its signature holds. */
  override?: OverrideSeen | null;
  publicKeyPem: string;
  signature: VerifyResult;
  /** Links that carry their own tokens: a neighbour verdict of the same repository, the repository's journal, the raw envelope. */
  links: { verdict: (journalId: string) => string; journal: string; envelope: string };
}

/** Envelopes larger than this are linked rather than shown inline, to keep the page small. */
const INLINE_ENVELOPE_CHARS = 16_000;
const STATUS_TEXT: Record<ClaimResult["status"], string> = { pass: "✓ pass", fail: "✗ fail", missing: "! missing" };

export function renderVerdictPage(input: VerdictPage): string {
  const p = input.verdict.statement.predicate;
  const head7 = p.subject.head.slice(0, 7);
  const title = `${p.verdict}${p.class === null ? "" : ` (${p.class})`} · ${input.verdict.repository} @ ${head7}`;
  // A CANDIDATE opens with the reviewer's brief; the findings below leave out what only the brief shows.
  const claims = withoutBriefOnly(p.claims);
  return page(title, html`${overrideBanner(input)}${banner(input)}${briefSection(p)}${claimsSection(claims)}${diffSection(claims, input.facts)}${testsSection(claims, input.facts)}${baseTipSection(p)}${runsSection(claims)}${
    otherFindingsSection(claims)}${timelineSection(input.facts)}${approvalSection(input)}${subjectSection(input)}${journalSection(input)}${verifySection(input)}`);
}

/** An overridden verdict says so first (issue 23): who, when, why; the measured verdict follows unchanged. */
function overrideBanner({ override }: VerdictPage): Html {
  if (override === undefined || override === null) return html``;
  return html`<div class="banner OVERRIDDEN" role="status" id="overridden"><p class="verdict">OVERRIDDEN</p><p class="lede">by @${override.by} (${override.role}) at ${override.time}: ${override.reason}</p><p class="muted">The measured verdict below still stands in the journal; the override is signed beside it as entry ${String(override.sequence)}. It is not an approval: <code>ranex/approval</code> still needs an independent approval of this commit.</p></div>`;
}

function banner({ verdict }: VerdictPage): Html {
  const p = verdict.statement.predicate;
  const ref = verdict.statement.subject[0]?.name ?? verdict.repository;
  const lede = p.verdict === "CANDIDATE"
    ? "Every required claim holds. This is not a pass: a person who had no hand in the change must still approve this exact commit."
    : p.reasons[0] ?? "A required claim fails or has no evidence.";
  return html`<h1>Verdict for <span class="break">${ref}</span></h1><p class="muted">head <code>${p.subject.head}</code> · judged ${p.time} · gate ${p.gateVersion} · journal entry ${verdict.entry.sequence}</p><div class="banner ${p.verdict}" role="status"><p class="verdict">${p.verdict}${p.class === null ? "" : html`<span class="class">class: ${p.class}</span>`}</p><p class="lede">${lede}</p></div>`;
}

function claimsSection(claims: readonly ClaimResult[]): Html {
  const rows = claims.map((c) => html`<tr><th scope="row"><code>${c.name}</code></th><td><span class="status ${c.status}">${STATUS_TEXT[c.status]}</span>${c.class === null ? "" : html` <span class="muted">(${c.class})</span>`}</td><td>${c.reason}</td></tr>`);
  return html`<section aria-labelledby="claims"><h2 id="claims">Claims</h2><table><thead><tr><th scope="col">claim</th><th scope="col">status</th><th scope="col">reason</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

function approvalSection({ verdict, approval }: VerdictPage): Html {
  const p = verdict.statement.predicate;
  const approvedBy = (a: ApprovalSeen) => a.approvers.map((who, i) => html`${i > 0 ? ", " : ""}<strong>@${who.login}</strong> (review ${String(who.reviewId)})`);
  const state = approval !== undefined && approval !== null
    ? html`<p><strong>approval: given</strong> on commit <code>${p.subject.head}</code> by ${approvedBy(approval)}${approval.time === "" ? "" : html` at ${approval.time}`}: signed and journalled as entry ${String(approval.sequence)}.</p>`
    : p.verdict === "CANDIDATE"
    ? html`<p><strong>approval: pending.</strong> <code>ranex/approval</code> turns green only when a qualifying person approves commit <code>${p.subject.head}</code>.</p>`
    : html`<p><strong>approval: not possible.</strong> The judge says FAIL; an approval counts only for a head judged CANDIDATE.</p>`;
  return html`<section aria-labelledby="approval"><h2 id="approval">Approval</h2>${state}<p>Disqualified from approving: the pull request's author, every commit author and committer, every <code>Co-authored-by</code> of any commit, bots, and the app itself. Approvals count only for the exact head commit.</p><p class="muted">Who may not approve a given pull request, and why, is listed in its <code>ranex/approval</code> check run.</p></section>`;
}

/** Issue 12: the diff claims start at the merge base; the tests ran on head merged into the base tip. */
function mergeRows(s: VerdictPage["verdict"]["statement"]["predicate"]["subject"]): [string, string | null][] {
  if (s.mergeBase === undefined) return []; // signed before the subject recorded it
  return [["merge base (diff from)", s.mergeBase], ["merged tree (tests ran on)", s.mergedTree === null ? "none: the merge conflicts" : s.mergedTree ?? null]];
}

function subjectSection({ verdict }: VerdictPage): Html {
  const s = verdict.statement.predicate.subject;
  const rows: [string, string | null][] = [
    ["repository", s.repository], ["base commit (tip)", s.base], ["head commit", s.head],
    ...mergeRows(s),
    ["base tree", s.baseTree], ["head tree", s.headTree],
    ["policy", s.policy], ["task", s.task], ["sandbox profile", s.sandbox],
    ...(s.sealed === undefined ? [] : [["sealed tests (digest of the sealed file)", s.sealed] as [string, string]]), ["subject digest", s.digest],
  ];
  const evidence = verdict.statement.predicate.evidence;
  return html`<section aria-labelledby="subject"><h2 id="subject">Subject digests</h2><dl class="kv">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v === null ? html`<span class="muted">none</span>` : html`<code>${v}</code>`}</dd>`)}</dl><details><summary>${evidence.length} evidence digests</summary><ul class="findings">${evidence.map((d) => html`<li><code>${d}</code></li>`)}</ul></details></section>`;
}

function journalSection({ verdict, previous, next, links }: VerdictPage): Html {
  const e = verdict.entry;
  const neighbour = (n: Neighbour | null, what: string): Html => n === null
    ? html`<span class="muted">none (${what === "previous" ? "first entry" : "newest entry"})</span>`
    : html`${n.id === null ? html`entry ${n.sequence} (${n.kind})` : html`<a href="${links.verdict(n.id)}">entry ${n.sequence} (${n.kind})</a>`}: <code>${n.hash}</code>`;
  return html`<section aria-labelledby="journal"><h2 id="journal">Journal</h2><dl class="kv"><dt>entry</dt><dd>${e.sequence} · id <code>${e.id}</code></dd><dt>hash</dt><dd><code>${e.hash}</code></dd><dt>previous hash</dt><dd><code>${e.prevHash}</code></dd><dt>previous</dt><dd>${neighbour(previous, "previous")}</dd><dt>next</dt><dd>${neighbour(next, "next")}</dd></dl><p><a href="${links.journal}">All journal entries of ${verdict.repository}</a></p></section>`;
}

function verifySection({ verdict, publicKeyPem, signature, links }: VerdictPage): Html {
  const head = verdict.statement.predicate.subject.head;
  const envelopeJson = JSON.stringify(verdict.envelope, null, 2);
  const checked = signature.ok
    ? html`<p><span class="status pass">✓ The signature verifies</span> with the key below (key id <code>${signature.keyId}</code>). Do not take this page's word for it: check it yourself.</p>`
    : html`<p><span class="status fail">✗ The signature does not verify</span> with this server's key: ${signature.reason}</p>`;
  const envelope = envelopeJson.length <= INLINE_ENVELOPE_CHARS
    ? html`<details><summary>The signed envelope (DSSE)</summary><pre>${envelopeJson}</pre></details>`
    : html`<p class="muted">The envelope is ${envelopeJson.length} characters: too large to show inline.</p>`;
  const ranexCommand = `ranex verify envelope.json --public-key signing.pub.pem --commit ${head}`;
  const openssl = [
    "jq -r .payload envelope.json | base64 -d > payload.bin",
    "jq -r '.signatures[0].sig' envelope.json | base64 -d > sig.bin",
    "type=$(jq -r .payloadType envelope.json)",
    "[ \"$type\" = \"application/vnd.in-toto+json\" ] || { echo \"unexpected payload type: $type\"; exit 1; }",
    "printf 'DSSEv1 %s %s %s ' \"${#type}\" \"$type\" \"$(wc -c < payload.bin | tr -d ' ')\" > pae.bin",
    "cat payload.bin >> pae.bin",
    "openssl pkeyutl -verify -rawin -pubin -inkey signing.pub.pem -sigfile sig.bin -in pae.bin",
    "jq -r '.subject[0].digest.gitCommit, .predicate.verdict' payload.bin",
  ].join("\n");
  return html`<section aria-labelledby="verify"><h2 id="verify">Verify</h2>${checked}<p>Download <a href="${links.envelope}" download="envelope.json">envelope.json</a> and the <a href="/ranex/public-key" download="signing.pub.pem">public key</a> (compare it with the one the gate's owner publishes), then:</p><h3>With ranex</h3><pre>${ranexCommand}</pre><h3>With OpenSSL 3 and jq</h3><pre>${openssl}</pre><p class="muted">Expect <code>Signature Verified Successfully</code>, then <code>${head}</code> and <code>${verdict.statement.predicate.verdict}</code>. <code>ranex journal verify --anchor envelope.json --public-key signing.pub.pem</code> checks the journal around it.</p><h3>Public key</h3><pre>${publicKeyPem.trim()}</pre>${envelope}</section>`;
}
