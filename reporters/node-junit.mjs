// A JUnit reporter for `node --test` that says which file each test is in. Node 20's built-in
// junit reporter leaves the file out, so the gate could not tell which tests a PR's new test files
// hold. Ranex mounts this file read-only in the sandbox and names it in $RANEX_NODE_REPORTER:
//   node --test --test-reporter="$RANEX_NODE_REPORTER" --test-reporter-destination="$RANEX_JUNIT" test/
import { relative } from "node:path";

// eslint-disable-next-line no-control-regex -- control characters are what XML cannot carry
const escape = (text) => String(text).replace(/[<>&"'\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, (c) =>
  ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c] ?? `&#${c.charCodeAt(0)};`);

function fileOf(data) {
  if (typeof data.file !== "string") return null;
  const rel = relative(process.cwd(), data.file);
  return rel.startsWith("..") ? data.file : rel;
}

function render(node, indent) {
  const pad = "  ".repeat(indent);
  const file = node.file === null ? "" : ` file="${escape(node.file)}"`;
  if (node.children.length > 0 || node.suite) {
    const inner = node.children.map((child) => render(child, indent + 1)).join("");
    return `${pad}<testsuite name="${escape(node.name)}"${file} tests="${node.children.length}">\n${inner}${pad}</testsuite>\n`;
  }
  const time = ` time="${((node.duration ?? 0) / 1000).toFixed(6)}"`;
  const open = `${pad}<testcase name="${escape(node.name)}" classname="${escape(node.file ?? "")}"${file}${time}`;
  if (node.skipped) return `${open}>\n${pad}  <skipped/>\n${pad}</testcase>\n`;
  if (node.failed) {
    return `${open}>\n${pad}  <failure message="${escape(node.message)}">${escape(node.message)}</failure>\n${pad}</testcase>\n`;
  }
  return `${open}/>\n`;
}

export default async function* nodeJunit(source) {
  // Events arrive as each test completes, children before their parent: collect the finished
  // children of every nesting level until their parent completes.
  const pending = new Map();
  const top = [];
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const data = event.data;
    const children = pending.get(data.nesting + 1) ?? [];
    pending.delete(data.nesting + 1);
    const error = data.details?.error;
    const file = fileOf(data);
    // A file that fails to load is reported as a test named by its absolute path: keep it relative.
    const name = typeof data.file === "string" && data.name === data.file ? file : data.name;
    const node = {
      name, file, children, duration: data.details?.duration_ms,
      suite: data.details?.type === "suite", failed: event.type === "test:fail",
      skipped: Boolean(data.skip) || Boolean(data.todo),
      message: error ? String(error.cause?.message ?? error.message ?? error).split("\n")[0] : "",
    };
    if (data.nesting === 0) top.push(node);
    else pending.set(data.nesting, [...(pending.get(data.nesting) ?? []), node]);
  }
  yield '<?xml version="1.0" encoding="utf-8"?>\n<testsuites>\n';
  for (const node of top) yield render(node, 1);
  yield "</testsuites>\n";
}
