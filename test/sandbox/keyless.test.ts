import { describe, expect, it } from "vitest";
import { assertKeyless, KeylessError, SECRET_ENV_NAMES } from "../../src/sandbox/index.js";

const PEM = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIKvq3mZ8yHk1wXbG8x3kJ6yVYf0bYp7z0y7A0Q1w2e3r\n-----END PRIVATE KEY-----\n";
const GH_TOKEN_VALUE = `ghp_${"A1b2C3d4E5".repeat(4)}`;

function messageOf(fn: () => void): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(KeylessError);
    return (err as Error).message;
  }
  throw new Error("expected a KeylessError");
}

describe("assertKeyless", () => {
  it("has one list naming every required secret", () => {
    for (const name of ["RANEX_SIGNING_KEY", "RANEX_SIGNING_KEY_PATH", "PRIVATE_KEY", "PRIVATE_KEY_PATH", "WEBHOOK_SECRET",
      "GITHUB_TOKEN", "GH_TOKEN", "GITHUB_APP_PRIVATE_KEY", "DATABASE_URL"]) {
      expect(SECRET_ENV_NAMES).toContain(name);
    }
  });

  // CI sets RANEX_TEST_DATABASE_URL for the whole test run (a passwordless throwaway database), so
  // it is not refused by name; a test database URL that carries a password still is, by value.
  it("refuses a test database URL only when it carries a password", () => {
    expect(() => assertKeyless({ RANEX_TEST_DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test" }, [])).not.toThrow();
    expect(() => assertKeyless({ RANEX_TEST_DATABASE_URL: "postgres://ci:hunter2hunter2@db:5432/test" }, [])).toThrow(KeylessError);
  });

  it.each(SECRET_ENV_NAMES.map((name) => [name]))("refuses %s, naming it but never its value", (name) => {
    const value = `value-of-${name}-9f8e7d`;
    const message = messageOf(() => assertKeyless({ PATH: "/usr/bin", [name]: value }, []));
    expect(message).toContain(name);
    expect(message).not.toContain(value);
  });

  it("refuses a PEM private key under an innocent name without echoing it", () => {
    const message = messageOf(() => assertKeyless({ NOTHING_TO_SEE: PEM }, []));
    expect(message).toContain("NOTHING_TO_SEE");
    expect(message).toContain("PEM private key");
    expect(message).not.toContain("MC4CAQAw");
  });

  it("refuses GitHub tokens by value, in the environment and in arguments", () => {
    expect(messageOf(() => assertKeyless({ HARMLESS: GH_TOKEN_VALUE }, []))).not.toContain(GH_TOKEN_VALUE);
    const inArgs = messageOf(() => assertKeyless({}, ["judge", `--token=${GH_TOKEN_VALUE}`]));
    expect(inArgs).toContain("argument 1");
    expect(inArgs).not.toContain(GH_TOKEN_VALUE);
    expect(() => assertKeyless({}, [`github_pat_${"x".repeat(30)}`])).toThrow(KeylessError);
    expect(() => assertKeyless({}, [`ghs_${"Z".repeat(36)}`])).toThrow(KeylessError);
  });

  it("refuses a secret variable set through an argument and a database URL with a password", () => {
    expect(messageOf(() => assertKeyless({}, ["env", "GITHUB_TOKEN=abc"]))).toContain("GITHUB_TOKEN");
    const message = messageOf(() => assertKeyless({ SOME_URL: "postgres://user:hunter2@db:5432/x" }, []));
    expect(message).not.toContain("hunter2");
  });

  it("lets an ordinary environment through, and empty secret variables carry nothing", () => {
    expect(() => assertKeyless({ PATH: "/usr/bin", HOME: "/root", GITHUB_TOKEN: "", CI: "true" }, ["judge", "--repo", "."])).not.toThrow();
  });
});
