import { spawn } from "node:child_process";
import { WorkspaceError } from "./errors.js";

// Every git process of the workspace starts here, so the safety settings cannot be forgotten.

/** Only these transports may be used; `ext::` and friends would run arbitrary commands. */
const PROTOCOL_CONFIG = [
  "protocol.allow=never",
  "protocol.file.allow=always",
  "protocol.http.allow=always",
  "protocol.https.allow=always",
  "protocol.ssh.allow=always",
];

/** An empty tree: where newer git versions would read attributes of a bare repository from. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** `key=value` settings given with -c to every git process of the workspace. */
export const SAFE_CONFIG_PAIRS: readonly string[] = [
  "core.hooksPath=/dev/null",
  // Attributes could mark text as binary (hiding added lines from the secret scan) or add filters.
  "core.attributesFile=/dev/null",
  `attr.tree=${EMPTY_TREE}`,
  "core.fsmonitor=false",
  "core.sshCommand=ssh -o BatchMode=yes",
  "gc.auto=0",
  "maintenance.auto=false",
  "core.logAllRefUpdates=false",
  "fetch.recurseSubmodules=false",
  "submodule.recurse=false",
  ...PROTOCOL_CONFIG,
];

const SAFE_CONFIG = SAFE_CONFIG_PAIRS.flatMap((kv) => ["-c", kv]);

/** The inherited environment without any GIT_* variable (GIT_DIR, GIT_INDEX_FILE ... would redirect git). */
export function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("GIT_")) env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_LFS_SKIP_SMUDGE: "1",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    LC_ALL: "C",
  };
}

/** The argument vector for `git` in a git dir: safety config first, then `extraConfig`, then args. */
export function gitArgv(gitDir: string, args: readonly string[], extraConfig: readonly string[] = []): string[] {
  return [...SAFE_CONFIG, ...extraConfig.flatMap((kv) => ["-c", kv]), `--git-dir=${gitDir}`, ...args];
}

export interface GitOptions {
  input?: string | Buffer;
  /** `key=value` pairs passed with -c for this call only (never written to a config file). */
  config?: readonly string[];
  /** Refuse output larger than this (bytes); protects memory against huge trees or diffs. */
  maxOutput?: number;
  /**
   * Ends git and every process it started (a remote helper, index-pack) when aborted: the call
   * then rejects with the signal's reason. Used to bound a fetch by time and bytes.
   */
  signal?: AbortSignal;
}

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

const DEFAULT_MAX_OUTPUT = 256 * 1024 * 1024;

/** Runs git without a shell; never throws for a non-zero exit (callers word their own errors). */
export function runGit(gitDir: string, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  const maxOutput = options.maxOutput ?? DEFAULT_MAX_OUTPUT;
  return new Promise((resolve, reject) => {
    const { signal } = options;
    const child = spawn("git", gitArgv(gitDir, args, options.config), {
      env: gitEnv(),
      stdio: ["pipe", "pipe", "pipe"],
      // Its own process group, so an abort reaches the helpers git starts too.
      ...(signal === undefined ? {} : { detached: true }),
    });
    const stop = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch { /* already gone */ }
    };
    if (signal?.aborted === true) stop();
    signal?.addEventListener("abort", stop, { once: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let tooLarge = false;
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxOutput) {
        tooLarge = true;
        child.kill("SIGKILL");
        return;
      }
      out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (err.length < 256) err.push(chunk);
    });
    child.on("error", (e) => reject(new WorkspaceError(`cannot run git: ${e.message}`)));
    child.on("close", (code) => {
      signal?.removeEventListener("abort", stop);
      if (signal?.aborted === true) {
        reject(signal.reason instanceof Error ? signal.reason : new WorkspaceError(String(signal.reason)));
        return;
      }
      if (tooLarge) {
        reject(new WorkspaceError(`git ${args[0] ?? ""} produced more than ${maxOutput} bytes of output`));
        return;
      }
      resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8") });
    });
    child.stdin.on("error", () => undefined); // git may exit before reading all input; its exit code tells.
    child.stdin.end(options.input ?? "");
  });
}

/** Like runGit, but a non-zero exit becomes a WorkspaceError starting with `what`. */
export async function gitOrThrow(gitDir: string, args: readonly string[], what: string, options: GitOptions = {}): Promise<Buffer> {
  const result = await runGit(gitDir, args, options);
  if (result.code !== 0) throw new WorkspaceError(`${what}: ${lastLine(result.stderr)}`);
  return result.stdout;
}

/** The most telling line of git's stderr ("fatal: ..." usually comes last). */
export function lastLine(stderr: string): string {
  const lines = stderr.split("\n").map((l) => l.trim()).filter((l) => l.length > 0);
  const fatal = lines.find((l) => l.startsWith("fatal:") || l.startsWith("error:"));
  return (fatal ?? lines.at(-1) ?? "git failed without a message").replace(/^(fatal|error): /, "");
}

/** Splits NUL-terminated output into its fields (the trailing empty field is dropped). */
export function splitNul(buf: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = buf.indexOf(0, start); i !== -1; i = buf.indexOf(0, start)) {
    parts.push(buf.subarray(start, i));
    start = i + 1;
  }
  if (start < buf.length) parts.push(buf.subarray(start));
  return parts;
}
