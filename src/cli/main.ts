import { pathToFileURL } from "node:url";
import { processIo, UsageError, type CliIo, type Command } from "./io.js";

// Each subcommand lives in its own module, loaded only when asked for.
const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run: Command }> }> = {
  judge: { summary: "judge a change: ranex judge --repo <path|url> --base <rev> --head <rev> [--task <id>] [--json]", load: () => import("./commands/judge.js") },
  init: { summary: "write .github/ranex.yml for the repository here and try it on HEAD: ranex init [--toolchain <dir>] [--add-deps] [--no-try]", load: () => import("./commands/init.js") },
  tests: { summary: "every test id of a run, as the gate names it: ranex tests --repo <path|url> --rev <rev> [--json]", load: () => import("./commands/tests.js") },
  task: { summary: "measure a task's targets on the base before an agent starts: ranex task check <id> [--repo <path>] [--base <rev>]", load: () => import("./commands/task.js") },
  doctor: { summary: "check that this machine can sandbox measurements", load: () => import("./commands/doctor.js") },
  keygen: { summary: "create an Ed25519 signing key: ranex keygen [--out <dir>]", load: () => import("./commands/keygen.js") },
  pubkey: { summary: "print the data dir's public key (PEM); --seal: the key acceptance tests are sealed to", load: () => import("./commands/pubkey.js") },
  seal: { summary: "seal a task's acceptance tests to the gate: ranex seal --task <id> <file>... [--key <pem|url>] | ranex seal --check", load: () => import("./commands/seal.js") },
  verify: { summary: "verify a signed verdict: ranex verify <envelope.json> --public-key <pem> [--commit <sha>]", load: () => import("./commands/verify.js") },
  journal: { summary: "ranex journal verify [--anchor <envelope.json>] | ranex journal show <id>", load: () => import("./commands/journal.js") },
  agents: { summary: "how each agent is doing, from the journal: ranex agents --repo owner/name [--json]", load: () => import("./commands/agents.js") },
  protect: { summary: "require both checks, an independent approval and an up-to-date branch or a merge queue: ranex protect --repo owner/name [--branch b] [--ruleset] [--merge-queue] [--dry-run]", load: () => import("./commands/protect.js") },
  worker: { summary: "a judge worker taking deliveries from the shared queue (configured by the environment, as npm start)", load: () => import("./commands/worker.js") },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`);
  return `usage: ranex <command> [options]\n\ncommands:\n${lines.join("\n")}\n`;
}

export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    io.stdout(usage());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    io.stderr(`ranex: unknown command '${name}'\n${usage()}`);
    return 2;
  }
  try {
    const { run } = await command.load();
    return await run(rest, io);
  } catch (err) {
    // Could not judge (or run) at all: one line, exit 2. Verdicts are never reported this way.
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(`ranex ${name}: ${err instanceof UsageError ? "" : "error: "}${message.split("\n")[0]}\n`);
    return 2;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = await main(process.argv.slice(2));
}
