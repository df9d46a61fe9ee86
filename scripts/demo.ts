// `npm run demo`: builds the bundled example repositories and judges each of their heads with the
// real CLI, printing every verdict with its reasons. The honest changes come out CANDIDATE and
// every attack FAIL, each caught by the claim named in fixtures/repos/expected.json.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../src/cli/main.js";
import type { CliIo } from "../src/cli/io.js";

interface Expectation { verdict: "CANDIDATE" | "FAIL"; fails: string[]; task?: string; base?: string }

const root = join(import.meta.dirname, "..");
const demoDir = join(root, ".demo");
const dataDir = join(demoDir, "data");
const expected = JSON.parse(readFileSync(join(root, "fixtures/repos/expected.json"), "utf8")) as Record<string, Record<string, Expectation>>;
const only = process.argv.slice(2);

rmSync(demoDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });

const io = (out: string[]): CliIo => ({
  stdout: (t) => out.push(t), stderr: (t) => out.push(t), env: process.env, cwd: root,
});

let surprises = 0;
for (const [repoName, heads] of Object.entries(expected)) {
  const repoDir = join(demoDir, repoName);
  execFileSync("bash", [join(root, "fixtures/repos", `${repoName}.sh`), repoDir], { stdio: "ignore" });
  for (const [head, want] of Object.entries(heads)) {
    if (only.length > 0 && !only.includes(head) && !only.includes(repoName)) continue;
    const out: string[] = [];
    const args = ["judge", "--repo", repoDir, "--base", want.base ?? "main", "--head", head, "--data-dir", dataDir];
    if (want.task) args.push("--task", want.task);
    const code = await main(args, io(out));
    const text = out.join("");
    const got = code === 0 ? "CANDIDATE" : code === 1 ? "FAIL" : "COULD NOT JUDGE";
    const ok = got === want.verdict;
    if (!ok) surprises++;
    console.log(`\n━━ ${repoName} @ ${head}${want.base ? ` on ${want.base}` : ""}${want.task ? ` (task ${want.task})` : ""}: expected ${want.verdict}${want.fails.length ? ` via ${want.fails.join(", ")}` : ""}${ok ? "" : `  ✗ GOT ${got}`}`);
    console.log(text.trimEnd());
  }
}

// Every verdict above was signed and journalled. Check one envelope and the whole journal the way
// anyone else would: with the public key only.
const pyRepo = join(demoDir, "python-calc");
const out: string[] = [];
await main(["judge", "--repo", pyRepo, "--base", "main", "--head", "honest", "--task", "mul", "--data-dir", dataDir, "--json"], io(out));
const judged = JSON.parse(out.join("")) as { envelope: unknown; subject: { head: string } };
const envelopeFile = join(demoDir, "honest.envelope.json");
writeFileSync(envelopeFile, JSON.stringify(judged.envelope, null, 2));
const pubkey = join(dataDir, "signing.pub.pem");
for (const args of [
  ["verify", envelopeFile, "--public-key", pubkey, "--commit", judged.subject.head],
  ["journal", "verify", "--data-dir", dataDir, "--anchor", envelopeFile],
]) {
  const lines: string[] = [];
  const code = await main(args, io(lines));
  console.log(`\n$ ranex ${args.map((a) => a.replace(root + "/", "")).join(" ")}\n${lines.join("").trimEnd()}`);
  if (code !== 0) surprises++;
}

console.log(`\n${surprises === 0 ? "Every example judged as expected." : `${surprises} example(s) judged differently than expected.`}`);
process.exitCode = surprises === 0 ? 0 : 1;
