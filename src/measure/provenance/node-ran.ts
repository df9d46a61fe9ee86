// What node:test's child process really reported (issue 19, the third red team). Each test file runs in
// a child whose stdout is the report channel: node:test's own reporter serializes every event there
// (internal/test_runner/reporter/v8-serializer), and the runner in the parent believes whatever
// arrives. Code under test in the child can write a serialized `test:pass` for the target onto fd 1
// itself (fs.writeSync, a stream of its own, /proc/self/fd/1, a child process that inherits the fd)
// and end the process before node:test reports the failure: nothing is replaced, so neither the
// watched objects (./node-planted.ts) nor the canaries, which run in one file's process, see it.
//
// So the preload, in a child (NODE_TEST_CONTEXT=child-v8, read at start), wraps the serializer's
// `writeValue` before any code of the tree runs and keeps the name of every `test:pass` that
// node:test's own reporter serializes (the caller's frame must be that internal module: a value
// serialized by anyone else is not a test that passed). At the end of the process it writes them to
// the record, under the nonce of its start line, which code under test cannot read. The judgment
// (./judge.ts) then holds the report to it: a test the report says passed in a file whose process
// never passed it through node:test, or whose process never reported its end, was not run by
// node:test. One wrapper call per serialized value and one stack frame per test: no work per call
// of the code under test.
//
// The text below is JavaScript, spliced into the preload's closure before the watched objects are
// taken, so the wrapper is the original they compare with.

/** Names kept per process: past it the process says so and its file is not held to the list. */
export const NODE_RAN_LIMIT = 2000;

export function nodeRanSource(): string {
  return `
  // --- What node:test's child really reported (./node-ran.ts) ---
  const ranPassed = [];
  let ranCut = false;
  // The replaced-functions check's look (./node-planted.ts), set once it has taken its snapshot.
  let lookReplaced = () => {};
  if (testFile !== undefined) {
    const proto = require("node:v8").Serializer.prototype;
    const writeValue = proto.writeValue;
    const apply = Reflect.apply;
    const capture = Error.captureStackTrace;
    const REPORTER = "node:internal/test_runner/reporter/v8-serializer";
    const fromReporter = (wrapper) => {
      const prepare = Error.prepareStackTrace;
      const limit = Error.stackTraceLimit;
      const holder = {};
      try {
        Error.prepareStackTrace = (_, frames) => frames;
        Error.stackTraceLimit = 1;
        capture(holder, wrapper);
        const frames = holder.stack;
        return Array.isArray(frames) && frames.length > 0 && frames[0].getFileName() === REPORTER;
      } catch {
        return false;
      } finally {
        Error.prepareStackTrace = prepare;
        Error.stackTraceLimit = limit;
      }
    };
    const wrapped = {
      writeValue(item) {
        try {
          const type = item !== null && typeof item === "object" ? item.type : undefined;
          if ((type === "test:pass" || type === "test:fail") && item.data != null && fromReporter(wrapped.writeValue)) {
            // A test ended (a suite's end adds nothing): what tests rely on must still be what the process started with.
            if (item.data.details == null || item.data.details.type !== "suite") lookReplaced();
            // Only passes are kept.
            const name = item.data.name;
            if (type === "test:pass") {
              if (ranPassed.length < ${NODE_RAN_LIMIT}) ranPassed.push(typeof name === "string" ? name : String(name));
              else ranCut = true;
            }
          }
        } catch {}
        return apply(writeValue, this, arguments);
      },
    };
    Object.defineProperty(proto, "writeValue", { ...Object.getOwnPropertyDescriptor(proto, "writeValue"), value: wrapped.writeValue });
  }
  // At the end: the names, in lines of about 3 KB, each under the start line's nonce; the last says so.
  const reportRan = () => {
    if (testFile === undefined) return;
    let chunk = [];
    let size = 0;
    for (const name of ranPassed) {
      const piece = name.slice(0, 500);
      if (size + piece.length > 3000 && chunk.length > 0) {
        emit({ k: "ran", nonce, n: chunk });
        chunk = [];
        size = 0;
      }
      chunk.push(piece);
      size += piece.length + 3;
    }
    emit({ k: "ran", nonce, n: chunk, done: true, ...(ranCut ? { cut: true } : {}) });
  };
`;
}
