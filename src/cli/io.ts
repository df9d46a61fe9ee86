// What a command may touch of the outside world, passed in so tests can capture it.
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** A subcommand: parses its own arguments, returns the process exit code. */
export type Command = (args: string[], io: CliIo) => Promise<number>;

/** Bad arguments: the command prints the message and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
  };
}
