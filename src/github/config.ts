// The server's configuration, from the environment. A missing or unusable variable is one clear
// line naming it, never a half-started server (and never Probot's setup mode in production).
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export interface ServerConfig {
  appId: number;
  privateKey: string;
  webhookSecret: string;
  /** https://api.github.com, or https://GHE_HOST/api/v3 for GitHub Enterprise Server. */
  baseUrl: string;
  dataDir: string;
  signingKeyPath?: string;
  databaseUrl?: string;
  publicUrl?: string;
  /** `RANEX_PAGE_SECRET`: the verdict page tokens' HMAC key; unset, one is generated in the data dir. */
  pageSecret?: string;
  port: number;
  host?: string;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

type Env = Readonly<Record<string, string | undefined>>;

export function readServerConfig(env: Env, cwd: string = process.cwd()): ServerConfig {
  const appIdText = required(env, "APP_ID", "the GitHub App's id, from its settings page");
  const appId = Number(appIdText);
  if (!Number.isSafeInteger(appId) || appId <= 0) throw new ConfigError(`APP_ID must be the app's numeric id, got ${JSON.stringify(appIdText)}`);
  const privateKey = readPrivateKey(env, cwd);
  const webhookSecret = required(env, "WEBHOOK_SECRET", "the secret set on the app's webhook; without it anyone could send events");
  const config: ServerConfig = {
    appId, privateKey, webhookSecret,
    baseUrl: given(env.GHE_HOST) ? `${env.GHE_PROTOCOL || "https"}://${hostOf(env.GHE_HOST)}/api/v3` : "https://api.github.com",
    dataDir: given(env.RANEX_DATA_DIR) ? resolve(cwd, env.RANEX_DATA_DIR) : join(env.HOME || homedir(), ".ranex"),
    port: portOf(env.PORT),
  };
  if (given(env.RANEX_SIGNING_KEY_PATH)) config.signingKeyPath = resolve(cwd, env.RANEX_SIGNING_KEY_PATH);
  if (given(env.DATABASE_URL)) config.databaseUrl = env.DATABASE_URL;
  if (given(env.HOST)) config.host = env.HOST;
  if (given(env.RANEX_PAGE_SECRET)) {
    // Every replica must share it, and a short one could be guessed: it protects private repositories' pages.
    if (env.RANEX_PAGE_SECRET.length < 32) throw new ConfigError("RANEX_PAGE_SECRET must be at least 32 characters (for example: openssl rand -base64 32)");
    config.pageSecret = env.RANEX_PAGE_SECRET;
  }
  if (given(env.RANEX_PUBLIC_URL)) {
    let url: URL;
    try {
      url = new URL(env.RANEX_PUBLIC_URL);
    } catch {
      throw new ConfigError(`RANEX_PUBLIC_URL must be an absolute URL (https://gate.example.com), got ${JSON.stringify(env.RANEX_PUBLIC_URL)}`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new ConfigError(`RANEX_PUBLIC_URL must be http(s), got ${url.protocol}`);
    config.publicUrl = url.toString().replace(/\/+$/, "");
  }
  return config;
}

function readPrivateKey(env: Env, cwd: string): string {
  if (given(env.PRIVATE_KEY)) {
    const key = env.PRIVATE_KEY.includes("-----BEGIN") ? env.PRIVATE_KEY : Buffer.from(env.PRIVATE_KEY, "base64").toString("utf8");
    if (!key.includes("-----BEGIN")) throw new ConfigError("PRIVATE_KEY is neither a PEM key nor a base64-encoded one");
    return key.replace(/\\n/g, "\n");
  }
  if (!given(env.PRIVATE_KEY_PATH)) throw new ConfigError("PRIVATE_KEY or PRIVATE_KEY_PATH is not set: give the app's private key (the .pem downloaded from its settings page)");
  try {
    return readFileSync(resolve(cwd, env.PRIVATE_KEY_PATH), "utf8");
  } catch (err) {
    throw new ConfigError(`PRIVATE_KEY_PATH ${env.PRIVATE_KEY_PATH} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function required(env: Env, name: string, what: string): string {
  const value = env[name];
  if (!given(value)) throw new ConfigError(`${name} is not set: ${what}`);
  return value;
}

function given(value: string | undefined): value is string {
  return value !== undefined && value !== "";
}

/** GHE_HOST is a host name; a pasted URL is accepted and reduced to its host. */
function hostOf(value: string): string {
  return value.replace(/^https?:\/\//, "").replace(/\/.*$/, "");
}

function portOf(value: string | undefined): number {
  if (!given(value)) return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be a port number, got ${JSON.stringify(value)}`);
  return port;
}
