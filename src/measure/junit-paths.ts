// Maps what a JUnit report says about where a test lives (a `file` attribute, a vitest classname that
// is a path, pytest's or surefire's dotted classname) to a path in the materialised tree.

/**
 * True when `candidate` (relative, `/`-separated, no `..`) names a file in the tree, or with `kind`
 * "directory", a directory. A resolver that knows no directories answers false for them: dotted
 * directory names (`tests/v2.0/`) then stay unresolved, everything else works.
 */
export type ResolveFile = (candidate: string, kind?: "file" | "directory") => boolean;

/**
 * A path as a runner printed it, made relative to the tree. Runners print absolute paths as they saw
 * them inside the sandbox (`/work/test/x.js`), or under any prefix they like, so leading components
 * are dropped until the rest names a file. Null when no suffix does, or the path climbs out (`..`).
 */
export function resolveReportedPath(raw: string, resolve: ResolveFile): string | null {
  const text = raw.trim().replace(/^file:\/\//, "").replace(/\\/g, "/");
  const parts = text.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.length === 0 || parts.includes("..")) return null;
  for (let start = 0; start < parts.length; start++) {
    const candidate = parts.slice(start).join("/");
    if (resolve(candidate)) return candidate;
  }
  return null;
}

// pytest writes `tests.unit.test_calc.TestX` for tests/unit/test_calc.py::TestX; surefire writes the
// Java class, whose source sits under a conventional root.
const SOURCE_EXTENSIONS = [".py", ".java", ".kt", ".scala", ".groovy"];
const SOURCE_ROOTS = ["", "src/test/java/", "src/test/kotlin/", "src/test/scala/", "src/test/groovy/"];

export interface DottedMatch {
  file: string;
  /** What follows the module inside the file: classes, nested classes. */
  inner: string[];
}

/**
 * Resolves a dotted classname to the longest module prefix that is a file in the tree. A dot is
 * usually a folder separator (`tests.unit.test_calc`), but folder and file names may hold dots
 * themselves (`tests/v2.0/test_x.py` is `tests.v2.0.test_x`), so those readings are tried too, as far
 * as the tree has such folders.
 */
export function resolveDottedClassname(classname: string, resolve: ResolveFile): DottedMatch | null {
  if (classname === "" || classname.includes("/")) return null;
  const dotted = classname.split(".");
  const last = dotted.pop() ?? "";
  // A Java nested class `CalcTest$Inner` lives in CalcTest.java.
  const [outer = "", ...nested] = last.split("$");
  const parts = [...dotted, outer];
  if (parts.some((part) => part === "")) return null;
  for (const { module, consumed } of moduleCandidates(parts, resolve)) {
    for (const extension of SOURCE_EXTENSIONS) {
      const candidate = `${module}${extension}`;
      if (resolve(candidate)) return { file: candidate, inner: [...parts.slice(consumed), ...nested] };
    }
  }
  return null;
}

interface ModuleCandidate { module: string; consumed: number }

/** Module paths (no extension) the parts could name: the most parts first, plain `/` readings first. */
function moduleCandidates(parts: readonly string[], resolve: ResolveFile): ModuleCandidate[] {
  const found: (ModuleCandidate & { order: number })[] = [];
  for (const root of SOURCE_ROOTS) {
    for (let length = parts.length; length >= 1; length--) {
      found.push({ module: `${root}${parts.slice(0, length).join("/")}`, consumed: length, order: found.length });
    }
  }
  const plain = new Set(found.map((c) => c.module));
  // Readings where some name holds a dot: only through folders that exist, so the search stays small.
  const walk = (root: string, start: number, folder: string): void => {
    for (let end = start + 1; end <= parts.length; end++) {
      const name = parts.slice(start, end).join(".");
      const path = `${folder}${name}`;
      const module = `${root}${path}`;
      if (!plain.has(module) && found.length < 200) found.push({ module, consumed: end, order: found.length });
      if (end < parts.length && resolve(`${root}${path}`, "directory")) walk(root, end, `${path}/`);
    }
  };
  if (parts.length > 1) for (const root of SOURCE_ROOTS) walk(root, 0, "");
  return found.sort((a, b) => b.consumed - a.consumed || a.order - b.order);
}

/** Whether a string looks like a path rather than a dotted or free-form name. */
export function looksLikePath(text: string): boolean {
  return text.includes("/") || /\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|rb)$/.test(text);
}
