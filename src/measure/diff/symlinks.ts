// Where a symlink really points (issue 19, class 7). Normalising its target as text gets chains
// wrong: with `up -> ../..`, the text `up/../../tests/x.py` reads as a harmless folder beside `up`,
// while the filesystem first follows `up` and then climbs from where it lands. So a target is walked
// component by component against the head tree's own links, as the kernel would: every component
// that is itself a link is replaced by where that link resolves before the next `..` is applied.
import { posix } from "node:path";
import { MODE_SYMLINK, type DiffFact } from "../../workspace/types.js";

export type SymlinkResolution =
  | { kind: "inside"; path: string; via: string[] }
  | { kind: "absolute"; target: string; via: string[] }
  | { kind: "escapes"; path: string; via: string[] }
  | { kind: "loop"; via: string[] }
  | { kind: "unknown" };

/** As Linux's MAXSYMLINKS: a chain longer than this is a loop (ELOOP). */
const MAX_LINKS = 40;

/**
 * The links a change's symlinks are resolved against: every symlink of the head tree (path ->
 * target) when the caller read them, else at least the change's own links.
 */
export function linksOf(facts: readonly DiffFact[], headLinks: ReadonlyMap<string, string> | undefined): ReadonlyMap<string, string> {
  if (headLinks !== undefined) return headLinks;
  const links = new Map<string, string>();
  for (const f of facts) if (f.status !== "D" && f.newMode === MODE_SYMLINK && f.symlinkTarget !== null) links.set(f.path, f.symlinkTarget);
  return links;
}

/** Where a symlink on head points, relative to the repository root, walked through the tree's links. */
export function resolveSymlink(fact: DiffFact, links?: ReadonlyMap<string, string>): SymlinkResolution | null {
  if (fact.newMode !== MODE_SYMLINK || fact.status === "D") return null;
  const target = fact.symlinkTarget;
  if (target === null || target === "") return { kind: "unknown" };
  const dir = posix.dirname(fact.path);
  const via: string[] = [];
  const seen = { count: 0 };
  return walk(dir === "." ? [] : dir.split("/"), target, links ?? new Map([[fact.path, target]]), via, seen);
}

function walk(start: readonly string[], target: string, links: ReadonlyMap<string, string>, via: string[], seen: { count: number }): SymlinkResolution {
  if (target.startsWith("/")) return { kind: "absolute", target, via };
  const parts = target.split("/");
  let at = [...start];
  for (const [i, part] of parts.entries()) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (at.length === 0) {
        const rest = parts.slice(i + 1).filter((p) => p !== "" && p !== ".");
        return { kind: "escapes", path: posix.normalize(["..", ...rest].join("/")).replace(/\/+$/, ""), via };
      }
      at.pop();
      continue;
    }
    at.push(part);
    const here = at.join("/");
    const link = links.get(here);
    if (link === undefined) continue;
    if (++seen.count > MAX_LINKS) return { kind: "loop", via };
    via.push(here);
    const landed = walk(at.slice(0, -1), link, links, via, seen);
    if (landed.kind !== "inside") return landed;
    at = landed.path === "" ? [] : landed.path.split("/");
  }
  return { kind: "inside", path: at.join("/"), via };
}

/** " (through a, b)" when the walk followed other links, for a finding's message. */
export function throughLinks(resolution: SymlinkResolution, self: string): string {
  if (resolution.kind === "unknown") return "";
  const others = [...new Set(resolution.via)].filter((p) => p !== self);
  return others.length === 0 ? "" : ` (through ${others.join(", ")})`;
}
