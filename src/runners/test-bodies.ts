// Which test bodies threw, told outside the process (issue 19). jest and vitest decide a test's outcome
// from objects of the runner in the test file's own process (jest-circus's `test.errors`, vitest's
// `task.result`), which code under test reaches: a hook it registers at import (`afterEach` empties the
// frozen test's errors, or sets its state to "pass") turns a failing frozen test into a pass, and every
// canary, which fails by other values, stays honest. Nothing the process keeps can be believed after
// that, so the in-file setup (./canary-in-file.ts) tells the provenance record's pipe, as each body
// throws, which test it was (`{"k":"body", "f": test file, "n": full name, "i": which test of that name,
// "r": "threw", "a": attempt}`),
// before any hook of the test runs: the pipe keeps what was written, and nothing in the sandbox can take
// a line back. The gate then holds the report to it (src/measure/provenance/judge-bodies.ts): a test the
// report says passed whose last attempt threw did not pass. A test whose body threw and passed on a
// later attempt (a retry) says so too ("r": "ok" of that attempt).
//
// jest tells it through jest-circus's `test_fn_failure` and `test_fn_success` events (the gate's handler,
// ./canary-in-file.ts); vitest through each test's body, wrapped in the gate's first beforeEach. A
// `test.failing` test (whose body is meant to throw) is not told. Without the record's pipe (a run the
// gate gave no record) nothing is told and nothing is held.

/** Lines one test file's process may write: past it the rest is not told (and not held). */
export const BODY_LINES = 200;

/**
 * A script block that declares `testBodies` for a setup file: `threw(file, name, test, attempt)` and
 * `ok(file, name, test, attempt)` (written only for a test that threw before; `test` is the runner's
 * object for it, which tells two tests of one name apart). `fs` is the expression for
 * node:fs the includer has; `fifo` the record's pipe as the run sees it.
 */
export function testBodiesScript(fifo: string, fs: string): string {
  return `const testBodies = (() => {
  const nodeFs = ${fs};
  let fd = -1;
  try { fd = nodeFs.openSync(${JSON.stringify(fifo)}, nodeFs.constants.O_WRONLY | nodeFs.constants.O_APPEND); } catch {}
  const write = nodeFs.writeSync;
  const stringify = JSON.stringify;
  const pid = typeof process === "object" ? process.pid : 0;
  const threwOnce = new WeakSet();
  // Which test of that name (two tests of a file may share one): a number per test object, in the
  // order they are first told.
  const instances = new WeakMap();
  let next = 0;
  const instanceOf = (test) => {
    let n = instances.get(test);
    if (n === undefined) {
      next += 1;
      n = next;
      instances.set(test, n);
    }
    return n;
  };
  let left = ${BODY_LINES};
  const tell = (file, name, test, result, attempt) => {
    if (fd < 0 || left <= 0) return;
    left -= 1;
    try { write(fd, stringify({ k: "body", f: String(file), n: String(name).slice(0, 500), i: instanceOf(test), r: result, a: attempt, pid }) + "\\n"); } catch {}
  };
  return {
    threw: (file, name, test, attempt) => { threwOnce.add(test); tell(file, name, test, "threw", attempt); },
    ok: (file, name, test, attempt) => { if (threwOnce.has(test)) tell(file, name, test, "ok", attempt); },
  };
})();`;
}
