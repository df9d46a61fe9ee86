import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { overridePredicateOf, statementOf } from "../../attest/index.js";
import { JOURNAL_FILE, openJournal, type Journal, type JournalEntry, type JournalHead, type VerifyOptions } from "../../journal/index.js";
import { dataDirFrom } from "../data-dir.js";
import { UsageError, type CliIo, type Command } from "../io.js";
import { appIdOf, checkAgainstGitHub, githubTarget, sinceOf, type GitHubCheck } from "./journal-github.js";
import { journalVerifyKey } from "./journal-key.js";
import { readEnvelopeFile } from "./verify.js";

const USAGE = "usage: ranex journal verify [--data-dir <d>] [--anchor <envelope.json|sequence:hash>] [--public-key <pem>]\n" +
  "                           [--github <owner/repo>]... [--since <date>] [--app-id <id>]\n" +
  "       ranex journal show <id|sequence> [--data-dir <d>]\n" +
  "       ranex journal show --overrides [--repo <owner/name>] [--data-dir <d>]";

/** `ranex journal verify|show`: exit 0 good, 1 a broken journal or no such entry, 2 could not run. */
export const run: Command = async (args, io) => {
  const [sub, ...rest] = args;
  if (sub === "verify") return verify(rest, io);
  if (sub === "show") return show(rest, io);
  throw new UsageError(`${sub === undefined ? "name a journal command" : `unknown journal command '${sub}'`}\n${USAGE}`);
};

async function verify(args: string[], io: CliIo): Promise<number> {
  const values = parse(args, {
    "data-dir": { type: "string" }, anchor: { type: "string" }, "public-key": { type: "string" },
    github: { type: "string", multiple: true }, since: { type: "string" }, "app-id": { type: "string" },
  }, 0).values as { anchor?: string; "public-key"?: string; github?: string[]; since?: string; "app-id"?: string };
  const targets = (values.github ?? []).map(githubTarget);
  const since = sinceOf(values.since);
  if (since !== undefined && targets.length === 0) throw new UsageError(`--since only applies with --github\n${USAGE}`);
  const appId = appIdOf(values["app-id"] ?? io.env.RANEX_APP_ID ?? io.env.APP_ID);
  const dataDir = dataDirFrom(args, io.env, io.cwd);
  const options: VerifyOptions = {};
  const key = await journalVerifyKey(values["public-key"], dataDir, io.env, io.cwd);
  if (key.pem !== undefined) options.publicKeyPem = key.pem;
  const keyNote = key.note;
  if (values.anchor !== undefined) {
    const head = headFromText(values.anchor);
    if (head !== null) options.anchor = head;
    else options.anchorEnvelope = await readEnvelopeFile(resolve(io.cwd, values.anchor));
  }

  // With --github, each repository's check runs are read back and the journal checked against them (issue 13).
  const { result, github } = await withJournal(dataDir, io, async (journal) => {
    const checks: GitHubCheck[] = [];
    for (const target of targets) {
      const check = await checkAgainstGitHub(journal, target, options, io, { since, appId });
      checks.push(check);
      if (!check.result.ok) return { result: check.result, github: checks };
    }
    return { result: targets.length === 0 ? await journal.verify(options) : checks[checks.length - 1]!.result, github: checks };
  });
  if (!result.ok) {
    const where = result.sequence === 0 ? "" : ` at entry ${result.sequence}${result.id === null ? "" : ` (${result.id})`}`;
    io.stdout(`journal BROKEN${where}: ${result.reason}\n`);
    return 1;
  }
  const head = result.head === null ? "empty" : `head is entry ${result.head.sequence} (${result.head.hash})`;
  const anchored = values.anchor === undefined ? "no anchor given (a truncated journal verifies too)" : `anchor ${values.anchor} found`;
  const anchoredBy = github.length > 0 ? github.map((check) => check.summary).join("\n") : anchored;
  io.stdout(`journal ok: ${result.count} entries, ${head}\n${keyNote}\n${anchoredBy}${github.length > 0 && values.anchor !== undefined ? `\n${anchored}` : ""}\n`);
  return 0;
}

async function show(args: string[], io: CliIo): Promise<number> {
  if (args.includes("--overrides")) return showOverrides(args.filter((a) => a !== "--overrides"), io);
  const { positionals } = parse(args, { "data-dir": { type: "string" } }, 1);
  const wanted = positionals[0]!;
  const entry = await withJournal(dataDirFrom(args, io.env, io.cwd), io, (journal) => find(journal, wanted));
  if (entry === null) {
    io.stderr(`ranex journal show: no entry ${wanted}\n`);
    return 1;
  }
  io.stdout(`${JSON.stringify(entry, null, 2)}\n`);
  return 0;
}

/** Every override in the journal (issue 23), one line each: entry, who, the verdict it overrides, why. */
async function showOverrides(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, { "data-dir": { type: "string" }, repo: { type: "string" } }, 0);
  const repo = (values as { repo?: string }).repo;
  const lines = await withJournal(dataDirFrom(args, io.env, io.cwd), io, async (journal) => {
    const out: string[] = [];
    for await (const entry of journal.entries()) {
      if (entry.kind !== "override") continue;
      const o = overridePredicateOf(statementOf(entry.payload));
      if (o === null || (repo !== undefined && o.repository !== repo)) continue;
      out.push(`${entry.sequence} ${entry.id} ${o.time} ${o.repository}#${o.pullRequest} ${o.head.slice(0, 7)} by @${o.by} (${o.role}) overrides ${o.overrides.verdict}${o.overrides.class === null ? "" : ` (${o.overrides.class})`} entry ${o.overrides.entry} [${o.overrides.failing.map((c) => c.name).join(", ")}]: ${o.reason.replace(/\s+/gu, " ")}`);
    }
    return out;
  });
  io.stdout(lines.length === 0 ? "no overrides\n" : `${lines.join("\n")}\n`);
  return 0;
}

async function find(journal: Journal, wanted: string): Promise<JournalEntry | null> {
  if (!/^\d+$/.test(wanted)) return journal.get(wanted);
  for await (const entry of journal.entries({ after: Number(wanted) - 1, limit: 1 })) {
    return entry.sequence === Number(wanted) ? entry : null;
  }
  return null;
}

// Postgres when DATABASE_URL is set; else the data dir's SQLite file, which must already exist: a
// missing journal is not an empty one, and opening would quietly create it.
export async function withJournal<T>(dataDir: string, io: CliIo, work: (journal: Journal) => Promise<T>): Promise<T> {
  const databaseUrl = io.env.DATABASE_URL;
  const usePostgres = databaseUrl !== undefined && databaseUrl !== "";
  if (!usePostgres && !existsSync(join(dataDir, JOURNAL_FILE))) throw new Error(`no journal at ${join(dataDir, JOURNAL_FILE)}`);
  const journal = await openJournal(usePostgres ? { dataDir, databaseUrl } : { dataDir });
  try {
    return await work(journal);
  } finally {
    await journal.close();
  }
}

function headFromText(text: string): JournalHead | null {
  const match = /^(\d+):([0-9a-f]{64})$/.exec(text);
  return match === null ? null : { sequence: Number(match[1]), hash: match[2]! };
}

type Options = Record<string, { type: "string"; multiple?: boolean }>;
function parse(args: string[], options: Options, positionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  if (parsed.positionals.length !== positionals) throw new UsageError(`expected ${positionals} argument${positionals === 1 ? "" : "s"}, got ${parsed.positionals.length}\n${USAGE}`);
  return parsed;
}
