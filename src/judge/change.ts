import type { Evidence } from "../kernel/index.js";
import type { Policy, Task } from "../policy/schema.js";
import { submoduleChanges, WorkspaceError, type CommitsAhead, type MergeResult, type Repository, type SubmoduleChanges } from "../workspace/index.js";
import type { AddedLines, DiffFact } from "../workspace/types.js";
import { frozenClaim, safetyClaim, scopeClaim, type DiffContext } from "../measure/diff/index.js";
import type { ModuleNames } from "../measure/diff/context.js";
import { moduleNames, testlessFiles, treeLinks } from "./tree-facts.js";
import { inlineTestFacts } from "./inline-test-facts.js";
import type { InlineTestEdit } from "../measure/diff/inline-tests.js";
import { secretsClaim } from "../measure/secrets.js";
import { BASE_AHEAD_LIMIT } from "./base-ahead.js";

// What is judged (issue 12). The diff claims judge the pull request's own change, from the merge
// base to the head: exactly GitHub's "Files changed". The tests measure what would land: the head
// merged into the base's current tip, against that tip. Policy and task still come from the tip.

export interface Change {
  /** The base branch's tip. */
  base: string;
  head: string;
  baseTree: string;
  headTree: string;
  /** The commit the diff claims start from: the merge base, or base itself with exactBase. */
  mergeBase: string;
  /** The other merge bases of a criss-cross history: the change is judged from each of them too. */
  otherMergeBases: string[];
  /** Head merged into base: the tree the tests measure, or the conflicting paths. */
  merge: MergeResult;
  /** The commits of the base tip the head lacks (`head..base`), for the reviewer's brief. */
  ahead: CommitsAhead;
}

/**
 * Resolves what a judgment of head against base looks at. With `exactBase`, the old two-tree
 * judgment: the diff from base itself, and the head tree measured as it is.
 */
export async function resolveChange(repo: Repository, base: string, head: string, exactBase: boolean): Promise<Change> {
  const [merged, ahead] = await Promise.all([resolveMerge(repo, base, head, exactBase), repo.commitsAhead(base, head, BASE_AHEAD_LIMIT)]);
  return { ...merged, ahead };
}

async function resolveMerge(repo: Repository, base: string, head: string, exactBase: boolean): Promise<Omit<Change, "ahead">> {
  const [baseTree, headTree] = await Promise.all([repo.treeOf(base), repo.treeOf(head)]);
  const same = { base, head, baseTree, headTree };
  if (exactBase) return { ...same, mergeBase: base, otherMergeBases: [], merge: { clean: true, tree: headTree } };
  const bases = await repo.mergeBases(base, head);
  const [first, ...others] = bases;
  if (first === undefined) {
    throw new WorkspaceError(
      `base ${base.slice(0, 12)} and head ${head.slice(0, 12)} share no history (no merge base), so the head has no change of its own to judge; ` +
      "the CLI's --exact-base compares the two trees instead",
    );
  }
  // Head already contains the base tip: merging changes nothing but the head, so it is measured as is.
  if (first === base) return { ...same, mergeBase: base, otherMergeBases: [], merge: { clean: true, tree: headTree } };
  return { ...same, mergeBase: first, otherMergeBases: others, merge: await repo.mergeTree(base, head) };
}

export interface DiffJudgment {
  ctx: DiffContext;
  facts: DiffFact[];
  added: AddedLines[];
  evidence: Evidence[];
}

/** The change's files and the base's paths: all the test runs need to be planned. */
export interface ReadDiff {
  facts: DiffFact[];
  basePaths: string[];
  /** The head tree's symlinks, path -> target: links are resolved against them (issue 19). */
  headLinks: Map<string, string>;
  /** New files named like tests that define none: code (issue 19). */
  testless: Set<string>;
  /** Names outside the tree a new top-level module may not take (issue 19). */
  modules: ModuleNames;
  /** Edits to the base's tests inside source files (Rust unit tests, issue 22). */
  inlineTestEdits: InlineTestEdit[];
  /** The files inside submodules whose gitlinks the change moves (issue 22): judged as if in the tree. */
  inside: SubmoduleChanges;
}

const NOTHING_INSIDE: SubmoduleChanges = { facts: [], basePaths: [], problems: [] };

export async function readDiff(repo: Repository, from: string, head: string, policy: Policy): Promise<ReadDiff> {
  const [facts, files, headLinks] = await Promise.all([repo.diff(from, head), repo.listFiles(from), treeLinks(repo, head)]);
  const basePaths = files.map((f) => f.path);
  const gitlinks = facts.filter((f) => f.submodule).map((f) => f.path);
  // Fetched within the policy's tree limit, as the runs' trees are: the diff never downloads more than they may.
  const held = policy.sandbox.tree_mb === undefined ? repo : repo.withSubmoduleLimit(policy.sandbox.tree_mb * 1024 * 1024);
  const [testless, modules, inlineTestEdits, inside] = await Promise.all([
    testlessFiles(repo, head, facts, policy), moduleNames(repo, from, basePaths, policy, facts), inlineTestFacts(repo, from, facts, policy),
    gitlinks.length === 0 ? NOTHING_INSIDE : submoduleChanges(gitlinks, () => held.submodules(from), () => held.submodules(head)),
  ]);
  return { facts, basePaths, headLinks, testless, modules, inlineTestEdits, inside };
}

/** The context of the diff claims; `added` is left empty where only the file facts are read. */
export function diffContext(read: ReadDiff, input: { digest: string; policy: Policy; task: Task | null }, added: readonly AddedLines[] = []): DiffContext {
  return {
    subject: input.digest, facts: read.facts, basePaths: read.basePaths, policy: input.policy, task: input.task, added,
    headLinks: read.headLinks, testless: read.testless, modules: read.modules, inlineTestEdits: read.inlineTestEdits,
    inside: read.inside,
  };
}

/** The diff claims (and the secret scan when required) of a change already read. */
export async function diffClaims(
  repo: Repository, read: ReadDiff, input: { digest: string; policy: Policy; task: Task | null; secrets: boolean },
): Promise<DiffJudgment> {
  const added = await repo.addedLines(read.facts, input.policy.limits.file_bytes);
  const ctx = diffContext(read, input, added);
  const evidence = [frozenClaim(ctx), scopeClaim(ctx), safetyClaim(ctx)];
  if (input.secrets) evidence.push(await secretsClaim(input.digest, added));
  return { ctx, facts: read.facts, added, evidence };
}

/** The diff claims (and the secret scan when required) of the change from `from` to head. */
export async function judgeDiff(
  repo: Repository, from: string, head: string, input: { digest: string; policy: Policy; task: Task | null; secrets: boolean },
): Promise<DiffJudgment> {
  return diffClaims(repo, await readDiff(repo, from, head, input.policy), input);
}

/**
 * In a criss-cross history git merges the merge bases first, so what lands may differ from the
 * diff GitHub shows from the best one. The change is judged from every merge base: a failure from
 * any of them blocks, worded so the reader knows which history it comes from.
 */
export async function judgeFromOtherBases(
  repo: Repository, change: Change, input: { digest: string; policy: Policy; task: Task | null; secrets: boolean },
): Promise<Evidence[]> {
  const found: Evidence[] = [];
  const count = change.otherMergeBases.length + 1;
  for (const other of change.otherMergeBases) {
    const { evidence } = await judgeDiff(repo, other, change.head, input);
    for (const e of evidence.filter((x) => x.outcome === "fail")) {
      found.push({
        ...e,
        reason: `from merge base ${other.slice(0, 7)} (head and base have ${count} merge bases; merge or rebase the base branch to leave one): ${e.reason}`,
      });
    }
  }
  return found;
}

/** The failure of every measured claim when head and base do not merge: nothing would land as measured. */
export function conflictReason(change: Change, conflicts: readonly string[]): string {
  const shown = conflicts.slice(0, 5).map((p) => JSON.stringify(p)).join(", ");
  const more = conflicts.length > 5 ? ` and ${conflicts.length - 5} more` : "";
  return `not measured: head ${change.head.slice(0, 7)} does not merge cleanly into base ${change.base.slice(0, 7)} ` +
    `(conflicts in ${shown}${more}); merge or rebase the base branch, then push`;
}

export function withConflictDetails(evidence: Evidence[], conflicts: readonly string[]): Evidence[] {
  const details = conflicts.map((path) => ({ message: `merge conflict in ${JSON.stringify(path)}`, path, kind: "conflict" }));
  return evidence.map((e) => ({ ...e, details: [...e.details, ...details] }));
}
