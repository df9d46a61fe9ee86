// What the verdict page shows that the signed envelope does not carry: the judge's stage timings,
// the diff facts, a summary of the base and head test runs, and the text of diff.needed's hunks
// (bounded). Kept next to the journal entry, keyed by its id, in `<dataDir>/verdict-pages/`.
// Unsigned, so the page labels it as such.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Evidence } from "../kernel/index.js";
import type { HunkLine, HunkText } from "../measure/needed/hunk-text.js";
import type { DiffFact } from "../workspace/types.js";

export const PAGE_FACTS_DIR = "verdict-pages";

export interface FileFact {
  status: DiffFact["status"];
  path: string;
  oldPath: string | null;
  oldMode: string;
  newMode: string;
  size: number | null;
  symlinkTarget: string | null;
  submodule: boolean;
  binary: boolean;
}

/** One suite run's shape, without any of its output (untrusted text stays in the claims, escaped). */
export interface RunSummary {
  setupMs: number | null;
  testsMs: number | null;
  exitCode: number | null;
  timedOut: boolean;
  cases: number | null;
}

export interface PageFacts {
  version: 1;
  /** Stage -> milliseconds, in the order the judge recorded them, plus `sign` (record). */
  timings: Record<string, number>;
  files: FileFact[];
  runs: { base: RunSummary | null; head: RunSummary | null };
  /**
   * diff.needed's hunks with their lines, each naming the signed finding it belongs to. Absent in
   * facts written before they were kept, or when diff.needed was not measured: the page then lists
   * the hunks by path and line only.
   */
  hunks?: HunkText[];
}

export function pageFactsOf(judgment: { facts: readonly DiffFact[]; evidence: readonly Evidence[]; timings: Record<string, number>; hunkTexts?: readonly HunkText[] }, signMs: number): PageFacts {
  const meta = judgment.evidence.find((e) => e.claim === "tests.regression")?.meta ?? judgment.evidence.find((e) => e.claim === "tests.red_green")?.meta;
  return {
    version: 1,
    timings: { ...judgment.timings, sign: Math.round(signMs) },
    files: judgment.facts.map((f) => ({
      status: f.status, path: f.path, oldPath: f.oldPath, oldMode: f.oldMode, newMode: f.newMode,
      size: f.size, symlinkTarget: f.symlinkTarget, submodule: f.submodule, binary: f.binary,
    })),
    runs: { base: runSummary(meta?.base), head: runSummary(meta?.head) },
    ...(judgment.hunkTexts === undefined || judgment.hunkTexts.length === 0 ? {} : { hunks: [...judgment.hunkTexts] }),
  };
}

/** Journal ids are UUIDs; anything else could name a path, so it never reaches the file system. */
export function isJournalId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/.test(id);
}

export async function writePageFacts(dataDir: string, journalId: string, facts: PageFacts): Promise<void> {
  if (!isJournalId(journalId)) throw new Error(`not a journal id: ${JSON.stringify(journalId)}`);
  const dir = join(dataDir, PAGE_FACTS_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${journalId}.json`);
  // Written whole, then renamed: a reader never sees half a file.
  await writeFile(`${path}.tmp`, JSON.stringify(facts), { mode: 0o600 });
  await rename(`${path}.tmp`, path);
}

/** The stored facts, or null when there are none (recorded elsewhere, or before this existed). */
export async function readPageFacts(dataDir: string, journalId: string): Promise<PageFacts | null> {
  if (!isJournalId(journalId)) return null;
  let text: string;
  try {
    text = await readFile(join(dataDir, PAGE_FACTS_DIR, `${journalId}.json`), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<PageFacts>;
  if (parsed.version !== 1 || typeof parsed.timings !== "object" || !Array.isArray(parsed.files)) return null;
  // Hunk text of the wrong shape is left out (the page falls back to the table), never half-shown.
  if (parsed.hunks !== undefined && !(Array.isArray(parsed.hunks) && parsed.hunks.every(isHunkText))) delete parsed.hunks;
  return parsed as PageFacts;
}

function isHunkText(value: unknown): value is HunkText {
  return isObject(value) && typeof value.path === "string" && typeof value.message === "string"
    && (value.line === undefined || typeof value.line === "number")
    && typeof value.moreRemoved === "number" && typeof value.moreAdded === "number"
    && Array.isArray(value.lines) && value.lines.every(isHunkLine);
}

function isHunkLine(value: unknown): value is HunkLine {
  return isObject(value) && (value.op === "-" || value.op === "+") && typeof value.line === "number" && typeof value.text === "string"
    && (value.cutChars === undefined || typeof value.cutChars === "number");
}

function runSummary(value: unknown): RunSummary | null {
  if (!isObject(value)) return null;
  const setup = isObject(value.setup) ? value.setup : null;
  const command = isObject(value.command) ? value.command : null;
  if (setup === null && command === null) return null;
  return {
    setupMs: numberOr(setup?.durationMs), testsMs: numberOr(command?.durationMs),
    exitCode: numberOr(command?.exitCode ?? setup?.exitCode),
    timedOut: command?.timedOut === true || setup?.timedOut === true,
    cases: numberOr(value.cases),
  };
}

function numberOr(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
