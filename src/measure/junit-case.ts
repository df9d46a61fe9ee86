// The outcome of one <testcase> element, in every runner's dialect.
import type { CaseFlavour, CaseResult } from "./report-types.js";

/** An XML element as fast-xml-parser gives it: attributes and child arrays, or bare text. */
export type XmlNode = Record<string, unknown> | string;

export interface CaseOutcome {
  result: CaseResult;
  flavour?: CaseFlavour;
  message?: string;
  /** nextest / surefire: the test failed at first and passed on a retry. */
  flaky: boolean;
}

const MESSAGE_LIMIT = 200;

export function attribute(node: XmlNode, name: string): string | undefined {
  if (typeof node === "string") return undefined;
  const value = node[name];
  return typeof value === "string" ? decodeCharacterReferences(value) : undefined;
}

// The parser decodes the named XML entities but leaves numeric references (pytest writes `&#10;`).
function decodeCharacterReferences(value: string): string {
  return value.replace(/&#(x[0-9a-f]+|[0-9]+);/gi, (reference, code: string) => {
    const point = code[0] === "x" || code[0] === "X" ? Number.parseInt(code.slice(1), 16) : Number.parseInt(code, 10);
    return point <= 0x10ffff ? String.fromCodePoint(point) : reference;
  });
}

export function children(node: XmlNode, tag: string): XmlNode[] {
  if (typeof node === "string") return [];
  const value = node[tag];
  if (!Array.isArray(value)) return [];
  return value.filter((child): child is XmlNode => typeof child === "string" || (typeof child === "object" && child !== null));
}

function text(node: XmlNode): string {
  if (typeof node === "string") return node;
  const value = node["#text"];
  return typeof value === "string" ? value : "";
}

/** The first non-empty line of a message attribute or the element's text, shortened. */
export function firstLine(...candidates: (string | undefined)[]): string | undefined {
  for (const candidate of candidates) {
    const line = candidate?.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== "");
    if (line !== undefined) return line.length > MESSAGE_LIMIT ? `${line.slice(0, MESSAGE_LIMIT - 1)}…` : line;
  }
  return undefined;
}

function messageOf(node: XmlNode): string | undefined {
  return firstLine(attribute(node, "message"), text(node));
}

// Error beats failure beats skip: a case that errored in teardown after failing is still an error.
export function caseOutcome(testcase: XmlNode): CaseOutcome {
  const flaky = ["flakyFailure", "flakyError", "rerunFailure", "rerunError"].some((tag) => children(testcase, tag).length > 0);
  const error = children(testcase, "error")[0];
  if (error !== undefined) return { result: "errored", message: messageOf(error), flaky };
  const failure = children(testcase, "failure")[0];
  // node:test also writes the failure as an attribute on the testcase.
  const failureAttribute = attribute(testcase, "failure");
  if (failure !== undefined || failureAttribute !== undefined) {
    const message = failure !== undefined ? messageOf(failure) : firstLine(failureAttribute);
    // pytest reports a strict xpass as a failure with this marker.
    const xpass = message?.startsWith("[XPASS(strict)]") === true;
    return { result: "failed", ...(xpass ? { flavour: "xpass" as const } : {}), message, flaky };
  }
  const skipped = children(testcase, "skipped")[0];
  if (skipped !== undefined) {
    const xfail = attribute(skipped, "type") === "pytest.xfail";
    return { result: "skipped", ...(xfail ? { flavour: "xfail" as const } : {}), message: messageOf(skipped), flaky };
  }
  return { result: "passed", flaky };
}

const RANK: Record<CaseResult, number> = { passed: 0, skipped: 1, failed: 2, errored: 3 };

/** The worse of two results, for one test written twice (pytest's teardown errors). */
export function worse<T extends { result: CaseResult }>(a: T, b: T): T {
  return RANK[b.result] > RANK[a.result] ? b : a;
}
