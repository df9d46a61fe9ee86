// The end of a Rust test process under nextest, as only the gate's code prints it (issue 19). nextest
// runs every test as a process of its own and takes exit status 0 for a pass, so code under test can
// print libtest's whole summary of one passed test and `process::exit(0)` before the assertion. The
// canary module of each test binary (./canary-compiled.ts) therefore carries a hook that the loader
// runs before main (`.init_array`): in a nextest test process it registers an at-exit function that
// prints a token drawn fresh for the run, only when the process exits from its main thread, which is
// where libtest returns after its summary. libtest runs the test itself on a thread of its own, so an
// exit from inside the test (`process::exit`, a panic hook that exits) runs the function on that
// thread, and `_exit` or an abort runs none: either way no token. The reader (./nextest.ts) finds the
// token through the crate root's last lines, which are the gate's while the run's tree is read.
// Code that finds the gate's hook can still print the token (it is in the binary and in the tree):
// that is forgery that finds the canaries, which no in-process measure sees.
import { randomBytes } from "node:crypto";
import { posix } from "node:path";
import { readTreeFile } from "./tree-read.js";

/** A crate whose code or manifest names the `unsafe_code` lint (it may forbid it) gets no hook: the hook needs `unsafe`. */
export function mayHook(texts: readonly (string | null)[]): boolean {
  return !texts.some((t) => t !== null && /unsafe[_-]code/.test(t));
}

/** The hook's Rust, for a crate of `edition` (2024 wants `unsafe extern` and `#[unsafe(link_section)]`, older toolchains know neither). */
export function endHook(edition2024: boolean): { text: string; token: string } {
  const token = randomBytes(16).toString("hex");
  const ext = edition2024 ? "unsafe extern \"C\"" : "extern \"C\"";
  const section = edition2024 ? "#[unsafe(link_section = \".init_array\")]" : "#[link_section = \".init_array\"]";
  const text = `\n#[allow(unsafe_code, clashing_extern_declarations)]\n${ext} {\n    fn atexit(f: extern "C" fn()) -> i32;\n    fn getpid() -> i32;\n    fn gettid() -> i32;\n`
    + `    fn getenv(name: *const u8) -> *const u8;\n    fn write(fd: i32, buf: *const u8, n: usize) -> isize;\n}\n\n`
    + `const AT_END: &[u8] = b"\\n${token}\\n";\n\n`
    + `#[allow(unsafe_code)]\nextern "C" fn at_end() {\n    unsafe {\n        if getpid() == gettid() {\n            write(1, AT_END.as_ptr(), AT_END.len());\n        }\n    }\n}\n\n`
    + `#[allow(unsafe_code)]\nextern "C" fn at_start() {\n    unsafe {\n        if !getenv(b"NEXTEST_TEST_NAME\\0".as_ptr()).is_null() {\n            atexit(at_end);\n        }\n    }\n}\n\n`
    + `#[allow(unsafe_code)]\n#[used]\n${section}\nstatic AT_START: extern "C" fn() = at_start;\n`;
  return { text, token };
}

/** The line the gate appends to a crate root (./canary-compiled.ts): it is the root's end. */
export const canaryTail = (path: string, mod: string): string => `#[cfg(test)]\n#[path = ${JSON.stringify(path)}]\nmod ${mod};\n`;

/**
 * The token the test binary of crate root `root` prints at its end, when the gate's canary module with
 * a hook is what the root ends with; null otherwise (a run without a canary, a crate without a hook).
 */
export function endToken(treeDir: string, root: string): string | null {
  const text = readTreeFile(treeDir, root);
  const tail = text === null ? null : /#\[cfg\(test\)\]\n#\[path = ("[^"\n]+")\]\nmod \w+;\n$/.exec(text);
  if (tail?.[1] === undefined) return null;
  const module = readTreeFile(treeDir, posix.normalize(posix.join(posix.dirname(root), JSON.parse(tail[1]) as string)));
  return module === null ? null : /^const AT_END: &\[u8\] = b"\\n([0-9a-f]{32})\\n";$/m.exec(module)?.[1] ?? null;
}
