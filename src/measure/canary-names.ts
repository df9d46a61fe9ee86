// Names for the canary family (./canary.ts): fresh every run, shaped like the tests beside them, so
// code cannot pick the canaries out by a prefix or a fixed word. They are drawn from common words of
// test names; the gate keeps the drawn names outside the sandbox and finds the canaries by them.
import { randomInt } from "node:crypto";

const VERBS = ["parses", "formats", "merges", "splits", "rounds", "sorts", "encodes", "decodes", "validates", "normalises", "reads", "writes", "counts", "groups", "trims", "maps"];
const ADJECTIVES = ["empty", "nested", "short", "long", "mixed", "unicode", "negative", "large", "single", "repeated", "quoted", "blank", "padded", "sparse"];
const NOUNS = ["header", "record", "list", "range", "value", "entry", "field", "table", "path", "key", "token", "row", "column", "suffix", "prefix", "label"];
const CLASS_NOUNS = ["Parser", "Formatter", "Records", "Ranges", "Fields", "Tokens", "Rows", "Labels", "Paths", "Entries"];

const pick = <T>(list: readonly T[]): T => list[randomInt(list.length)] as T;

/** `count` distinct phrases of three words: verb, adjective, noun ("parses empty header"). */
export function phrases(count: number): string[][] {
  const out = new Map<string, string[]>();
  while (out.size < count) {
    const words = [pick(VERBS), pick(ADJECTIVES), pick(NOUNS)];
    out.set(words.join(" "), words);
  }
  return [...out.values()];
}

/** A pytest-style function name: `test_parses_empty_header`. */
export const pythonName = (words: readonly string[]): string => `test_${words.join("_")}`;
/** A title as node:test, jest and vitest tests have them: `parses empty header`. */
export const titleOf = (words: readonly string[]): string => words.join(" ");
/** A unittest class name: `TestParser`. */
export const className = (): string => `Test${pick(CLASS_NOUNS)}`;
/** A test file's base name: `test_empty_fields` / `empty-fields`. */
export const fileWords = (): string[] => [pick(ADJECTIVES), pick(NOUNS) + "s"];

/** A number the canaries compute and compare with: different each run, so no literal gives them away. */
export const salt = (): number => 100 + randomInt(900);
