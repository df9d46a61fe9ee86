import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { UsageError, type Command } from "../io.js";
import { POLICY_PATH, formatIssues, parsePolicy } from "../../policy/index.js";
import { starterPolicy } from "../../policy/init.js";

// `ranex init [--dir <d>] [--force]`: writes a starter .github/ranex.yml. Exit 0 when written,
// 2 when it could not (bad arguments, a policy already there without --force, an unwritable path).

function parseArgs(args: string[], cwd: string): { dir: string; force: boolean } {
  let dir = cwd;
  let force = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--force") force = true;
    else if (arg === "--dir") {
      const value = args[++i];
      if (value === undefined || value === "") throw new UsageError("--dir needs a directory");
      dir = resolve(cwd, value);
    } else throw new UsageError(`unknown argument '${arg}': usage: ranex init [--dir <d>] [--force]`);
  }
  return { dir, force };
}

export const run: Command = async (args, io) => {
  let options: { dir: string; force: boolean };
  try {
    options = parseArgs(args, io.cwd);
  } catch (err) {
    io.stderr(`ranex init: ${(err as Error).message}\n`);
    return 2;
  }
  const target = join(options.dir, POLICY_PATH);
  if (!existsSync(options.dir)) {
    io.stderr(`ranex init: ${options.dir} does not exist\n`);
    return 2;
  }
  if (existsSync(target) && !options.force) {
    io.stderr(`ranex init: ${target} already exists; pass --force to overwrite it\n`);
    return 2;
  }
  const text = await starterPolicy(options.dir);
  const check = parsePolicy(text, POLICY_PATH);
  if (!check.ok) {
    // Never hand the owner a file that the judge would refuse.
    io.stderr(`ranex init: the starter policy does not validate (a bug):\n${formatIssues(check.errors).join("\n")}\n`);
    return 2;
  }
  try {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  } catch (err) {
    io.stderr(`ranex init: cannot write ${target}: ${(err as Error).message}\n`);
    return 2;
  }
  const command = check.policy.tests.command;
  io.stdout(`wrote ${target}\n${command === undefined ? "no test runner found: set tests.command" : `tests.command: ${command}`}\nreview it, then commit it to the base branch\n`);
  return 0;
};
