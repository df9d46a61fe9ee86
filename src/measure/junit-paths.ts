// Maps what a JUnit report says about where a test lives (a `file` attribute, a vitest classname that
// is a path, pytest's or surefire's dotted classname) to a path in the materialised tree.

/** True when `candidate` (relative, `/`-separated, no `..`) names a file in the tree. */
export type ResolveFile = (candidate: string) => boolean;

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

/** Resolves a dotted classname to the longest module prefix that is a file in the tree. */
export function resolveDottedClassname(classname: string, resolve: ResolveFile): DottedMatch | null {
  if (classname === "" || classname.includes("/")) return null;
  const dotted = classname.split(".");
  const last = dotted.pop() ?? "";
  // A Java nested class `CalcTest$Inner` lives in CalcTest.java.
  const [outer = "", ...nested] = last.split("$");
  const parts = [...dotted, outer];
  if (parts.some((part) => part === "")) return null;
  for (let length = parts.length; length >= 1; length--) {
    const module = parts.slice(0, length).join("/");
    for (const root of SOURCE_ROOTS) {
      for (const extension of SOURCE_EXTENSIONS) {
        const candidate = `${root}${module}${extension}`;
        if (resolve(candidate)) return { file: candidate, inner: [...parts.slice(length), ...nested] };
      }
    }
  }
  return null;
}

/** Whether a string looks like a path rather than a dotted or free-form name. */
export function looksLikePath(text: string): boolean {
  return text.includes("/") || /\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|rb)$/.test(text);
}
