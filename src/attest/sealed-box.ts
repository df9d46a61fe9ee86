// A sealed file (`.ranex/sealed/<task>.sealed`, issue 20): acceptance tests encrypted to the gate's
// sealing key. The outer JSON names only what anyone may know: the format, the task, the recipient
// key's id and the digest of what is inside. Paths, names and content are all inside the box.
import { createHash, createHmac, randomBytes } from "node:crypto";
import { sodium } from "./sodium.js";

export const SEALED_FORMAT = "ranex-sealed/1";
const PAYLOAD_FORMAT = "ranex-sealed-payload/1";
/** Largest sealed file the gate reads: tests, not data sets. */
export const MAX_SEALED_BYTES = 4 * 1024 * 1024;

export interface SealedFile {
  path: string;
  content: Buffer;
}

/** What the box holds once opened. */
export interface SealedContents {
  task: string;
  files: SealedFile[];
  /** Keys the short ids of sealed tests: random per sealed file, so an id says nothing of a name. */
  idKey: Buffer;
}

interface Outer {
  format: string;
  task: string;
  recipient: string;
  digest: string;
  box: string;
}

/** Why a box could not be read or opened, in words a maintainer can act on; never its content. */
export class SealedError extends Error {
  override readonly name = "SealedError";
}

export async function sealFiles(task: string, files: readonly SealedFile[], recipient: { publicKey: Uint8Array; keyId: string }): Promise<string> {
  const payload = Buffer.from(JSON.stringify({
    format: PAYLOAD_FORMAT, task, idKey: randomBytes(32).toString("base64"),
    files: files.map((f) => ({ path: f.path, content: f.content.toString("base64") })),
  }), "utf8");
  const box = (await sodium()).crypto_box_seal(payload, recipient.publicKey);
  const outer: Outer = { format: SEALED_FORMAT, task, recipient: recipient.keyId, digest: digestOf(payload), box: Buffer.from(box).toString("base64") };
  return `${JSON.stringify(outer, null, 2)}\n`;
}

/** The outer fields, checked for shape only; throws a SealedError naming what is wrong. */
export function readSealedHeader(blob: Buffer | string): Outer {
  let outer: Partial<Outer>;
  try {
    outer = JSON.parse(typeof blob === "string" ? blob : blob.toString("utf8")) as Partial<Outer>;
  } catch {
    throw new SealedError("the sealed file is not JSON: it is corrupt or not a sealed file; seal the tests again with `ranex seal`");
  }
  if (outer === null || typeof outer !== "object" || outer.format !== SEALED_FORMAT) {
    throw new SealedError(`the sealed file is not in the ${SEALED_FORMAT} format; seal the tests again with \`ranex seal\``);
  }
  for (const field of ["task", "recipient", "digest", "box"] as const) {
    if (typeof outer[field] !== "string" || outer[field] === "") throw new SealedError(`the sealed file has no ${field}: it is corrupt; seal the tests again with \`ranex seal\``);
  }
  return outer as Outer;
}

/**
 * Opens a sealed file with the gate's key. A box sealed to another key, one that does not open (cut,
 * edited), or whose content does not match its digest is a SealedError with the remedy.
 */
export async function openSealed(blob: Buffer | string, key: { secretKey: Uint8Array; publicKey: Uint8Array; keyId: string }): Promise<SealedContents> {
  const outer = readSealedHeader(blob);
  if (outer.recipient !== key.keyId) {
    throw new SealedError(`the sealed file was sealed to key ${outer.recipient}, but the gate's sealing key is ${key.keyId}: seal the tests again to the gate's key (\`ranex pubkey --seal\`, then \`ranex seal --key\`)`);
  }
  const lib = await sodium();
  let payload: Buffer;
  try {
    payload = Buffer.from(lib.crypto_box_seal_open(Buffer.from(outer.box, "base64"), key.publicKey, key.secretKey));
  } catch {
    throw new SealedError("the sealed file does not open with the gate's sealing key: it was altered or cut; seal the tests again with `ranex seal`");
  }
  if (digestOf(payload) !== outer.digest) {
    throw new SealedError(`the sealed file's content does not match its digest ${outer.digest}: seal the tests again with \`ranex seal\``);
  }
  let inner: { format?: unknown; task?: unknown; idKey?: unknown; files?: unknown };
  try {
    inner = JSON.parse(payload.toString("utf8")) as typeof inner;
  } catch {
    throw new SealedError("the sealed file's content is not readable; seal the tests again with `ranex seal`");
  }
  if (inner.format !== PAYLOAD_FORMAT || typeof inner.idKey !== "string" || !Array.isArray(inner.files)) {
    throw new SealedError("the sealed file's content is not in the format this gate reads; seal the tests again with `ranex seal`");
  }
  if (inner.task !== outer.task) throw new SealedError("the sealed file's content names another task than its header: seal the tests again with `ranex seal`");
  const files: SealedFile[] = [];
  for (const file of inner.files as { path?: unknown; content?: unknown }[]) {
    if (typeof file.path !== "string" || typeof file.content !== "string" || !safeRelativePath(file.path)) {
      throw new SealedError("the sealed file holds a file with an unsafe or missing path; seal the tests again with `ranex seal`");
    }
    files.push({ path: file.path, content: Buffer.from(file.content, "base64") });
  }
  return { task: outer.task, files, idKey: Buffer.from(inner.idKey, "base64") };
}

/** A relative path inside a tree: no `..`, no absolute path, not under .git or .ranex. */
export function safeRelativePath(path: string): boolean {
  if (path === "" || path.startsWith("/") || path.includes("\\") || path.includes("\0")) return false;
  const parts = path.split("/");
  return parts.every((p) => p !== "" && p !== "." && p !== "..") && parts[0] !== ".git" && parts[0] !== ".ranex";
}

/** `sha256:<hex>` of a sealed file's bytes as committed: what the signed verdict names. */
export function sealedFileDigest(blob: Buffer | string): string {
  return `sha256:${createHash("sha256").update(blob).digest("hex")}`;
}

/** The short id a sealed test is shown by: a keyed hash of its test id, stable for one sealed file. */
export function sealedTestId(idKey: Buffer, testId: string): string {
  return `sealed-${createHmac("sha256", idKey).update(testId).digest("hex").slice(0, 10)}`;
}

function digestOf(payload: Buffer): string {
  return `sha256:${createHash("sha256").update(payload).digest("hex")}`;
}
