// Reads a JUnit report written by untrusted code. Everything that could hurt the reader is refused
// BEFORE the XML parser sees a byte: symlinks (read anything on the host), huge files, non-UTF-8 text,
// and DTDs or entities (XXE, billion laughs).
import { createHash } from "node:crypto";
import { constants, lstatSync } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { isAbsolute, join, normalize, sep } from "node:path";
import type { TestReport } from "./report-types.js";
import { JunitError, parseJunit } from "./junit.js";
import type { ResolveFile } from "./junit-paths.js";
import { junitIdsFor, readerFor } from "../runners/index.js";

export const JUNIT_MAX_BYTES = 50 * 1024 * 1024;

/**
 * Reads the report a test command wrote to $RANEX_JUNIT (alias $RANEX_REPORT): JUnit XML, or the
 * native format of one of the command's runners when that runner's reader claims the text
 * (`go test -json`, libtest's output: src/runners). `command` is the test command that ran.
 */
export async function readJunitReport(file: string, treeDir: string, command = ""): Promise<{ report: TestReport } | { error: string }> {
  const bytes = await readGuarded(file);
  if ("error" in bytes) return bytes;
  const text = decodeUtf8(bytes.data);
  if ("error" in text) return text;
  const native = text.text.trimStart().startsWith("<") ? null : readerFor(command, text.text);
  if (native !== null) {
    try {
      const report = await native.parse(text.text, treeResolver(treeDir), treeDir);
      return { report: { ...report, digest: `sha256:${createHash("sha256").update(bytes.data).digest("hex")}` } };
    } catch (error) {
      return { error: `refused: the ${native.format} report could not be read (${(error as Error).message})` };
    }
  }
  const refusal = refuseDangerousMarkup(text.text);
  if (refusal !== null) return { error: refusal };
  try {
    const resolve = treeResolver(treeDir);
    const report = junitIdsFor(command, parseJunit(text.text, resolve), { treeDir, resolve, text: text.text });
    // The digest names the bytes on disk, byte order mark and all.
    return { report: { ...report, digest: `sha256:${createHash("sha256").update(bytes.data).digest("hex")}` } };
  } catch (error) {
    if (error instanceof JunitError) return { error: `refused: ${error.message}` };
    return { error: `refused: the report could not be read (${(error as Error).message})` };
  }
}

async function readGuarded(file: string): Promise<{ data: Buffer } | { error: string }> {
  let info;
  try {
    info = await lstat(file);
  } catch {
    return { error: "no JUnit report at $RANEX_JUNIT: the test command wrote none" };
  }
  if (info.isSymbolicLink()) return { error: "refused: the JUnit report is a symbolic link" };
  if (!info.isFile()) return { error: "refused: the JUnit report is not a regular file" };
  if (info.size > JUNIT_MAX_BYTES) return { error: `refused: the JUnit report is ${info.size} bytes, over the 50 MB limit` };
  // O_NOFOLLOW closes the window between lstat and open: a symlink swapped in now fails to open.
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return { error: `refused: the JUnit report could not be opened (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) return { error: "refused: the JUnit report is not a regular file" };
    if (opened.size > JUNIT_MAX_BYTES) return { error: `refused: the JUnit report is ${opened.size} bytes, over the 50 MB limit` };
    // Read at most one byte past the limit, in case the file grows while we read.
    const data = Buffer.alloc(Math.min(opened.size, JUNIT_MAX_BYTES) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(data, length, data.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === data.length) break;
    }
    if (length > JUNIT_MAX_BYTES) return { error: "refused: the JUnit report grew over the 50 MB limit while being read" };
    return { data: data.subarray(0, length) };
  } finally {
    await handle.close();
  }
}

function decodeUtf8(data: Buffer): { text: string } | { error: string } {
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(data);
    // NUL is valid UTF-8 but never in XML text: UTF-16 read as UTF-8 looks like this.
    if (text.includes("\u0000")) return { error: "refused: the JUnit report is not UTF-8 text (it holds NUL bytes)" };
    return { text };
  } catch {
    return { error: "refused: the JUnit report is not valid UTF-8" };
  }
}

/**
 * The text with the contents of its comments and CDATA sections taken out, as far as they stand in
 * character data (outside every tag, whose quoted values are kept whole), or null when one is never
 * closed. Inside them `<!DOCTYPE` is text, not markup: an HTML parser's failing test prints it in
 * Surefire's CDATA stack trace (jhy/jsoup), and the whole report was refused.
 */
function markupOutsideText(text: string): string | null {
  const kept: string[] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf("<", at);
    if (open < 0) break;
    kept.push(text.slice(at, open));
    const section = text.startsWith("<!--", open) ? "-->" : text.startsWith("<![CDATA[", open) ? "]]>" : null;
    if (section !== null) {
      const close = text.indexOf(section, open + 4);
      if (close < 0) return null;
      kept.push(section === "-->" ? "<!---->" : "<![CDATA[]]>");
      at = close + section.length;
      continue;
    }
    // A tag, a declaration or a processing instruction: to its `>` outside quotes, kept whole.
    let end = open + 1;
    let quote: string | null = null;
    for (; end < text.length; end++) {
      const ch = text[end];
      if (quote !== null) {
        if (ch === quote) quote = null;
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === ">") break;
    }
    kept.push(text.slice(open, end + 1));
    at = end + 1;
  }
  kept.push(text.slice(at));
  return kept.join("");
}

/** A reason to refuse the text, or null. Plain text checks: no parser has run yet. */
export function refuseDangerousMarkup(text: string): string | null {
  const markup = markupOutsideText(text);
  if (markup === null) return "refused: a comment or CDATA section is never closed";
  if (/<!DOCTYPE/i.test(markup)) return "refused: DTD present (a JUnit report needs none; DTDs allow entity attacks)";
  if (/<!ENTITY/i.test(markup)) return "refused: ENTITY declaration present";
  // Any other markup declaration (<!ELEMENT, <!ATTLIST, ...) is DTD syntax; only comments and CDATA pass.
  const declaration = /<!(?!--|\[CDATA\[)/.exec(markup);
  if (declaration !== null) return "refused: a markup declaration other than a comment or CDATA is present";
  const encoding = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i.exec(text);
  if (encoding?.[1] !== undefined && !/^(utf-?8|us-ascii|ascii)$/i.test(encoding[1])) {
    return `refused: the report declares encoding ${encoding[1]}; only UTF-8 is read`;
  }
  return null;
}

/** Whether a relative path names a file inside the tree, without following it out of the tree. */
export function treeResolver(treeDir: string): ResolveFile {
  const root = normalize(treeDir);
  return (candidate, kind = "file") => {
    if (candidate === "" || isAbsolute(candidate)) return false;
    const full = normalize(join(root, candidate));
    if (!full.startsWith(root.endsWith(sep) ? root : root + sep)) return false;
    try {
      const info = lstatSync(full);
      return kind === "directory" ? info.isDirectory() : info.isFile() || info.isSymbolicLink();
    } catch {
      return false;
    }
  };
}
