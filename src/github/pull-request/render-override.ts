// `ranex/judge` while a `/ranex override` is in force (issue 23): `success`, titled with who overrode
// and why, and below it the measured verdict in full (every failing claim, its runs, its envelope),
// because an override is a person's decision beside the measurement, never a new measurement.
import type { JournalAnchor } from "../../journal/anchor.js";
import { cutTitle, cutToFit, OUTPUT_TEXT_LIMIT } from "../limits.js";
import { renderOutput, type CheckOutput, type RenderInput } from "./render.js";

export interface OverrideShown {
  by: string;
  reason: string;
  at: string;
  /** The override's own journal entry: the check run's external_id, and its anchor opens output.text. */
  journalId: string;
  anchor: JournalAnchor | "unknown";
}

export function overriddenTitle(by: string, reason: string): string {
  return cutTitle(`OVERRIDDEN by @${by}: ${oneLine(reason)}`);
}

export function renderOverridden(input: RenderInput, override: OverrideShown): CheckOutput {
  const measured = renderOutput({ ...input, anchor: override.anchor });
  const sha7 = input.verdict.subject.head.slice(0, 7);
  const top = [
    ...(input.notice === undefined || input.notice === null ? [] : [input.notice]),
    `## ⚠️ OVERRIDDEN by @${override.by}`,
    quote(override.reason),
    `@${override.by} overrode the measured ${input.verdict.verdict}${input.verdict.class === null ? "" : ` (${input.verdict.class})`} on \`${sha7}\` at ${override.at}. The override is signed and is journal entry \`${override.journalId}\`; \`ranex journal verify\` checks it with the chain.`,
    `It applies to \`${sha7}\` measured on base \`${input.verdict.subject.base.slice(0, 7)}\` only: a new push, a moved base or \`/ranex rejudge\` ends it and brings back the measured verdict. It is not an approval: \`ranex/approval\` still needs an independent approval of this commit (the person who overrode may give it).`,
    "---",
    "## The measured verdict, as signed",
  ].join("\n\n");
  // The measured summary keeps its own notice out: it is shown once, at the top.
  const rest = renderOutput({ ...input, notice: null, anchor: override.anchor }).summary;
  return {
    title: overriddenTitle(override.by, override.reason),
    summary: cutToFit(`${top}\n\n${rest}`, OUTPUT_TEXT_LIMIT, (n) => `_… ${n} characters cut to stay within GitHub's limit; the full verdict is journal entry \`${input.journalId}\`._`),
    text: measured.text,
  };
}

function quote(text: string): string {
  return text.split(/\r?\n/).map((line) => `> ${line}`).join("\n");
}

function oneLine(text: string): string {
  return text.replace(/\s+/gu, " ").trim();
}
