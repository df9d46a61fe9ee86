import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from "yaml";
import type { PolicyIssue } from "./issues.js";

// Reads a YAML policy or task file into plain data while keeping the means to say on which line
// any key path sits. Everything that could make the data ambiguous or expensive is an error here,
// before the schema ever sees it: duplicate keys, several documents, alias bombs, unknown tags.

/** Policy and task files are small, hand-written files; a larger one is a mistake or an attack. */
export const MAX_YAML_BYTES = 256 * 1024;
/** Anchors are allowed for sharing a list or two; anything beyond this many expansions is refused. */
export const MAX_YAML_ALIASES = 32;

export type KeyPath = readonly (string | number)[];

export interface YamlSource {
  data: unknown;
  /** The 1-based line of the deepest node along `path` that exists in the file. */
  lineOf(path: KeyPath): number | null;
  /** Whether the file itself spells out `path` (as opposed to a default filling it in). */
  has(path: KeyPath): boolean;
}

export type YamlResult = { ok: true; source: YamlSource } | { ok: false; errors: PolicyIssue[] };

export function readYaml(input: string | Uint8Array, file: string): YamlResult {
  const fail = (message: string, line: number | null = null): YamlResult => ({ ok: false, errors: [{ file, path: "", line, message }] });
  const size = typeof input === "string" ? Buffer.byteLength(input, "utf8") : input.byteLength;
  if (size > MAX_YAML_BYTES) return fail(`file is ${size} bytes; the limit is ${MAX_YAML_BYTES} bytes (256 KiB)`);
  let text: string;
  try {
    text = typeof input === "string" ? input : new TextDecoder("utf-8", { fatal: true }).decode(input);
  } catch {
    return fail("file is not valid UTF-8");
  }

  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: false });
  const lineAt = (offset: number): number => lineCounter.linePos(offset).line;
  // Warnings (an unresolved tag, say) would change what a value means without telling anyone: fail closed.
  const problems = [...doc.errors, ...doc.warnings].map((e) => ({ file, path: "", line: lineAt(e.pos[0]), message: yamlMessage(e.code, e.message) }));
  if (problems.length > 0) return { ok: false, errors: problems };
  if (doc.contents === null) return fail("file is empty: it needs at least `version: 1`", 1);
  if (!isMap(doc.contents)) return fail("the top level must be a mapping of keys (key: value), not a list or a single value", lineOfNode(doc.contents, lineAt));

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return fail(`YAML aliases expand too far (more than ${MAX_YAML_ALIASES} expansions): ${reason}`);
  }
  return {
    ok: true,
    source: {
      data,
      lineOf: (path) => locate(doc, path, lineAt).line,
      has: (path) => locate(doc, path, lineAt).complete,
    },
  };
}

function yamlMessage(code: string, message: string): string {
  if (code === "DUPLICATE_KEY") return "duplicate key: a key may appear only once in a mapping";
  if (code === "MULTIPLE_DOCS") return "more than one YAML document ('---'): a policy file holds exactly one";
  if (code === "TAG_RESOLVE_FAILED") return `${message}: YAML tags are not allowed here`;
  return `YAML syntax error: ${message}`;
}

function lineOfNode(node: Node, lineAt: (offset: number) => number): number | null {
  return node.range ? lineAt(node.range[0]) : null;
}

/** Walks `path` through the document; reports the line of the deepest step found (a key's own line for map entries). */
function locate(doc: Document, path: KeyPath, lineAt: (offset: number) => number): { line: number | null; complete: boolean } {
  let node: unknown = doc.contents;
  let line = isMap(node) || isSeq(node) ? lineOfNode(node as Node, lineAt) : null;
  for (const step of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(step));
      if (pair === undefined) return { line, complete: false };
      if (isScalar(pair.key)) line = lineOfNode(pair.key, lineAt) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof step === "number") {
      const item: unknown = node.items[step];
      if (item === undefined) return { line, complete: false };
      if (isScalar(item) || isMap(item) || isSeq(item)) line = lineOfNode(item as Node, lineAt) ?? line;
      node = item;
    } else {
      return { line, complete: false };
    }
  }
  return { line, complete: true };
}
