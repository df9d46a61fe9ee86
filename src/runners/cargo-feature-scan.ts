// What init reads of a Rust package to choose its test features (./cargo-feature-plan.ts): the `.rs`
// files under src/ and tests/ (real folders and regular files only, bounded), and the CI workflows
// under .github/workflows, where the owner says which features the tests run with.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Detection } from "../policy/detect.js";
import { readTreeFile } from "./tree-read.js";
import type { RepoView } from "./types.js";

const MAX_FILES = 4000;

/** The package's `.rs` files under src/ and tests/ with their text (the root package of `dir`). */
export function packageSources(dir: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const visit = (rel: string): void => {
    let entries;
    try {
      entries = readdirSync(join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= MAX_FILES) return;
      const path = `${rel}/${e.name}`;
      if (e.isDirectory() && !e.name.startsWith(".")) visit(path);
      else if (e.isFile() && e.name.endsWith(".rs")) {
        const text = readTreeFile(dir, path);
        if (text !== null) out.push({ file: path, text });
      }
    }
  };
  visit("src");
  visit("tests");
  return out;
}

/** The CI workflows' text (.github/workflows/*.yml, *.yaml). */
export async function workflows(repo: RepoView): Promise<{ file: string; text: string }[]> {
  const names = (await repo.list(".github/workflows")).filter((n) => /\.ya?ml$/.test(n)).sort();
  const out: { file: string; text: string }[] = [];
  for (const name of names.slice(0, 50)) {
    const file = `.github/workflows/${name}`;
    const text = await repo.readText(file);
    if (text !== null) out.push({ file, text });
  }
  return out;
}

/** The starter's comment on the features the command enables, when it enables any. */
export function featureNote(found: Detection): string[] {
  const chosen = found.runnerArgs;
  if (chosen === undefined) return [];
  return [chosen.args === "" ? `cargo features: ${chosen.says}.` : `${chosen.args}: ${chosen.says}.`];
}
