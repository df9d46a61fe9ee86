// The canary family of runners that collect test files from the tree and assert with `expect` (vitest,
// jest): a test file beside one of the tree's own test files (or at the root), with tests failing
// through a plain throw, `expect().toBe` and `expect().toEqual`, and one that must pass.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileWords, phrases, titleOf } from "../measure/canary-names.js";
import { besideTestFile, JS_TEST_FILE } from "../measure/canary-place.js";
import type { CanaryContext, CanaryResult } from "./types.js";

export async function expectCanaries(runner: "vitest" | "jest", ctx: CanaryContext): Promise<CanaryResult> {
  const extension = runner === "vitest" ? "mjs" : "js";
  const file = await besideTestFile(ctx.treeDir, JS_TEST_FILE, `${fileWords().join("-")}.test.${extension}`) ?? `${fileWords().join("-")}.test.${extension}`;
  const [raise, toBe, toEqual, pass] = phrases(4).map(titleOf) as [string, string, string, string];
  await writeFile(join(ctx.treeDir, file), expectFile(runner, { ...ctx.values, raise, toBe, toEqual, pass }), { flag: "wx" });
  return {
    treeFiles: [file],
    members: [
      { name: raise, via: "a plain throw", expect: "fail" }, { name: toBe, via: `${runner} expect().toBe`, expect: "fail" },
      { name: toEqual, via: `${runner} expect().toEqual`, expect: "fail" }, { name: pass, via: `${runner} expect().toBe`, expect: "pass" },
    ],
  };
}

type Values = CanaryContext["values"];

function expectFile(runner: "vitest" | "jest", v: Values & Record<"raise" | "toBe" | "toEqual" | "pass", string>): string {
  const q = JSON.stringify;
  const head = runner === "vitest" ? `import { expect, test } from "vitest";\n\n` : "";
  return `${head}const checksum = (text) => [...text].reduce((sum, ch, i) => sum + (i + 1) * ch.charCodeAt(0), 0) % 1009;

test(${q(v.raise)}, () => {
  const got = checksum(${q(v.word)});
  if (got !== ${v.wrong}) throw new Error("expected ${v.wrong}, got " + got);
});
test(${q(v.toBe)}, () => { expect(checksum(${q(v.word)})).toBe(${v.wrong}); });
test(${q(v.toEqual)}, () => { expect([checksum(${q(v.word)})]).toEqual([${v.wrong}]); });
test(${q(v.pass)}, () => { expect(checksum(${q(v.word)})).toBe(${v.right}); });
`;
}

