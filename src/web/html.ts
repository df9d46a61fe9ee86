// Safe HTML by construction: every interpolated value is escaped unless it is already `Html`, made
// by this template tag. Test names, paths and reasons come from untrusted code; none of them can
// open a tag, end an attribute or start a script.

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" };

/** Escapes text for element content and quoted attribute values alike. */
export function escapeHtml(text: string): string {
  // Lone surrogates and C0 controls (except tab, newline) have no business in a page: replace them.
  return text
    .replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd"); // eslint-disable-line no-control-regex
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/** The template tag: `html\`<td>${name}</td>\`` escapes `name`; nested `html` stays as it is. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? "");
  });
  return new Html(out);
}

/** Markup written by this module itself (CSS, a fixed SVG path), never anything from input. */
export function trusted(text: string): Html {
  return new Html(text);
}
