import { objectHeaders, withCatFile } from "./cat-file.js";
import { WorkspaceError } from "./errors.js";
import { gitOrThrow, splitNul } from "./git.js";
import { MODE_GITLINK, MODE_SYMLINK, type ChangeStatus, type DiffFact } from "./types.js";

// Diff facts from `git diff-tree --raw -z`: the plumbing twin of `git diff --raw`, which reads no
// porcelain diff configuration. NUL separated, so no path is ever quoted or mangled.

/** Symlink targets longer than this cannot be created on Linux anyway (PATH_MAX). */
export const MAX_SYMLINK_TARGET = 4096;

const STATUSES = new Set<ChangeStatus>(["A", "M", "D", "R", "C", "T"]);

export interface DiffOptions {
  /** Also report copies (status C) of files modified in the same change (git -C). */
  findCopies?: boolean;
}

export async function diffFacts(gitDir: string, base: string, head: string, options: DiffOptions = {}): Promise<DiffFact[]> {
  const detection = ["-M", ...(options.findCopies ? ["-C"] : [])];
  const raw = await gitOrThrow(gitDir, ["diff-tree", "-r", "-z", "--no-abbrev", "--raw", ...detection, base, head], `cannot diff ${base}..${head}`);
  const facts = parseRaw(raw);
  const numstat = await gitOrThrow(
    gitDir,
    ["diff-tree", "-r", "-z", "--numstat", "--no-ext-diff", "--no-textconv", ...detection, base, head],
    `cannot diff ${base}..${head}`,
  );
  const binaryKeys = parseBinaryKeys(numstat);
  const sized = facts.filter((f) => f.status !== "D" && !f.submodule).map((f) => f.newBlob);
  const headers = await objectHeaders(gitDir, sized);
  const symlinks = facts.filter((f) => f.status !== "D" && f.newMode === MODE_SYMLINK);
  for (const link of symlinks) {
    // Refused from the size alone, so an oversized "symlink" blob is never streamed.
    const size = headers.get(link.newBlob)?.size ?? 0;
    if (size > MAX_SYMLINK_TARGET) throw new WorkspaceError(`symlink ${link.path} has a ${size}-byte target, more than ${MAX_SYMLINK_TARGET}`);
  }
  const targets = await readSymlinkTargets(gitDir, symlinks);
  for (const fact of facts) {
    if (fact.status !== "D" && !fact.submodule) {
      const header = headers.get(fact.newBlob);
      if (!header) throw new WorkspaceError(`blob ${fact.newBlob} of ${fact.path} is missing from the mirror`);
      fact.size = header.size;
    }
    fact.symlinkTarget = targets.get(fact) ?? null;
    fact.binary = binaryKeys.has(keyOf(fact.oldPath, fact.path));
  }
  return facts;
}

/** Parses `:oldmode newmode oldsha newsha status[score]\0path\0[newpath\0]` records. */
export function parseRaw(raw: Buffer): DiffFact[] {
  const fields = splitNul(raw);
  const facts: DiffFact[] = [];
  for (let i = 0; i < fields.length; ) {
    const meta = fields[i++]?.toString("utf8") ?? "";
    const match = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])(\d*)$/.exec(meta);
    if (!match) throw new WorkspaceError(`unexpected git diff output: ${JSON.stringify(meta)}`);
    const [, oldMode = "", newMode = "", oldBlob = "", newBlob = "", letter = "", score = ""] = match;
    if (!STATUSES.has(letter as ChangeStatus)) throw new WorkspaceError(`git reported an unsupported change status '${letter}'`);
    const status = letter as ChangeStatus;
    const twoPaths = status === "R" || status === "C";
    const first = fields[i++];
    const second = twoPaths ? fields[i++] : undefined;
    if (first === undefined || (twoPaths && second === undefined)) throw new WorkspaceError("git diff output ended in the middle of an entry");
    facts.push({
      status,
      path: (second ?? first).toString("utf8"),
      oldPath: twoPaths ? first.toString("utf8") : null,
      score: score === "" ? null : Number(score),
      oldMode,
      newMode,
      oldBlob,
      newBlob,
      size: null,
      symlinkTarget: null,
      submodule: oldMode === MODE_GITLINK || newMode === MODE_GITLINK,
      binary: false,
    });
  }
  return facts;
}

function keyOf(oldPath: string | null, path: string): string {
  return oldPath === null ? path : `${oldPath}\0${path}`;
}

/** Keys of the entries `--numstat -z` reports as binary ("-\t-"). */
function parseBinaryKeys(numstat: Buffer): Set<string> {
  const fields = splitNul(numstat);
  const binary = new Set<string>();
  for (let i = 0; i < fields.length; ) {
    const record = fields[i++]?.toString("utf8") ?? "";
    const [added, deleted, path] = record.split("\t");
    if (added === undefined || deleted === undefined || path === undefined) {
      throw new WorkspaceError(`unexpected git numstat output: ${JSON.stringify(record)}`);
    }
    // A rename or copy has an empty path field followed by the old and new paths.
    const key = path === "" ? keyOf(fields[i++]?.toString("utf8") ?? "", fields[i++]?.toString("utf8") ?? "") : path;
    if (added === "-" && deleted === "-") binary.add(key);
  }
  return binary;
}

async function readSymlinkTargets(gitDir: string, facts: DiffFact[]): Promise<Map<DiffFact, string>> {
  const targets = new Map<DiffFact, string>();
  if (facts.length === 0) return targets;
  await withCatFile(gitDir, async (batch) => {
    for (const fact of facts) {
      const { content } = await batch.readBuffer(fact.newBlob, MAX_SYMLINK_TARGET, `the symlink target of ${fact.path}`);
      targets.set(fact, content.toString("utf8"));
    }
  });
  return targets;
}
