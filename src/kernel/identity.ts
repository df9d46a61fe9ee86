// How a person is named in a commit, read the way git and GitHub write it: `Co-authored-by`
// trailers, GitHub's no-reply addresses (github.com and Enterprise hosts), GitHub's own web
// committer, and names compared as people read them. Pure: text in, identities out.

export interface NamedPerson {
  name: string;
  email: string;
}

// `Co-authored-by` with any case and any Unicode dash for its hyphens: git reads only ASCII
// hyphens, but a look-alike key still names a person, and reading it only refuses more approvals.
const CO_AUTHOR_KEY = /^[ \t]*co[\p{Pd}\u2212]authored[\p{Pd}\u2212]by[ \t]*:(.*)$/iu;
const CONTINUATION = /^[ \t]+\S/;
const NAME_AND_EMAIL = /^(.*?)\s*<([^<>]*)>$/u;
const WEB_FLOW_LOGIN = "web-flow";

/**
 * The `Co-authored-by` trailers of a commit message. Reads at least what `git interpret-trailers
 * --parse` reads (git 2.39): any case, blanks before and after the `:` separator, values folded onto
 * indented continuation lines. It also reads such lines outside the last paragraph and with Unicode
 * hyphens, where git would not: a named co-author who is missed could approve their own work.
 */
export function coAuthorsOf(message: string): NamedPerson[] {
  const lines = message.replace(/\r\n?/g, "\n").split("\n");
  const values: string[] = [];
  let open = false;
  for (const line of lines) {
    const key = CO_AUTHOR_KEY.exec(line);
    if (key !== null) {
      values.push(key[1] ?? "");
      open = true;
    } else if (open && CONTINUATION.test(line)) {
      values[values.length - 1] += ` ${line}`;
    } else {
      open = false;
    }
  }
  return values.map(personOf).filter((p) => p.name !== "" || p.email !== "");
}

function personOf(value: string): NamedPerson {
  const flat = collapse(value);
  const match = NAME_AND_EMAIL.exec(flat);
  if (match !== null) return { name: match[1] ?? "", email: (match[2] ?? "").trim() };
  // No angle brackets: the whole value names the person, and is their e-mail if it looks like one.
  return { name: flat, email: /^\S+@\S+$/.test(flat) ? flat : "" };
}

/**
 * The login in a GitHub no-reply address, `<id>+<login>@users.noreply.<host>` or
 * `<login>@users.noreply.<host>`, for github.com and the Enterprise hosts given; else null.
 */
export function noreplyLogin(email: string, hosts: readonly string[] = ["github.com"]): string | null {
  const match = /^(?:\d+\+)?([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\[bot\])?)@users\.noreply\.([^@\s]+)$/i.exec(email.trim());
  if (match === null) return null;
  const host = (match[2] ?? "").toLowerCase();
  return hosts.some((h) => h.toLowerCase() === host) ? match[1] ?? null : null;
}

/**
 * GitHub's own committer of web edits, merges and Update branch: the account `web-flow` committing
 * as `noreply@<host>`. Anyone else who writes that address into a commit is a person like any other.
 */
export function isWebFlow(identity: { login: string | null; email: string }, hosts: readonly string[] = ["github.com"]): boolean {
  if (identity.login?.toLowerCase() !== WEB_FLOW_LOGIN) return false;
  const email = identity.email.trim().toLowerCase();
  return hosts.some((h) => email === `noreply@${h.toLowerCase()}`);
}

/** A name as people compare it: case and runs of blanks do not matter. */
export function comparableName(name: string): string {
  return collapse(name.normalize("NFC")).toLowerCase();
}

function collapse(text: string): string {
  return text.replace(/\s+/gu, " ").trim();
}
