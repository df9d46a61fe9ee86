// diff.needed, the trusted side: which hunks to check (the PR's own diff of non-test code), one
// mutant tree per hunk written before anything runs, and the claim from the measured mutants.
import { cp, lstat, readFile, realpath, unlink } from "node:fs/promises";
import { join, posix } from "node:path";
import type { Evidence, RunFact } from "../kernel/types.js";
import type { Policy } from "../policy/schema.js";
import type { Repository } from "../workspace/index.js";
import { MODE_SYMLINK, type DiffFact } from "../workspace/types.js";
import { hunkLabel, hunksOf, revertHunk, type Hunk } from "../measure/needed/hunks.js";
import { killers, mutantResult, neededClaim, type MutantResult } from "../measure/needed/claim.js";
import { hunkTexts, type HunkText } from "../measure/needed/hunk-text.js";
import { watchedIds } from "../measure/needed/selection.js";
import type { MutantRun, MutantSelection, MutantSpec } from "../measure/plan.js";
import type { RunName, SuiteRun, Target } from "../measure/report-types.js";
import { suiteRunFact } from "../measure/run-report.js";
import { listed } from "../measure/tests/run-facts.js";
import { writeInside } from "../workspace/write-inside.js";
import { matcher } from "../measure/diff/context.js";
import { jsTokenKey, tokenLanguage, type TokenLanguage } from "../measure/needed/tokens.js";
import { pythonTokenKeys } from "./python-tokens.js";

export interface NeededInput {
  repo: Repository;
  /** The PR's own diff: merge base to head commit. */
  from: string;
  to: string;
  facts: readonly DiffFact[];
  policy: Policy;
  /** Test files: new ones and the base's frozen ones are not code. */
  testFiles: ReadonlySet<string>;
  frozenPaths: ReadonlySet<string>;
}

/** A file of the change read for its hunks: both sides' text (null where absent). */
interface ReadFile {
  path: string;
  before: string | null;
  after: string | null;
  hunks: Hunk[];
}

/**
 * The hunks of non-test code, and files left out with the reason: not checked (binary, too large, a
 * link), or not behaviour (issue 19: a file outside code by the policy's `assets`, an empty package
 * marker, a hunk that leaves the file's token stream as it was). Only the hunks become mutants.
 */
export async function codeHunks(input: NeededInput): Promise<{ hunks: Hunk[]; skipped: MutantResult[] }> {
  const skipped: MutantResult[] = [];
  const files: ReadFile[] = [];
  const limit = input.policy.limits.file_bytes;
  const isAsset = matcher(input.policy.assets, { nocase: true });
  for (const fact of input.facts) {
    if (input.testFiles.has(fact.path) || input.frozenPaths.has(fact.path)) continue;
    const whole: Hunk = { path: fact.path, newStart: 1, oldStart: 1, newLines: [], oldLines: [], whole: "file" };
    // A moved gitlink is code that runs (issue 22) without a line of it in the diff: no hunk can be
    // put back to show a test needs it, so it is never passed silently.
    if (fact.submodule) {
      skipped.push({ hunk: whole, status: "not-checked", killedBy: [], why: "a submodule's commit changed: its code is not in the diff, so no mutant can check it" });
      continue;
    }
    if (isAsset(fact.path) && (fact.oldPath === null || isAsset(fact.oldPath))) {
      skipped.push({ hunk: whole, status: "not-behaviour", killedBy: [], why: "outside code: the policy's assets (docs, images, fonts)" });
      continue;
    }
    if (fact.binary || fact.newMode === MODE_SYMLINK || fact.oldMode === MODE_SYMLINK) {
      skipped.push({ hunk: whole, status: "not-checked", killedBy: [], why: fact.binary ? "a binary file" : "a symbolic link" });
      continue;
    }
    const before = fact.status === "A" ? null : await input.repo.readBlob(input.from, fact.oldPath ?? fact.path, limit + 1);
    const after = fact.status === "D" ? null : await input.repo.readBlob(input.to, fact.path, limit + 1);
    if ((before?.length ?? 0) > limit || (after?.length ?? 0) > limit || before?.includes(0) === true || after?.includes(0) === true) {
      skipped.push({ hunk: whole, status: "not-checked", killedBy: [], why: "binary or over the file size limit" });
      continue;
    }
    const [beforeText, afterText] = [before?.toString("utf8") ?? null, after?.toString("utf8") ?? null];
    // An empty package marker only makes a folder a package: no test can need its bytes.
    if (posix.basename(fact.path) === "__init__.py" && afterText !== null && afterText.trim() === "" && (beforeText ?? "").trim() === "") {
      skipped.push({ hunk: { ...whole, whole: fact.status === "A" ? "added" : "file" }, status: "not-behaviour", killedBy: [], why: "an empty package marker" });
      continue;
    }
    // A rename's old path is gone from the head: its hunks are those of the file as moved.
    files.push({ path: fact.path, before: beforeText, after: afterText, hunks: hunksOf(fact.path, beforeText, afterText) });
  }
  const hunks: Hunk[] = [];
  for (const { hunk, same } of await sameTokens(files, input.policy.toolchain.path)) {
    if (same) skipped.push({ hunk, status: "not-behaviour", killedBy: [], why: "only comments or whitespace: the same tokens with and without it" });
    else hunks.push(hunk);
  }
  return { hunks, skipped };
}

/** The text of a file with one hunk put back, as a mutant would have it ("" for a removed file). */
function withoutHunk(file: ReadFile, hunk: Hunk): string | null {
  if (hunk.whole === "added") return "";
  if (hunk.whole === "deleted") return file.before;
  if (file.after === null) return null;
  const reverted = revertHunk(file.after, hunk);
  return reverted === null ? null : reverted.content ?? "";
}

/** Text tokenized per judgment, at most: the files with and without each hunk. */
const TOKEN_BUDGET_BYTES = 64 * 1024 * 1024;

/** Each hunk, and whether its file tokenizes the same with and without it (in the files' order). */
async function sameTokens(files: readonly ReadFile[], toolchain: readonly string[]): Promise<{ hunk: Hunk; same: boolean }[]> {
  const pairs: { hunk: Hunk; language: TokenLanguage | null; head: string | null; mutant: string | null }[] = [];
  for (const file of files) {
    const language = tokenLanguage(file.path);
    for (const hunk of file.hunks) {
      // A deleted file's "head" is its absence: compared with the file brought back.
      const head = hunk.whole === "deleted" ? "" : file.after;
      pairs.push({ hunk, language, head, mutant: language === null ? null : withoutHunk(file, hunk) });
    }
  }
  // Bounded: past the budget, hunks stay mutants (needed.max_hunks then bounds what runs).
  let budget = TOKEN_BUDGET_BYTES;
  for (const pair of pairs) {
    budget -= (pair.head?.length ?? 0) + (pair.mutant?.length ?? 0);
    if (budget < 0) pair.language = null;
  }
  const pythonTexts = [...new Set(pairs.filter((p) => p.language === "python" && p.head !== null && p.mutant !== null).flatMap((p) => [p.head as string, p.mutant as string]))];
  const pythonKeys = new Map<string, string | null>();
  const keys = await pythonTokenKeys(pythonTexts, toolchain);
  pythonTexts.forEach((text, i) => pythonKeys.set(text, keys[i] ?? null));
  const keyOf = (language: TokenLanguage, text: string, path: string): string | null =>
    language === "python" ? pythonKeys.get(text) ?? null : jsTokenKey(text, path);
  return pairs.map(({ hunk, language, head, mutant }) => {
    if (language === null || head === null || mutant === null) return { hunk, same: false };
    const a = keyOf(language, head, hunk.path);
    const b = keyOf(language, mutant, hunk.path);
    return { hunk, same: a !== null && b !== null && a === b };
  });
}

export interface PreparedMutants {
  specs: MutantSpec[];
  /** A pristine copy of the tree for the selected tests' run without a mutation; null: no selection. */
  selectionTree: { treeDir: string; readonly: string[] } | null;
  /** Each spec's hunk, by id. */
  hunks: Map<number, Hunk>;
  /** Hunks not run: over `needed.max_hunks`, or not found in the measured tree. */
  unchecked: MutantResult[];
  of: RunName;
}

/**
 * Copies the (still pristine) tree of run `of` once per hunk and puts that hunk back in its copy;
 * when the runner can select tests (`selectable`), one more untouched copy, for the run of the
 * selected tests the mutants are compared with.
 */
export async function prepareMutants(hunks: readonly Hunk[], skipped: MutantResult[], max: number, of: RunName, tree: { treeDir: string; readonly: string[] }, scratch: string, selectable: boolean): Promise<PreparedMutants> {
  const prepared: PreparedMutants = { specs: [], selectionTree: null, hunks: new Map(), unchecked: [...skipped], of };
  for (const [index, hunk] of hunks.entries()) {
    if (index >= max) {
      prepared.unchecked.push({ hunk, status: "not-checked", killedBy: [], why: `beyond needed.max_hunks (${max})` });
      continue;
    }
    const file = join(tree.treeDir, hunk.path);
    // Never read or remove through a link: the file must be reached inside the tree as named.
    const info = await lstat(file).catch(() => null);
    if (info !== null && await realpath(file).catch(() => null) !== join(await realpath(tree.treeDir), hunk.path)) {
      prepared.unchecked.push({ hunk, status: "not-checked", killedBy: [], why: "it is reached through a link in the measured tree" });
      continue;
    }
    const measured = info === null ? null : info.isFile() ? await readFile(file, "utf8") : undefined;
    const reverted = measured === undefined ? null : revertHunk(measured, hunk);
    if (reverted === null) {
      prepared.unchecked.push({ hunk, status: "not-checked", killedBy: [], why: "its lines are not in the measured tree" });
      continue;
    }
    const dir = join(scratch, `tree-mutant-${index}`);
    await cp(tree.treeDir, dir, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    if (reverted.content === null) await unlink(join(dir, hunk.path));
    else await writeInside(dir, hunk.path, Buffer.from(reverted.content, "utf8"));
    prepared.specs.push({ id: index, of, treeDir: dir, readonly: tree.readonly });
    prepared.hunks.set(index, hunk);
  }
  if (selectable && prepared.specs.length > 0) {
    const dir = join(scratch, "tree-mutant-reference");
    await cp(tree.treeDir, dir, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    prepared.selectionTree = { treeDir: dir, readonly: tree.readonly };
  }
  return prepared;
}

/** The line that says which tests the mutants ran. */
function selectionText(selection: MutantSelection | undefined): string | undefined {
  if (selection === undefined) return undefined;
  if (!selection.used) return `each mutant ran the full suite: ${selection.why}`;
  const count = selection.files.length;
  const what = count === 0 ? "the watched tests, by name (the report names no file)"
    : `the ${count === 1 ? "test file" : `${count} test files`} holding a watched test (${listed(selection.files, 5)})`;
  const through = selection.how === "tests.select" ? "the policy's tests.select" : selection.how === "pytest plugin" ? "the gate's pytest plugin" : selection.how;
  return `each mutant first ran the selected tests: ${what}, ${selection.ids.length} of the suite's ${selection.suiteCases} test cases, through ${through}; a mutant they did not kill then ran the full suite`;
}

/** A mutant's run as the verdict shows it. */
function mutantRunFact(run: SuiteRun, name: string): RunFact {
  return { ...suiteRunFact(run), run: name };
}

/** diff.needed's evidence, and the text of each hunk it names for the verdict page (never signed). */
export interface NeededOutcome {
  evidence: Evidence;
  texts: HunkText[];
}

/**
 * diff.needed from the mutant runs: watched are the targets and every test that passed on base. A
 * mutant the selected tests killed, against their own run on the unmutated tree, is killed; any
 * other is judged on its full-suite run against the reference run of the same tree.
 */
export function neededEvidence(subject: string, prepared: PreparedMutants, runs: readonly MutantRun[], reference: SuiteRun, base: SuiteRun, targets: readonly Target[], selection?: MutantSelection): NeededOutcome {
  const results: MutantResult[] = [];
  const facts: RunFact[] = [];
  const watched = watchedIds(targets, base);
  const selectedReference = selection?.used === true ? selection.reference : null;
  if (selectedReference !== null) facts.push(mutantRunFact(selectedReference, "mutants' reference: selected tests"));
  for (const spec of prepared.specs) {
    const hunk = prepared.hunks.get(spec.id) as Hunk;
    const label = hunkLabel(hunk);
    const run = runs.find((r) => r.id === spec.id);
    const selected = selectedReference?.report != null ? run?.selected : undefined;
    if (selected !== undefined) facts.push(mutantRunFact(selected, `mutant ${label}: selected tests`));
    if (run?.run != null) facts.push(mutantRunFact(run.run, `mutant ${label}: full suite`));
    const firstKillers = selected === undefined ? [] : killers(selectedReference!.report!, selected, watched);
    if (reference.report === null) results.push({ hunk, status: "not-checked", killedBy: [], why: `the ${reference.label} run has no report` });
    else if (firstKillers.length > 0) results.push({ hunk, status: "killed", killedBy: firstKillers, suite: "selected" });
    else if (run?.run == null) results.push({ hunk, status: "not-checked", killedBy: [], why: run?.why ?? "the mutant did not run" });
    else results.push(mutantResult(hunk, reference.report, run.run, watched, selected === undefined ? "full" : "selected, then full"));
  }
  const all = [...results, ...prepared.unchecked];
  return { evidence: neededClaim(subject, all, selectionText(selection), facts), texts: hunkTexts(all) };
}
