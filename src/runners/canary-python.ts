// pytest's canary family (issue 19): a test file beside one of the tree's own test files, with tests
// that must fail through a plain raise, `assert`, and unittest's assertEqual/assertTrue, and ones that
// must pass; unittest suites run through pytest get the same file.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { className, fileWords, phrases, pythonName } from "../measure/canary-names.js";
import { besideTestFile, PYTHON_TEST_FILE } from "../measure/canary-place.js";
import type { CanaryContext, CanaryResult } from "./types.js";

export async function pythonCanaries(ctx: CanaryContext): Promise<CanaryResult> {
  const file = await besideTestFile(ctx.treeDir, PYTHON_TEST_FILE, `test_${fileWords().join("_")}.py`);
  if (file === null) return { note: "pytest: the tree has no test_*.py file to place the canaries beside" };
  const [raise, plain, pass, equal, truth, equalPass] = phrases(6).map(pythonName) as [string, string, string, string, string, string];
  const cls = className();
  await writeFile(join(ctx.treeDir, file), pythonFile({ ...ctx.values, raise, plain, pass, cls, equal, truth, equalPass }), { flag: "wx" });
  return {
    treeFiles: [file],
    members: [
      { name: raise, via: "a plain raise", expect: "fail" }, { name: plain, via: "assert", expect: "fail" },
      { name: equal, via: "unittest assertEqual", expect: "fail" }, { name: truth, via: "unittest assertTrue", expect: "fail" },
      { name: pass, via: "assert", expect: "pass" }, { name: equalPass, via: "unittest assertEqual", expect: "pass" },
    ],
  };
}

type Values = CanaryContext["values"];

function pythonFile(v: Values & Record<"raise" | "plain" | "pass" | "cls" | "equal" | "truth" | "equalPass", string>): string {
  return `import unittest


def _checksum(text):
    return sum((i + 1) * ord(ch) for i, ch in enumerate(text)) % 1009


def ${v.raise}():
    got = _checksum(${JSON.stringify(v.word)})
    if got != ${v.wrong}:
        raise ValueError("expected ${v.wrong}, got %d" % got)


def ${v.plain}():
    assert _checksum(${JSON.stringify(v.word)}) == ${v.wrong}


def ${v.pass}():
    assert _checksum(${JSON.stringify(v.word)}) == ${v.right}


class ${v.cls}(unittest.TestCase):
    def ${v.equal}(self):
        self.assertEqual(_checksum(${JSON.stringify(v.word)}), ${v.wrong})

    def ${v.truth}(self):
        self.assertTrue(_checksum(${JSON.stringify(v.word)}) == ${v.wrong})

    def ${v.equalPass}(self):
        self.assertEqual(_checksum(${JSON.stringify(v.word)}), ${v.right})
`;
}

