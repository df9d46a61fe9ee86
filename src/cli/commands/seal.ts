import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { execa } from "execa";
import { ignoredAdvice, ignoringRule } from "../git-ignored.js";
import { parseDocument } from "yaml";
import {
  loadSealKey, openSealed, parseSealPublicKeyPem, readSealedHeader, safeRelativePath, sealFiles, sealKeyIdOf, sealedFileDigest,
  type SealedFile,
} from "../../attest/index.js";
import { isValidTaskId, parseTask, TASKS_DIR } from "../../policy/index.js";
import { dataDirFrom } from "../data-dir.js";
import { UsageError, type CliIo, type Command } from "../io.js";

// `ranex seal` (issue 20): encrypts a task's acceptance tests to the gate's sealing key, so the base
// carries them and no agent can read them. `--check` opens them with the data dir's key, locally.

const USAGE = "usage: ranex seal --task <id> <file>... [--key <pem|url>] [--repo <dir>]\n       ranex seal --check [--task <id>] [--repo <dir>] [--data-dir <dir>]";
export const SEALED_DIR = ".ranex/sealed";

export const run: Command = async (args, io) => {
  let parsed;
  try {
    parsed = parseArgs({
      args, allowPositionals: true,
      options: { task: { type: "string" }, key: { type: "string" }, repo: { type: "string" }, check: { type: "boolean", default: false }, "data-dir": { type: "string" } },
    });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const root = await repoRoot(values.repo === undefined ? io.cwd : resolve(io.cwd, values.repo));
  const dataDir = dataDirFrom(values["data-dir"] === undefined ? [] : ["--data-dir", values["data-dir"]], io.env, io.cwd);
  if (values.task !== undefined && !isValidTaskId(values.task)) throw new UsageError(`invalid task id ${JSON.stringify(values.task)}\n${USAGE}`);
  if (values.check) {
    if (positionals.length > 0) throw new UsageError(`--check takes no files\n${USAGE}`);
    return check(root, dataDir, values.task, io);
  }
  if (values.task === undefined || positionals.length === 0) throw new UsageError(`name the task and the files to seal\n${USAGE}`);
  return seal(root, dataDir, values.task, positionals.map((p) => resolve(io.cwd, p)), values.key === undefined ? undefined : /^https?:\/\//.test(values.key) ? values.key : resolve(io.cwd, values.key), io);
};

async function seal(root: string, dataDir: string, task: string, absolute: string[], keyGiven: string | undefined, io: CliIo): Promise<number> {
  const manifestPath = join(root, TASKS_DIR, `${task}.yml`);
  if (!existsSync(manifestPath)) throw new Error(`no task manifest ${TASKS_DIR}/${task}.yml: write the task first, then seal its acceptance tests`);
  const manifestText = await readFile(manifestPath, "utf8");
  const parsedTask = parseTask(manifestText, `${TASKS_DIR}/${task}.yml`, task);
  if (!parsedTask.ok) throw new Error(`${TASKS_DIR}/${task}.yml does not validate: ${parsedTask.errors[0]?.message ?? "unknown error"}`);
  const sealedPath = `${SEALED_DIR}/${task}.sealed`;
  if (existsSync(join(root, sealedPath)) || parsedTask.task.sealed !== undefined) {
    throw new Error(`task ${task} already has sealed tests (${parsedTask.task.sealed ?? sealedPath}); remove that file and the manifest's sealed: line to seal anew`);
  }

  const files: SealedFile[] = [];
  for (const path of absolute) {
    const rel = relative(root, path).split(sep).join("/");
    if (isAbsolute(rel) || !safeRelativePath(rel)) throw new Error(`${path} is not a file inside the repository (nor may it be under .git or .ranex)`);
    const info = await lstat(path).catch(() => null);
    if (info === null || !info.isFile()) throw new Error(`${rel} is not a regular file`);
    files.push({ path: rel, content: await readFile(path) });
  }
  // A file the agent can read in history is no secret: refused, whatever branch holds it.
  const visible: string[] = [];
  for (const file of files) {
    const committed = (await execa("git", ["-C", root, "log", "--all", "-1", "--format=%H", "--", file.path], { reject: false })).stdout.trim();
    const staged = (await execa("git", ["-C", root, "ls-files", "--", file.path], { reject: false })).stdout.trim();
    if (committed !== "") visible.push(`${file.path} (committed in ${committed.slice(0, 12)})`);
    else if (staged !== "") visible.push(`${file.path} (staged: git restore --staged ${file.path})`);
  }
  if (visible.length > 0) throw new Error(`refusing to seal files that git already shows: ${visible.join(", ")}; a sealed test must never have been committed on any branch`);

  const recipient = await recipientKey(dataDir, keyGiven);
  const text = await sealFiles(task, files, recipient);
  await mkdir(join(root, SEALED_DIR), { recursive: true });
  await writeFile(join(root, sealedPath), text, { flag: "wx" });
  const doc = parseDocument(manifestText);
  doc.set("sealed", sealedPath);
  await writeFile(manifestPath, String(doc));
  for (const file of files) await unlink(join(root, file.path));
  io.stdout(`sealed ${files.length} ${files.length === 1 ? "file" : "files"} of task ${task} to key ${recipient.keyId}\n` +
    `wrote ${sealedPath} (${sealedFileDigest(text)}) and added \`sealed: ${sealedPath}\` to ${TASKS_DIR}/${task}.yml\n` +
    `removed from the working tree: ${files.map((f) => f.path).join(", ")}\n` +
    `commit ${sealedPath} and ${TASKS_DIR}/${task}.yml to the base branch; keep the plain files outside this repository\n`);
  // A .gitignore that ignores `.ranex/` would keep both out of `git add -A` (issue 22).
  for (const path of [sealedPath, `${TASKS_DIR}/${task}.yml`]) {
    const rule = await ignoringRule(root, path).catch(() => null);
    if (rule !== null) io.stdout(`warning: ${ignoredAdvice(path, rule)}\n`);
  }
  return 0;
}

async function check(root: string, dataDir: string, task: string | undefined, io: CliIo): Promise<number> {
  const key = await loadSealKey(dataDir);
  if (key === null) throw new Error(`no sealing key in ${dataDir}: run \`ranex keygen\` there (or pass the gate's --data-dir)`);
  const names = task !== undefined ? [`${task}.sealed`] : (await readdir(join(root, SEALED_DIR)).catch(() => [] as string[])).filter((n) => n.endsWith(".sealed")).sort();
  if (names.length === 0) throw new Error(`no sealed files under ${SEALED_DIR}`);
  io.stdout(`the gate's sealing key: ${key.keyId}\n`);
  let failed = 0;
  for (const name of names) {
    const path = `${SEALED_DIR}/${name}`;
    const blob = await readFile(join(root, path)).catch(() => null);
    if (blob === null) {
      io.stdout(`${path}: missing\n`);
      failed++;
      continue;
    }
    try {
      const header = readSealedHeader(blob);
      const contents = await openSealed(blob, key);
      io.stdout(`${path}: opens with the gate's current key (task ${header.task}, ${sealedFileDigest(blob)})\n`);
      for (const file of contents.files) io.stdout(`  ${file.path} (${file.content.length} bytes)\n`);
    } catch (err) {
      io.stdout(`${path}: does not open: ${(err as Error).message}\n`);
      failed++;
    }
  }
  return failed === 0 ? 0 : 1;
}

/** `--key` as a PEM file or an http(s) URL (the gate's /ranex/seal-key); else the data dir's own key. */
async function recipientKey(dataDir: string, given: string | undefined): Promise<{ publicKey: Uint8Array; keyId: string }> {
  let pem: string;
  if (given === undefined) {
    const key = await loadSealKey(dataDir);
    if (key === null) throw new Error(`no sealing key in ${dataDir}: pass --key <pem|url> (the gate's \`ranex pubkey --seal\` or its /ranex/seal-key)`);
    return key;
  }
  if (/^https?:\/\//.test(given)) {
    const response = await fetch(given);
    if (!response.ok) throw new Error(`GET ${given} answered ${response.status}`);
    pem = await response.text();
  } else {
    pem = await readFile(given, "utf8");
  }
  const publicKey = parseSealPublicKeyPem(pem);
  return { publicKey, keyId: sealKeyIdOf(publicKey) };
}

async function repoRoot(dir: string): Promise<string> {
  const found = await execa("git", ["-C", dir, "rev-parse", "--show-toplevel"], { reject: false });
  if (found.exitCode !== 0) throw new Error(`${dir} is not inside a git repository`);
  return found.stdout.trim();
}
