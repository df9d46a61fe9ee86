// The journal anchor a check run carries (issue 13): which journal entry the check run's verdict or
// approval is, and the chain head that entry extends. GitHub keeps check runs where the operator
// cannot edit them, so `ranex journal verify --github` can read these back and catch a journal that
// was cut, rolled back or forked after the fact. Pure: render and parse, no I/O.
import { z } from "zod";
import { GENESIS_HASH } from "./chain.js";
import { ENTRY_KINDS, type JournalEntry, type JournalHead } from "./types.js";

/** The HTML comment that opens `output.text` of every check run with a journal entry of its own. */
export const ANCHOR_MARKER = "<!-- ranex-journal-anchor v1 -->";

const hash = z.string().regex(/^[0-9a-f]{64}$/);
const position = z.object({ sequence: z.number().int().nonnegative(), hash }).strict();

/** The stable, machine-readable shape (documented in docs/verify.md). */
export const JournalAnchorSchema = z.object({
  v: z.literal(1),
  entry: z.object({ id: z.string().min(1), sequence: z.number().int().positive(), hash, kind: z.enum(ENTRY_KINDS) }).strict(),
  /** The head the entry extends: sequence 0 with the genesis hash for the first entry. */
  extends: position,
  /** The subject digest the entry is about. */
  subject: z.string().min(1),
}).strict().refine((a) => a.extends.sequence === a.entry.sequence - 1, { message: "extends must be the entry right before" });

export type JournalAnchor = z.infer<typeof JournalAnchorSchema>;

export function anchorOf(entry: Pick<JournalEntry, "id" | "sequence" | "hash" | "kind" | "prevHash" | "subject">): JournalAnchor {
  return {
    v: 1,
    entry: { id: entry.id, sequence: entry.sequence, hash: entry.hash, kind: entry.kind },
    extends: { sequence: entry.sequence - 1, hash: entry.prevHash },
    subject: entry.subject,
  };
}

/** The positions an anchor pins: the entry itself, and the one it extends (not position 0). */
export function anchorPositions(anchor: JournalAnchor): JournalHead[] {
  const pinned: JournalHead[] = [{ sequence: anchor.entry.sequence, hash: anchor.entry.hash }];
  if (anchor.extends.sequence > 0) pinned.push(anchor.extends);
  return pinned;
}

/**
 * The block that opens `output.text`: the marker, one line for people, and the anchor as one line of
 * JSON in a fenced block. It comes first so no text the agent influences can stand before it.
 */
export function renderAnchorBlock(anchor: JournalAnchor): string {
  const after = anchor.extends.sequence === 0 ? "the start of the journal" : `entry ${anchor.extends.sequence}`;
  return [
    ANCHOR_MARKER,
    `**Journal anchor:** this check run is journal entry ${anchor.entry.sequence} (${anchor.entry.kind}), extending ${after}. GitHub keeps this record; \`ranex journal verify --github <owner/repo>\` checks the gate's journal against it.`,
    "",
    "```json",
    JSON.stringify(anchor),
    "```",
  ].join("\n");
}

/**
 * A check run that is a journal entry whose position the gate no longer knows: a verdict recorded
 * before recorded verdicts kept their anchor, posted again. It says so instead of inventing one; it
 * names its entry by `external_id` only, which `ranex journal verify --github` still checks by id.
 */
export const UNKNOWN_ANCHOR_LINE = "**Journal anchor:** unknown. This verdict was recorded before the gate kept each recorded verdict's position in the journal, so this check run names its journal entry by `external_id` only; the check run first posted with it may carry the anchor.";

/** `block` then `rest`, with `rest` cut by `fit(room)` so the whole stays within `limit`. */
export function withAnchorBlock(anchor: JournalAnchor | "unknown" | undefined, limit: number, fit: (room: number) => string): string {
  if (anchor === undefined) return fit(limit);
  const block = anchor === "unknown" ? UNKNOWN_ANCHOR_LINE : renderAnchorBlock(anchor);
  return `${block}\n\n${fit(limit - block.length - 2)}`;
}

export type ParsedAnchor = { kind: "anchor"; anchor: JournalAnchor } | { kind: "none" } | { kind: "invalid"; problem: string };

const BLOCK = /^<!-- ranex-journal-anchor v1 -->\n[^\n]*\n\n```json\n([^\n]*)\n```/;

/**
 * Reads the anchor from a check run's `output.text`. Only a block at the very start counts: text
 * further down may quote what an agent wrote. `none` when the text does not open with the marker
 * (a check run from before anchors, or one without an entry); `invalid` when it does but is broken.
 */
export function parseAnchorBlock(text: string | null | undefined): ParsedAnchor {
  if (typeof text !== "string" || !text.startsWith(ANCHOR_MARKER)) return { kind: "none" };
  const match = BLOCK.exec(text);
  if (match === null) return { kind: "invalid", problem: "the text opens with the anchor marker but holds no anchor block after it" };
  let json: unknown;
  try {
    json = JSON.parse(match[1]!);
  } catch {
    return { kind: "invalid", problem: "the anchor block is not JSON" };
  }
  const parsed = JournalAnchorSchema.safeParse(json);
  if (!parsed.success) return { kind: "invalid", problem: `the anchor block does not have the anchor's shape: ${parsed.error.issues.map((i) => `${i.path.join(".") || "anchor"}: ${i.message}`).join("; ")}` };
  if (parsed.data.extends.sequence === 0 && parsed.data.extends.hash !== GENESIS_HASH) {
    return { kind: "invalid", problem: "the anchor's first entry does not extend the genesis hash" };
  }
  return { kind: "anchor", anchor: parsed.data };
}
