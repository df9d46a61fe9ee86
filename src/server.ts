// `npm start`: the GitHub App's HTTP server. Reads the environment, wires the real judge and journal
// into the app, and listens. Missing configuration: one line naming the variable, exit 1.
import { Probot, Server } from "probot";
import { ConfigError, readServerConfig, type ServerConfig } from "./github/config.js";
import type { AppDeps } from "./github/deps.js";

// The app and the judge are imported only once the configuration is known to be complete, so a
// missing variable is reported before anything heavy loads.
async function depsFor(config: ServerConfig, onJobError: (err: unknown) => void): Promise<AppDeps> {
  const { judge } = await import("./judge/judge.js");
  const { journalDeps } = await import("./github/journal-deps.js");
  const { InProcessRunner } = await import("./github/jobs.js");
  return {
    // The judge cannot be interrupted mid-measurement yet: a superseded job finishes measuring, and
    // its result is dropped (never signed or posted) when the signal has aborted.
    judge: (request) => judge(request),
    ...journalDeps({ dataDir: config.dataDir, keyPath: config.signingKeyPath, databaseUrl: config.databaseUrl }),
    dataDir: config.dataDir,
    publicUrl: config.publicUrl,
    clock: () => new Date(),
    runner: new InProcessRunner(undefined, onJobError),
  };
}

async function main(): Promise<void> {
  let config: ServerConfig;
  try {
    config = readServerConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`ranex: ${err.message}\n`);
    process.exit(1);
  }
  const server = new Server({
    Probot: Probot.defaults({ appId: config.appId, privateKey: config.privateKey, secret: config.webhookSecret, baseUrl: config.baseUrl }),
    port: config.port, host: config.host,
  });
  const { default: ranexApp } = await import("./index.js");
  const deps = await depsFor(config, (err) => console.error("ranex: a judge job failed outside its check run", err));
  await server.load(ranexApp(deps));
  await server.start();
}

await main();
