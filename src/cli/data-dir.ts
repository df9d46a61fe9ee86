import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { UsageError, type CliIo } from "./io.js";

/**
 * The data dir a command works in: `--data-dir <d>` (or `--data-dir=<d>`) from the arguments, else
 * RANEX_DATA_DIR, else `~/.ranex`. Relative paths resolve against `cwd`.
 */
export function dataDirFrom(args: readonly string[], env: CliIo["env"], cwd: string = process.cwd()): string {
  let given: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--data-dir") {
      given = args[i + 1];
      if (given === undefined || given === "" || given.startsWith("--")) throw new UsageError("--data-dir needs a directory");
      i++;
    } else if (arg.startsWith("--data-dir=")) {
      given = arg.slice("--data-dir=".length);
      if (given === "") throw new UsageError("--data-dir needs a directory");
    }
  }
  if (given !== undefined) return resolve(cwd, given);
  const fromEnv = env.RANEX_DATA_DIR;
  if (fromEnv !== undefined && fromEnv !== "") return resolve(cwd, fromEnv);
  return join(env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir(), ".ranex");
}
