import type { Detail, Evidence } from "../../kernel/types.js";
import { MODE_GITLINK, type DiffFact } from "../../workspace/types.js";
import { isNewOnHead, listed, matcher, plural, shown, type DiffContext } from "./context.js";
import { shadowedModules } from "./shadow-names.js";
import { frozenSet, newTestFiles } from "./frozen-set.js";
import { linksOf, resolveSymlink, throughLinks } from "./symlinks.js";
import { harnessReferences, type ScanKind } from "./harness.js";
import { targetNames } from "./target-names.js";
import { pathTricks, shadowedTool } from "./safety-paths.js";

export const SAFETY_CLAIM = "diff.safety";

/** Binary files an interpreter or runtime loads as code: never test data, wherever they sit. */
const LOADABLE_BINARY = /\.(?:so|pyd|pyc|pyo|dll|dylib|node|wasm|jar|class|exe|bin)$|\.so\.\d/i;

/**
 * Claim `diff.safety`: the shape of the change is one an honest change has. Fails on submodule
 * changes, symlinks leaving the repository (resolved link by link), files over `limits.file_bytes`,
 * path tricks, new files that shadow a test tool or, at a root of the module path, a module of the
 * standard library or an installed distribution, binary files outside `assets`, and added non-test
 * code that references the test harness or its report. Path names are judged on the head side only: deleting or
 * renaming away a badly named file is a repair, not a trick.
 */
export function safetyClaim(ctx: DiffContext): Evidence {
  const details: Detail[] = [];
  for (const fact of ctx.facts) details.push(...factFindings(fact, ctx));
  for (const { path, message } of shadowedModules(ctx)) details.push({ path, kind: "shadow", message: `${shown(path)}: ${message}` });
  // Frozen files (the policy, conftest.py, tests as of base) fail diff.frozen when changed at all, so
  // scanning them here would only repeat that. The PR's new test files are code like any other: they
  // run in the same runner, before and beside the tests that decide the verdict (issue 11).
  const frozen = frozenSet(ctx);
  const newTests = new Set(newTestFiles(ctx));
  // A file named like a test that defines none is code, and scanned as code (issue 19).
  const isTest = (path: string): boolean => newTests.has(path) || (frozen.isTestFile(path) && ctx.testless?.has(path) !== true);
  const kindOf = (path: string): ScanKind => frozen.has(path) ? "skip" : isTest(path) ? "test" : "code";
  const names = targetNames(ctx.task?.targets ?? [], ctx.added.filter((file) => newTests.has(file.path)));
  details.push(...harnessReferences(ctx.added, kindOf, names));

  // A `.git` component aims at the judge's own machinery (hooks, config): tampering, not sloppiness.
  const unsafe = details.some((d) => d.kind === "path" && d.message.includes(".git component"));
  if (details.length > 0) {
    return {
      claim: SAFETY_CLAIM, subject: ctx.subject, outcome: "fail", details, ...(unsafe ? { unsafe } : {}),
      reason: `${plural(details.length, "safety finding")}: ${listed(details.map((d) => d.message))}`,
    };
  }
  return {
    claim: SAFETY_CLAIM, subject: ctx.subject, outcome: "pass", details: [],
    reason: `${plural(ctx.facts.length, "changed path")}: no submodule, no symlink leaving the repository, `
      + `none over ${ctx.policy.limits.file_bytes} bytes, no path tricks, no test tool or module shadowed, no binary file outside the assets, no harness reference in added code`,
  };
}

function factFindings(fact: DiffFact, ctx: DiffContext): Detail[] {
  const found: Detail[] = [];
  const { path } = fact;
  const say = (kind: string, what: string): void => { found.push({ path, kind, message: `${shown(path)}: ${what}` }); };

  if (fact.submodule) say("submodule", submoduleChange(fact));

  const link = resolveSymlink(fact, linksOf(ctx.facts, ctx.headLinks));
  const through = link === null ? "" : throughLinks(link, path);
  if (link?.kind === "absolute") say("symlink", `symlink leaves the repository -> ${shown(link.target)} (absolute${through === "" ? "" : `,${through.slice(2, -1)}`})`);
  if (link?.kind === "escapes") say("symlink", `symlink leaves the repository -> ${shown(fact.symlinkTarget ?? "")} (resolves to ${shown(link.path)})${through}`);
  if (link?.kind === "loop") say("symlink", `symlink that never resolves (a loop of links)${through}`);
  if (link?.kind === "unknown") say("symlink", "symlink whose target could not be read");

  if (fact.status !== "D" && !fact.submodule) {
    const limit = ctx.policy.limits.file_bytes;
    if (fact.size === null) say("size", "size unknown, so it cannot be held to the file size limit");
    else if (fact.size > limit) say("size", `${fact.size} bytes, over the limit of ${limit} (limits.file_bytes)`);
  }

  if (fact.status !== "D") {
    const tricks = pathTricks(path);
    if (tricks.length > 0) say("path", `path has ${tricks.join(", ")}`);
  }

  // Binary content under code paths: a reviewer cannot read it and an interpreter may load it
  // (a sourceless .pyc, a native module). Frozen paths are diff.frozen's to report. Test data under
  // the test globs (an image a parser's test reads) is no code path, unless it is loadable code.
  const frozen = frozenSet(ctx);
  const testData = (frozen.isTestFile(path) || frozen.isTestData(path)) && !LOADABLE_BINARY.test(path);
  if (fact.binary && fact.status !== "D" && !fact.submodule && !frozen.has(path) && !testData && !matcher(ctx.policy.assets, { nocase: true })(path)) {
    say("binary", "binary file outside the policy's assets (docs, images, fonts): nobody can review what it does; allow it by a glob in `assets` if it is one");
  }

  if (isNewOnHead(fact)) {
    const tool = shadowedTool(path, ctx.policy.tests.command);
    if (tool !== null) say("shadow", `new file would shadow ${tool} from the working folder`);
  }
  return found;
}

function submoduleChange(fact: DiffFact): string {
  const wasLink = fact.oldMode === MODE_GITLINK;
  const isLink = fact.newMode === MODE_GITLINK;
  if (fact.status === "A" || (!wasLink && isLink)) return "submodule added";
  if (fact.status === "D" || (wasLink && !isLink)) return "submodule removed";
  return `submodule moved to commit ${fact.newBlob.slice(0, 12)}`;
}
