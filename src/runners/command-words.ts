// Reading a test command's words, for the runners that narrow a command to some test files (issue 22:
// the PR's own runs). Only a single simple command is read: a pipe, a list, a redirect or a
// substitution makes the command too much to rewrite safely, and the whole suite runs instead.

/** The command's words as the shell splits them, quotes kept; null when it is more than one simple command. */
export function simpleWords(command: string): string[] | null {
  const words: string[] = [];
  let word = "";
  let open = false;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i] as string;
    if (ch === "'" || ch === '"') {
      const end = command.indexOf(ch, i + 1);
      if (end === -1) return null;
      const inner = command.slice(i + 1, end);
      // A substitution inside double quotes runs a command of its own.
      if (ch === '"' && /\$\(|`/.test(inner)) return null;
      word += command.slice(i, end + 1);
      open = true;
      i = end;
    } else if (ch === "\\") {
      word += command.slice(i, i + 2);
      open = true;
      i++;
    } else if (/\s/.test(ch)) {
      if (open) words.push(word);
      word = "";
      open = false;
    } else if (/[;&|<>()`]/.test(ch) || (ch === "$" && command[i + 1] === "(")) {
      return null;
    } else {
      word += ch;
      open = true;
    }
  }
  if (open) words.push(word);
  return words;
}

/** A word without its quotes (what the program receives, variables left as written). */
export function unquote(word: string): string {
  return word.replace(/'([^']*)'|"([^"]*)"|\\(.)/g, (_m, single?: string, double?: string, escaped?: string) => single ?? double ?? escaped ?? "");
}

/** How a runner's options are read: those that take the next word as their value, and those that never do. */
export interface OptionShapes {
  valued: ReadonlySet<string>;
  flags: ReadonlySet<string>;
}

/**
 * The indices of the positional words among `words` (a program's arguments), or null when a word
 * cannot be told apart: an option this reader does not know, followed by a word that could be its
 * value or a path. `--` ends the options.
 */
export function positionals(words: readonly string[], shapes: OptionShapes): number[] | null {
  const found: number[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = unquote(words[i] as string);
    if (word === "--") {
      for (let j = i + 1; j < words.length; j++) found.push(j);
      break;
    }
    if (!word.startsWith("-") || word === "-") {
      found.push(i);
      continue;
    }
    if (word.includes("=")) continue;
    if (shapes.valued.has(word)) {
      i++;
      continue;
    }
    const next = words[i + 1];
    if (!shapes.flags.has(word) && next !== undefined && !unquote(next).startsWith("-")) return null;
  }
  return found;
}

/** A path as one shell word. */
export const shellWord = (word: string): string => (/^[\w./@=:+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`);

/** The option names a command sets (`--name` of `--name=value` and `--name value`). */
export function optionNames(words: readonly string[]): string[] {
  return words.map(unquote).filter((w) => w.startsWith("-")).map((w) => w.split("=")[0] as string);
}

/**
 * A command whose runner comes after steps joined by `&&` (`npm run pretest && node --test …`, the
 * steps `ranex init` keeps before a runner, src/runners/scripts.ts): the steps, and the last command,
 * split at the last `&&` outside quotes. Null when there is none. The last command is read as any
 * other; the steps run before it unchanged.
 */
export function lastStep(command: string): { steps: string; last: string } | null {
  let at = -1;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i];
    if (ch === "'" || ch === '"') {
      const end = command.indexOf(ch, i + 1);
      if (end === -1) return null;
      i = end;
    } else if (ch === "\\") i++;
    else if (ch === "&" && command[i + 1] === "&") {
      at = i;
      i++;
    }
  }
  if (at === -1) return null;
  const [steps, last] = [command.slice(0, at).trim(), command.slice(at + 2).trim()];
  return steps === "" || last === "" ? null : { steps, last };
}
