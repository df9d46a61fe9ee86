import { main } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/io.js";

/** Runs the real CLI entry in-process with captured output. */
export async function ranex(args: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => { stdout += text; },
    stderr: (text) => { stderr += text; },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}
