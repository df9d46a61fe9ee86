// A `.ranex/` (or `.github/`) file git ignores is never committed by `git add -A`, so the judge, which
// reads policy and tasks from the base commit only, never sees it (issue 22: node-semver's .gitignore
// ignores `/*`). The CLI commands that write or read those files ask git and say so, with the fix.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";

/** The rule that makes git ignore `path` in the checkout `dir` (its source, line and pattern), or null. */
export async function ignoringRule(dir: string, path: string): Promise<string | null> {
  // --no-index: the rules alone, whether or not the file is tracked; -v names the rule.
  const found = await execa("git", ["-C", dir, "check-ignore", "--no-index", "-v", "--", path], { reject: false });
  if (found.exitCode !== 0) return null;
  const [where] = found.stdout.split("\t");
  // `<source>:<line>:<pattern>`; a negated pattern (`!x`) matched means not ignored.
  const match = /^(.*):(\d+):(.*)$/.exec(where ?? "");
  if (match === null) return where ?? "";
  if (match[3]?.startsWith("!") === true) return null;
  return `${match[1] ?? ""} line ${match[2] ?? ""}: \`${match[3] ?? ""}\``;
}

/** What to tell a person about a `.ranex/` or `.github/` file that git ignores: why, and the two fixes. */
export function ignoredAdvice(path: string, rule: string): string {
  const top = path.split("/")[0] ?? path;
  return `git ignores ${path} (${rule}), so \`git add -A\` leaves it out and the gate, which reads it from the base commit, never sees it: ` +
    `commit it with \`git add -f ${path}\`, or add the line \`!/${top}/\` to .gitignore after that rule`;
}

/**
 * Why a file the base commit lacks may be missing, when `dir` is a local checkout: git ignores it,
 * or it is in the working tree but not committed. Null when neither (or `dir` is no checkout).
 */
export async function whyNotOnBase(dir: string, path: string): Promise<string | null> {
  if (!existsSync(join(dir, ".git"))) return null;
  const rule = await ignoringRule(dir, path).catch(() => null);
  if (rule !== null) return ignoredAdvice(path, rule);
  if (existsSync(join(dir, path))) return `${path} is in the working tree but not in that commit: commit it (\`git add ${path}\`) to the base branch`;
  return null;
}

/**
 * For `ranex init`: the gate's files in `dir` that git would ignore, the policy and the task
 * manifests (asked of a manifest's path: no task need exist yet), each with the fix.
 */
export async function ignoredGateFiles(dir: string): Promise<string[]> {
  const notes: string[] = [];
  for (const [path, shown] of [[".github/ranex.yml", ".github/ranex.yml"], [".ranex/tasks/task.yml", ".ranex/tasks/<id>.yml"]] as const) {
    const rule = await ignoringRule(dir, path).catch(() => null);
    if (rule !== null) notes.push(ignoredAdvice(shown, rule));
  }
  return notes;
}
