// Keyless measurement (DESIGN.md, invariant 6): the process that runs untrusted code must hold no
// key, token, webhook secret or database URL. If it holds one, the code under test could find it
// (a leaked fd, a parent's /proc entry, a bug in isolation), so we refuse before spawning anything.

/** The one list of variable names that must never reach a measuring process. */
export const SECRET_ENV_NAMES: readonly string[] = Object.freeze([
  "RANEX_SIGNING_KEY",
  "RANEX_SIGNING_KEY_PATH",
  "PRIVATE_KEY",
  "PRIVATE_KEY_PATH",
  "WEBHOOK_SECRET",
  "GITHUB_WEBHOOK_SECRET",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "GITHUB_PAT",
  "GITHUB_APP_PRIVATE_KEY",
  "GITHUB_PRIVATE_KEY",
  "GITHUB_CLIENT_SECRET",
  "APP_PRIVATE_KEY",
  "DATABASE_URL",
  "RANEX_DATABASE_URL",
  // Not RANEX_TEST_DATABASE_URL: it names the test suite's throwaway database (CI sets it for the
  // whole run, sandbox tests included); one that carries a password is still refused by value.
  "PGPASSWORD",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "NPM_TOKEN",
]);

/** Values that are secrets whatever the variable is called. Each names what it found, never the value. */
const SECRET_VALUE_PATTERNS: readonly { what: string; pattern: RegExp }[] = [
  { what: "a PEM private key", pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/ },
  { what: "a GitHub token", pattern: /\b(?:ghp|ghs|gho|ghu|ghr)_[A-Za-z0-9]{20,}/ },
  { what: "a GitHub fine-grained token", pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/ },
  { what: "a database URL with a password", pattern: /\b(?:postgres|postgresql|mysql|mongodb(?:\+srv)?):\/\/[^\s:/@]+:[^\s@/]+@/ },
];

export class KeylessError extends Error {
  override readonly name = "KeylessError";
}

const SECRET_NAME_SET = new Set(SECRET_ENV_NAMES);

function secretKind(value: string): string | null {
  for (const { what, pattern } of SECRET_VALUE_PATTERNS) if (pattern.test(value)) return what;
  return null;
}

/**
 * Throws a KeylessError naming the first offending variable or argument position (never its value).
 * An empty variable carries nothing, so it is allowed.
 */
export function assertKeyless(env: Readonly<Record<string, string | undefined>>, argv: readonly string[]): void {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === "") continue;
    if (SECRET_NAME_SET.has(name.toUpperCase())) {
      throw new KeylessError(
        `refusing to measure: the environment carries ${name}, a secret the sandboxed code could reach; start the measuring process without it`,
      );
    }
    const kind = secretKind(value);
    if (kind !== null) {
      throw new KeylessError(`refusing to measure: the environment variable ${name} holds ${kind}; start the measuring process without it`);
    }
  }
  argv.forEach((arg, index) => {
    const kind = secretKind(arg);
    if (kind !== null) throw new KeylessError(`refusing to measure: argument ${index} holds ${kind}; never pass secrets to the measuring process`);
    const assigned = /^(?:--)?([A-Za-z_][A-Za-z0-9_]*)=./.exec(arg)?.[1];
    if (assigned !== undefined && SECRET_NAME_SET.has(assigned.toUpperCase())) {
      throw new KeylessError(`refusing to measure: argument ${index} sets ${assigned}, a secret the sandboxed code could reach`);
    }
  });
}
