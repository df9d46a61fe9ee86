// Python's own tokenizer for diff.needed (src/measure/needed/tokens.ts): one python3 process per
// judgment reads every text it is given and answers each text's token stream, comments and
// non-logical line breaks left out, indentation kept as INDENT/DEDENT (it is syntax in Python). It
// only tokenizes, never compiles or runs the text; isolated (-I) and started in /, it reads nothing
// of the tree. Without a python3 every answer is null, so every hunk stays a mutant.
import { execFile } from "node:child_process";
import { SANDBOX_PATH } from "../sandbox/profile.js";

// Tokenized from bytes, as Python reads a source file: a coding cookie (a comment!) decides how the
// rest is decoded, so `# coding: utf-7` can turn a "comment" into code. The file's encoding is part
// of the key, and the tokens are those of the text decoded as Python would decode it.
const SCRIPT = String.raw`
import io, json, sys, tokenize
SKIP = {tokenize.COMMENT, tokenize.NL}
BARE = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
def key(text):
    try:
        out = []
        for tok in tokenize.tokenize(io.BytesIO(text.encode("utf-8", "surrogatepass")).readline):
            if tok.type in SKIP:
                continue
            out.append(tokenize.tok_name[tok.type] if tok.type in BARE else tokenize.tok_name[tok.type] + "\x01" + tok.string)
        return "\x00".join(out)
    except Exception:
        return None
json.dump([key(t) for t in json.load(sys.stdin)], sys.stdout)
`;

/** Each text's token key, in order; null where it does not tokenize or no python3 is there. */
export function pythonTokenKeys(texts: readonly string[], toolchain: readonly string[]): Promise<(string | null)[]> {
  if (texts.length === 0) return Promise.resolve([]);
  const nothing = (): (string | null)[] => texts.map(() => null);
  return new Promise((resolve) => {
    const child = execFile(
      "python3", ["-I", "-c", SCRIPT],
      { env: { PATH: [...toolchain, SANDBOX_PATH].join(":") }, cwd: "/", timeout: 60_000, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout) => {
        if (err !== null) { resolve(nothing()); return; }
        try {
          const keys = JSON.parse(stdout) as (string | null)[];
          resolve(keys.length === texts.length ? keys : nothing());
        } catch {
          resolve(nothing());
        }
      },
    );
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(JSON.stringify(texts));
  });
}
