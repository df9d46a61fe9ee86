import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ConfigError, readServerConfig } from "../../src/github/config.js";
import { tempDir } from "../helpers/git-repo.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n";

describe("npm start", () => {
  it("exits 1 with one line naming the missing variable when started without credentials in production", async () => {
    const result = await run(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "src/server.ts")], { env: { PATH: process.env.PATH, NODE_ENV: "production" }, cwd: tempDir() })
      .then(() => ({ code: 0, stderr: "" }), (err: { code: number; stderr: string }) => err);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("ranex: APP_ID is not set: the GitHub App's id, from its settings page\n");
  }, 30_000);
});

describe("readServerConfig", () => {
  const complete = { APP_ID: "12", PRIVATE_KEY: PEM, WEBHOOK_SECRET: "s", HOME: "/home/x" };

  it.each([
    [{ ...complete, APP_ID: undefined }, /^APP_ID is not set/],
    [{ ...complete, APP_ID: "twelve" }, /^APP_ID must be the app's numeric id/],
    [{ ...complete, PRIVATE_KEY: undefined }, /^PRIVATE_KEY or PRIVATE_KEY_PATH is not set/],
    [{ ...complete, PRIVATE_KEY: undefined, PRIVATE_KEY_PATH: "/nonexistent/key.pem" }, /^PRIVATE_KEY_PATH \/nonexistent\/key.pem cannot be read: ENOENT/],
    [{ ...complete, WEBHOOK_SECRET: "" }, /^WEBHOOK_SECRET is not set/],
    [{ ...complete, RANEX_PUBLIC_URL: "gate.example.com" }, /^RANEX_PUBLIC_URL must be an absolute URL/],
  ])("refuses %j", (env, message) => {
    expect(() => readServerConfig(env)).toThrow(ConfigError);
    expect(() => readServerConfig(env)).toThrow(message);
  });

  it("reads a complete environment, GHES and a key file", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "app.pem"), PEM);
    const config = readServerConfig({
      ...complete, PRIVATE_KEY: undefined, PRIVATE_KEY_PATH: "app.pem", GHE_HOST: "ghe.example.com", RANEX_DATA_DIR: "data",
      RANEX_PUBLIC_URL: "https://gate.example.com/", RANEX_SIGNING_KEY_PATH: "/keys/seed", PORT: "8080",
    }, dir);
    expect(config).toEqual({
      appId: 12, privateKey: PEM, webhookSecret: "s", baseUrl: "https://ghe.example.com/api/v3", dataDir: join(dir, "data"),
      publicUrl: "https://gate.example.com", signingKeyPath: "/keys/seed", port: 8080,
    });
    expect(readServerConfig(complete)).toMatchObject({ baseUrl: "https://api.github.com", dataDir: "/home/x/.ranex", port: 3000 });
  });
});
