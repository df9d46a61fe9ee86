// `ranex doctor`'s sandbox probe for /healthz, run in a child process with an environment built from
// empty: the server holds the app key and webhook secret, and the sandbox rightly refuses to start
// from a process that does (invariant 6). Prints the SandboxCheck as JSON.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MEASURER_ENV } from "../measure/spawn-measurer.js";
import type { SandboxCheck } from "../sandbox/check.js";

export function probeSandboxKeyless(): Promise<SandboxCheck> {
  const entry = new URL("./sandbox-probe" + (import.meta.url.endsWith(".ts") ? ".ts" : ".js"), import.meta.url);
  const loader = import.meta.url.endsWith(".ts") ? ["--import", import.meta.resolve("tsx/esm")] : [];
  return new Promise((resolve) => {
    execFile(process.execPath, [...loader, fileURLToPath(entry), "--probe"], { env: { ...MEASURER_ENV }, timeout: 20_000 }, (err, stdout) => {
      try {
        resolve(JSON.parse(stdout) as SandboxCheck);
      } catch {
        resolve({ ok: false, problem: `the sandbox probe did not answer: ${err?.message ?? "no output"}` });
      }
    });
  });
}

if (process.argv.includes("--probe") && import.meta.url === new URL(`file://${process.argv[1] ?? ""}`).href) {
  const { checkSandbox } = await import("../sandbox/check.js");
  process.stdout.write(JSON.stringify(await checkSandbox().catch((err: unknown) => ({ ok: false, problem: String(err) }))));
}
