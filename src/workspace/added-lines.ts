import { objectHeaders, withCatFile } from "./cat-file.js";
import { WorkspaceError } from "./errors.js";
import { gitOrThrow } from "./git.js";
import type { AddedLines, DiffFact, Hunk } from "./types.js";

// The lines a change adds, for the secret scan. Each file is diffed blob against blob with -U0, so
// the path never appears on a command line or in the parsed output: odd names cannot confuse it.

const REGULAR = new Set(["100644", "100755", "100664"]);

type Line = AddedLines["lines"][number];

export async function addedLines(gitDir: string, facts: readonly DiffFact[], maxBytes: number): Promise<AddedLines[]> {
  const candidates = facts.filter((f) => f.status !== "D");
  const oldBlobs = candidates.filter((f) => REGULAR.has(f.oldMode) && f.status !== "A").map((f) => f.oldBlob);
  const headers = await objectHeaders(gitDir, [...candidates.map((f) => f.newBlob).filter((b) => !/^0+$/.test(b)), ...oldBlobs]);
  const sizeOf = (blob: string): number => headers.get(blob)?.size ?? Number.POSITIVE_INFINITY;
  const result: AddedLines[] = [];
  await withCatFile(gitDir, async (batch) => {
    for (const fact of candidates) {
      const skipped = skipReason(fact, maxBytes, sizeOf);
      if (skipped !== null) {
        result.push({ path: fact.path, lines: [], skipped });
      } else if (REGULAR.has(fact.oldMode) && fact.status !== "A") {
        result.push({ path: fact.path, lines: await diffBlobs(gitDir, fact.oldBlob, fact.newBlob) });
      } else {
        // Added, or replacing a symlink or gitlink: every line of the new file is new.
        const { content } = await batch.readBuffer(fact.newBlob, maxBytes, fact.path);
        result.push({ path: fact.path, lines: splitLines(content) });
      }
    }
  });
  return result;
}

function skipReason(fact: DiffFact, maxBytes: number, sizeOf: (blob: string) => number): string | null {
  if (fact.submodule) return "submodule";
  if (!REGULAR.has(fact.newMode)) return fact.newMode === "120000" ? "symlink" : `mode ${fact.newMode}`;
  if (fact.binary) return "binary";
  const newSize = sizeOf(fact.newBlob);
  if (newSize > maxBytes) return `larger than ${maxBytes} bytes (${newSize})`;
  if (REGULAR.has(fact.oldMode) && fact.status !== "A" && sizeOf(fact.oldBlob) > maxBytes) {
    return `the old version is larger than ${maxBytes} bytes`;
  }
  return null;
}

/** Every line of a file, numbered from 1; a final newline does not start another line. */
export function splitLines(content: Buffer): Line[] {
  if (content.length === 0) return [];
  const texts = content.toString("utf8").split("\n");
  if (texts.at(-1) === "") texts.pop();
  return texts.map((text, i) => ({ line: i + 1, text }));
}

async function diffBlobs(gitDir: string, oldBlob: string, newBlob: string): Promise<Line[]> {
  return parseHunks(await blobPatch(gitDir, oldBlob, newBlob));
}

/** The -U0 patch of one blob against another, as text. */
async function blobPatch(gitDir: string, oldBlob: string, newBlob: string): Promise<string> {
  const out = await gitOrThrow(
    gitDir,
    ["diff", "-U0", "--text", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", oldBlob, newBlob],
    `cannot diff blob ${oldBlob} with ${newBlob}`,
  );
  return out.toString("utf8");
}

/** The '+' lines of a -U0 patch of one file, numbered by the hunk headers. */
export function parseHunks(patch: string): Line[] {
  const lines: Line[] = [];
  let next: number | null = null;
  for (const row of patch.split("\n")) {
    if (row.startsWith("@@")) {
      const header = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(row);
      if (!header) throw new WorkspaceError(`unexpected hunk header in git diff: ${JSON.stringify(row)}`);
      next = Number(header[1]);
    } else if (next === null) {
      continue; // file headers before the first hunk
    } else if (row.startsWith("+")) {
      lines.push({ line: next, text: row.slice(1) });
      next += 1;
    } else if (row.startsWith(" ")) {
      next += 1;
    }
  }
  return lines;
}

/** The hunks of one blob against another (-U0), base side numbered: what each changed (issue 22). */
export async function blobHunks(gitDir: string, oldBlob: string, newBlob: string): Promise<Hunk[]> {
  return parseOldHunks(await blobPatch(gitDir, oldBlob, newBlob));
}

/** The hunks of a -U0 patch of one file: `@@ -start,count +...` and the '+' lines of each. */
export function parseOldHunks(patch: string): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Hunk | null = null;
  for (const row of patch.split("\n")) {
    if (row.startsWith("@@")) {
      const header = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(row);
      if (!header) throw new WorkspaceError(`unexpected hunk header in git diff: ${JSON.stringify(row)}`);
      current = { oldStart: Number(header[1]), oldCount: header[2] === undefined ? 1 : Number(header[2]), added: [] };
      hunks.push(current);
    } else if (current !== null && row.startsWith("+")) {
      current.added.push(row.slice(1));
    }
  }
  return hunks;
}
