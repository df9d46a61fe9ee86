// diff.needed judges behaviour, not bytes (issue 19): a hunk whose file has the same token stream
// with and without it (comments, blank lines, spacing inside a line) changes nothing a test could
// see, so it is not a mutant and never "unneeded". Tokens come from a real tokenizer per language:
// Python's own `tokenize` (run by src/judge/python-tokens.ts) and js-tokens for JavaScript and
// TypeScript. A language without one keeps every hunk a mutant, as before.
import jsTokens from "js-tokens";

export type TokenLanguage = "python" | "js";

export function tokenLanguage(path: string): TokenLanguage | null {
  if (/\.pyw?$/.test(path)) return "python";
  if (/\.(?:[cm]?[jt]sx?)$/.test(path)) return "js";
  return null;
}

/**
 * The token stream of JavaScript or TypeScript as one string, comments and spacing left out. A
 * line break between two tokens stays as one mark however many there are (automatic semicolon
 * insertion reads line breaks), so joining two lines is still a change; adding a blank or comment
 * line is not. Null when the tokenizer meets text it cannot read (then the hunk stays a mutant).
 */
export function jsTokenKey(text: string, path: string): string | null {
  const parts: string[] = [];
  let brokeLine = false;
  // JSX files get JSX tokens (JSXText, JSXInvalid, ...) besides the plain ones.
  const tokens: Iterable<{ type: string; value: string; closed?: boolean }> = /x$/.test(path) ? jsTokens(text, { jsx: true }) : jsTokens(text);
  for (const token of tokens) {
    switch (token.type) {
      case "WhiteSpace":
      case "SingleLineComment":
      case "HashbangComment":
        continue;
      case "LineTerminatorSequence":
        brokeLine = true;
        continue;
      case "MultiLineComment":
        if (token.closed !== true) return null;
        if (/[\n\r\u2028\u2029]/.test(token.value)) brokeLine = true;
        continue;
      case "Invalid":
      case "JSXInvalid":
        return null;
      default:
        if (brokeLine && parts.length > 0) parts.push("\n");
        brokeLine = false;
        parts.push(`${token.type}\u0001${token.value}`);
    }
  }
  return parts.join("\u0000");
}
