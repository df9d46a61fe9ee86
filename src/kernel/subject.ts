import { createHash } from "node:crypto";
import canonicalizeModule from "canonicalize";
import type { Subject } from "./types.js";

type Canonicalize = (input: unknown) => string | undefined;
// canonicalize is CommonJS with an ESM-style type declaration: under Node's ESM the default import
// is the function itself, while TypeScript sees a namespace. Accept both shapes.
const canonicalize: Canonicalize =
  (canonicalizeModule as unknown as { default?: Canonicalize }).default ?? (canonicalizeModule as unknown as Canonicalize);

/** RFC 8785 canonical JSON of plain data. Throws on values JSON cannot represent. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(normalise(value));
  if (text === undefined) throw new TypeError("value has no canonical JSON form");
  return text;
}

export function sha256Hex(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * `sha256:<hex>` over the canonical JSON of every field of the subject. A field a subject does not
 * have (mergeBase and mergedTree of subjects signed before they existed) is left out, not null, so
 * an old subject keeps the digest it was signed with.
 */
export function subjectDigest(subject: Subject): string {
  const fields: Subject = {
    repository: subject.repository,
    base: subject.base,
    head: subject.head,
    baseTree: subject.baseTree,
    headTree: subject.headTree,
    mergeBase: subject.mergeBase,
    mergedTree: subject.mergedTree,
    policy: subject.policy,
    task: subject.task,
    sandbox: subject.sandbox,
    sealed: subject.sealed,
  };
  return `sha256:${sha256Hex(canonicalJson(fields))}`;
}

// Drops undefined members and rejects non-finite numbers, so equal data always has one encoding.
function normalise(value: unknown): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`non-finite number ${value} has no JSON form`);
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : normalise(item)));
  if (typeof value === "object") {
    // Only plain data: a Date or a Map would otherwise turn silently into {}.
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) throw new TypeError("only plain objects have a canonical JSON form");
    // A null-prototype object, so a "__proto__" member stays a member instead of setting the prototype.
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) out[key] = normalise(item);
    }
    return out;
  }
  throw new TypeError(`a ${typeof value} has no JSON form`);
}
