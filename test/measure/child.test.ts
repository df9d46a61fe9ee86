import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const child = fileURLToPath(new URL("../../src/measure/child.ts", import.meta.url));
const tsx = import.meta.resolve("tsx/esm");

// The measuring process checks its own environment before it reads its plan or runs anything.
describe("the measuring process", () => {
  it.each([
    ["a signing key path", { RANEX_SIGNING_KEY_PATH: "/keys/seed" }],
    ["a GitHub token", { GITHUB_TOKEN: "ghs_0123456789abcdefghijklmnopqrstuvwxyzAB" }],
    ["a database URL", { DATABASE_URL: "postgres://u:p@db/x" }],
    ["a webhook secret", { WEBHOOK_SECRET: "hush" }],
  ])("refuses to start when its environment holds %s, without echoing it", (_what, planted) => {
    const result = spawnSync(process.execPath, ["--import", tsx, child], {
      env: { PATH: "/usr/bin:/bin", ...planted }, input: "{}", encoding: "utf8",
    });
    expect(result.status).toBe(3);
    expect(result.stderr).toContain("measuring process refused to start");
    for (const value of Object.values(planted)) expect(result.stderr).not.toContain(value);
  });
});
