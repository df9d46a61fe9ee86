import type { Detail, Evidence } from "../../kernel/types.js";
import { MODE_SYMLINK, type DiffFact } from "../../workspace/types.js";
import { isNewOnHead, listed, plural, shown, type DiffContext } from "./context.js";
import { frozenSet, newTestFiles, type FrozenSet } from "./frozen-set.js";
import { helperWhy } from "./frozen-helpers.js";
import { linksOf, resolveSymlink, throughLinks } from "./symlinks.js";
import { assertMacroShadows } from "./assert-shadows.js";
import { releaseHint } from "./frozen-defaults.js";

export const FROZEN_CLAIM = "diff.frozen";

/** One way a change touched the frozen set. `paths` are every path the finding involves. */
export interface FrozenFinding {
  path: string;
  paths: string[];
  kind: "added" | "modified" | "mode" | "deleted" | "renamed" | "copied" | "type-changed" | "symlink" | "case-shadow" | "new-test" | "inline-test" | "assert-shadow" | "submodule";
  what: string;
}

/**
 * Every frozen-set violation of the change, in diff order. Shared with diff.scope, which leaves
 * these paths to this claim so one change is not counted twice.
 */
export function frozenFindings(ctx: DiffContext): FrozenFinding[] {
  const frozen = frozenSet(ctx);
  const newTests = new Set(newTestFiles(ctx));
  const links = linksOf(ctx.facts, ctx.headLinks);
  const findings: FrozenFinding[] = [];
  for (const fact of ctx.facts) {
    const direct = directChange(fact, frozen);
    if (direct !== null) { findings.push(explained(direct, frozen)); continue; }
    const indirect = indirectChange(fact, frozen, newTests, ctx.policy.tests.allow_new, links);
    if (indirect !== null) findings.push(indirect);
  }
  // Files inside a moved submodule (issue 22): frozen as if they were in the tree, named with the move.
  for (const fact of ctx.inside?.facts ?? []) {
    const direct = directChange(fact, frozen);
    const move = `inside the submodule ${shown(fact.within.path)}, moved ${fact.within.from.slice(0, 12)}→${fact.within.to.slice(0, 12)}`;
    if (direct !== null) findings.push(explained({ ...direct, what: `${direct.what} ${move}` }, frozen));
  }
  // Tests of the base inside source files (issue 22): frozen like a test file, line by line, so new
  // tests may still be added beside them. A path already reported whole is not reported again.
  const reported = new Set(findings.flatMap((f) => f.paths));
  for (const edit of ctx.inlineTestEdits ?? []) {
    if (reported.has(edit.path)) continue;
    findings.push({
      path: edit.path, paths: [edit.path], kind: "inline-test",
      what: `${edit.what}; tests on the base are frozen wherever they live: add new tests beside them instead`,
    });
  }
  for (const shadow of assertMacroShadows(ctx.added)) {
    if (!reported.has(shadow.path)) findings.push({ path: shadow.path, paths: [shadow.path], kind: "assert-shadow", what: shadow.what });
  }
  return findings;
}

/**
 * A finding on a path frozen only as a test helper says why it is frozen (issue 19); one on a
 * dependency manifest says which policy key lets PRs change it (issue 22).
 */
function explained(finding: FrozenFinding, frozen: FrozenSet): FrozenFinding {
  const helper = frozen.helperOf(finding.path);
  if (helper !== undefined) return { ...finding, what: `${finding.what}; ${helperWhy(helper)}` };
  const hint = releaseHint(finding.path);
  return hint === null ? finding : { ...finding, what: `${finding.what}; ${hint}` };
}

/** A frozen path itself added, modified, deleted, renamed, copied over, re-moded or re-typed. */
function directChange(fact: DiffFact, frozen: FrozenSet): FrozenFinding | null {
  const { path, oldPath } = fact;
  const modeChange = `mode ${fact.oldMode}→${fact.newMode}`;
  switch (fact.status) {
    case "A":
      return frozen.has(path) ? { path, paths: [path], kind: "added", what: "added" } : null;
    case "D":
      return frozen.has(path) ? { path, paths: [path], kind: "deleted", what: "deleted" } : null;
    case "M": {
      if (!frozen.has(path)) return null;
      const content = fact.oldBlob !== fact.newBlob;
      const mode = fact.oldMode !== fact.newMode;
      if (mode && !content) return { path, paths: [path], kind: "mode", what: modeChange };
      return { path, paths: [path], kind: "modified", what: mode ? `modified, ${modeChange}` : "modified" };
    }
    case "T": {
      if (!frozen.has(path)) return null;
      const symlink = fact.newMode === MODE_SYMLINK ? `, replaced by a symlink -> ${shown(fact.symlinkTarget ?? "?")}` : "";
      return { path, paths: [path], kind: "type-changed", what: `type changed ${fact.oldMode}→${fact.newMode}${symlink}` };
    }
    case "R": {
      const from = oldPath ?? path;
      if (frozen.has(from)) return { path: from, paths: [from, path], kind: "renamed", what: `renamed to ${shown(path)}` };
      if (frozen.has(path)) return { path, paths: [from, path], kind: "renamed", what: `renamed onto it from ${shown(from)}` };
      return null;
    }
    case "C":
      return frozen.has(path)
        ? { path, paths: [path], kind: "copied", what: `copied over from ${shown(oldPath ?? "?")}` }
        : null;
  }
}

/** Reaching the frozen set without naming it: symlinks into it, case twins, forbidden new tests. */
function indirectChange(
  fact: DiffFact, frozen: FrozenSet, newTests: ReadonlySet<string>, allowNew: boolean, links: ReadonlyMap<string, string>,
): FrozenFinding | null {
  const { path } = fact;
  const link = resolveSymlink(fact, links);
  if (link?.kind === "inside" && frozen.reaches(link.path)) {
    const into = link.path === "" ? "the repository root" : shown(link.path);
    return { path, paths: [path], kind: "symlink", what: `symlink into frozen set -> ${into}${throughLinks(link, path)}` };
  }
  if (!isNewOnHead(fact)) return null;
  const twin = frozen.caseShadowOf(path);
  if (twin !== null) return { path, paths: [path], kind: "case-shadow", what: `case-shadows ${shown(twin)}` };
  if (!allowNew && newTests.has(path)) {
    return { path, paths: [path], kind: "new-test", what: "new test file, and tests.allow_new is false" };
  }
  return null;
}

/** Claim `diff.frozen`: the change leaves the frozen set (tests as of base, harness, policy) alone. */
export function frozenClaim(ctx: DiffContext): Evidence {
  const found = frozenFindings(ctx);
  // A moved submodule whose files could not be compared (no URL, fetch refused) is missing evidence,
  // not tampering: alone it leaves the claim absent (class incomplete, still blocking); beside a real
  // finding it is listed with it.
  const unseen: FrozenFinding[] = (ctx.inside?.problems ?? []).map((problem) => (
    { path: problem.path, paths: [problem.path], kind: "submodule", what: `submodule moved; ${problem.why}` }));
  if (found.length === 0 && unseen.length > 0) {
    return {
      claim: FROZEN_CLAIM, subject: ctx.subject, outcome: "absent",
      details: unseen.map((f) => ({ path: f.path, kind: f.kind, message: `${shown(f.path)}: ${f.what}` })),
      reason: `not measured: ${listed(unseen.map((f) => `${shown(f.path)} (${f.what})`))}`,
    };
  }
  const findings = [...found, ...unseen];
  const details: Detail[] = findings.map((f) => ({ path: f.path, kind: f.kind, message: `${shown(f.path)}: ${f.what}` }));
  if (findings.length > 0) {
    const items = findings.map((f) => `${shown(f.path)} (${f.what})`);
    return {
      claim: FROZEN_CLAIM, subject: ctx.subject, outcome: "fail", details,
      reason: `${plural(findings.length, "frozen path")} changed: ${listed(items)}`,
    };
  }
  const newTests = newTestFiles(ctx);
  const targets = newTests.length === 0 ? ""
    : `; ${plural(newTests.length, "new test file")} ${newTests.length === 1 ? "is a red-then-green target" : "are red-then-green targets"}`;
  // The verdict names the frozen test helpers even when none changed: a reviewer sees what held.
  // Test data the frozen tests read and harness their configuration names, the same way (issues 19, 22).
  const helpers = frozenSet(ctx).helpers;
  const held = [
    { kind: undefined, what: "test helper" }, { kind: "data", what: "data file" }, { kind: "harness", what: "named harness file" },
  ].map(({ kind, what }) => {
    const these = helpers.filter((h) => h.kind === kind);
    return these.length === 0 ? "" : `; ${plural(these.length, what)} of the frozen tests frozen too: ${listed(these.map((h) => shown(h.path)))}`;
  }).join("");
  return {
    claim: FROZEN_CLAIM, subject: ctx.subject, outcome: "pass",
    details: helpers.map((h) => ({ path: h.path, kind: h.kind ?? "helper", message: `${shown(h.path)}: ${helperWhy(h)}` })),
    reason: `${plural(ctx.facts.length, "changed path")}${inside(ctx)}, none frozen${targets}${held}`,
  };
}

/** ` and 3 files inside moved submodules compared`: what a pass covered beyond the parent's diff. */
function inside(ctx: DiffContext): string {
  const count = ctx.inside?.facts.length ?? 0;
  return count === 0 ? "" : ` and ${plural(count, "file")} inside ${count === 1 ? "a moved submodule" : "moved submodules"} compared`;
}
