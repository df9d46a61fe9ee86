// GitHub's limits on check-run output. A post that breaks them is rejected, so output is cut to fit
// with a note saying so: a verdict is never lost because its explanation was long.

/** `output.summary` and `output.text` (the OpenAPI schema's maxLength). */
export const OUTPUT_TEXT_LIMIT = 65_535;
/** Titles: GitHub shows about this much, and annotation titles may not exceed it. */
export const TITLE_LIMIT = 255;
/** Annotations accepted per create/update request. */
export const ANNOTATIONS_PER_REQUEST = 50;

/**
 * Cuts `text` to at most `limit` UTF-16 code units (never more code points than GitHub counts),
 * preferring a line boundary and never splitting a surrogate pair, and appends `note`.
 */
export function cutToFit(text: string, limit: number, note: (cutChars: number) => string): string {
  if (text.length <= limit) return text;
  // The note's own length depends on how much was cut; one refinement pass settles it.
  let keep = limit - note(text.length).length - 2;
  if (keep < 0) return note(text.length).slice(0, limit);
  const newline = text.lastIndexOf("\n", keep);
  if (newline > keep * 0.8) keep = newline;
  const code = text.charCodeAt(keep - 1);
  if (code >= 0xd800 && code <= 0xdbff) keep -= 1;
  return `${text.slice(0, keep)}\n\n${note(text.length - keep)}`;
}

/** A one-line title, cut with an ellipsis. */
export function cutTitle(title: string): string {
  const line = title.replace(/\s+/g, " ").trim();
  if (line.length <= TITLE_LIMIT) return line;
  return `${[...line.slice(0, TITLE_LIMIT - 1)].join("").replace(/[\ud800-\udbff]$/, "")}…`;
}

/** Splits a list into batches of `size` (annotations: 50 per request). */
export function batches<T>(items: readonly T[], size = ANNOTATIONS_PER_REQUEST): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
