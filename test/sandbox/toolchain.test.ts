import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSandbox, profileDigest } from "../../src/sandbox/index.js";
import { toolchainMounts } from "../../src/sandbox/profile.js";
import { tempDir } from "../helpers/git-repo.js";
import { PROFILE } from "./helpers.js";

// Real toolchains in the sandbox (issue 15): `localhost` resolves in every run, with or without the
// network, and the policy's toolchain directories come first on PATH, mounted read-only.
describe("localhost in the sandbox", () => {
  for (const network of [false, true]) {
    it(`resolves and binds localhost ${network ? "with" : "without"} network`, async () => {
      const script = [
        "const dns = require('node:dns'); const net = require('node:net');",
        "dns.lookup('localhost', { all: true }, (err, addrs) => {",
        "  if (err) { console.log('lookup failed', err.code); process.exit(1); }",
        "  const server = net.createServer((s) => s.end('hi')).listen(0, 'localhost', () => {",
        "    const c = net.connect(server.address().port, 'localhost'); c.on('data', (d) => { console.log('got', String(d)); server.close(); c.end(); });",
        "  });",
        "});",
      ].join("\n");
      const work = tempDir("ranex-work-");
      writeFileSync(join(work, "probe.cjs"), script);
      const result = await createSandbox(PROFILE).run({ command: "node probe.cjs", workdir: work, env: {}, timeoutMs: 10_000, network });
      expect(result.outputTail).toContain("got hi");
      expect(result.exitCode).toBe(0);
    });
  }
});

describe("toolchain.path", () => {
  function fakeToolchain(): string {
    const prefix = tempDir("ranex-toolchain-");
    mkdirSync(join(prefix, "bin"));
    mkdirSync(join(prefix, "lib"));
    writeFileSync(join(prefix, "lib", "version.txt"), "3.99\n");
    // Reads its library through ../lib, as pyenv's and nvm's interpreters do.
    writeFileSync(join(prefix, "bin", "python3"), `#!/bin/sh\necho "toolchain python $(cat ${prefix}/lib/version.txt)"\n`);
    chmodSync(join(prefix, "bin", "python3"), 0o755);
    return prefix;
  }

  it("puts the toolchain before the system PATH, with its prefix mounted read-only", async () => {
    const prefix = fakeToolchain();
    const sandbox = createSandbox({ ...PROFILE, toolchain: [join(prefix, "bin")] });
    const result = await sandbox.run({
      command: `echo "$PATH"; command -v python3; python3; echo x > ${prefix}/lib/version.txt || echo refused`,
      workdir: tempDir("ranex-work-"), env: {}, timeoutMs: 5000, network: false,
    });
    expect(result.outputTail).toContain(`${prefix}/bin:/usr/local/bin:/usr/bin:/bin`);
    expect(result.outputTail).toContain(`${prefix}/bin/python3`);
    expect(result.outputTail).toContain("toolchain python 3.99");
    expect(result.outputTail).toContain("refused");
  });

  it("shows this checkout's node_modules/.bin in the sandbox (elsewhere when /work would hide it), still resolving its packages", async () => {
    // A checkout under /work (as here) is hidden by the tree mounted there; elsewhere (CI clones into
    // another directory) it is shown at its own path.
    const bin = join(process.cwd(), "node_modules", ".bin");
    const shownAt = bin.startsWith("/work/") ? "/opt/ranex/toolchain/0/node_modules/.bin" : bin;
    const result = await createSandbox({ ...PROFILE, toolchain: [bin] }).run({
      command: "command -v vitest; vitest --version", workdir: tempDir("ranex-work-"), env: {}, timeoutMs: 20_000, network: false,
    });
    expect(result.outputTail.split("\n")).toContain(`${shownAt}/vitest`);
    expect(result.outputTail).toMatch(/vitest\/\d+\.\d+/);
  });

  it("moves a toolchain prefix the tree at /work would hide, keeping its last name", () => {
    const mounts = toolchainMounts({ ...PROFILE, toolchain: ["/usr/local/bin", "/work/app/node_modules/.bin", "/opt/py/bin/"] });
    expect(mounts).toEqual([
      { host: "/usr/local", sandbox: "/usr/local", entry: "/usr/local/bin" },
      { host: "/work/app/node_modules", sandbox: "/opt/ranex/toolchain/1/node_modules", entry: "/opt/ranex/toolchain/1/node_modules/.bin" },
      { host: "/opt/py", sandbox: "/opt/py", entry: "/opt/py/bin" },
    ]);
  });

  it("fails every run closed, naming the directory, when it does not exist here", async () => {
    const result = await createSandbox({ ...PROFILE, toolchain: ["/nonexistent/pyenv/bin"] }).run({
      command: "true", workdir: tempDir("ranex-work-"), env: {}, timeoutMs: 5000, network: false,
    });
    expect(result.exitCode).toBeNull();
    expect(result.violation).toMatch(/toolchain\.path entry \/nonexistent\/pyenv\/bin is not a directory/);
  });

  it("is part of the profile digest", () => {
    expect(profileDigest({ ...PROFILE, toolchain: ["/opt/a/bin"] })).not.toBe(profileDigest(PROFILE));
    expect(profileDigest({ ...PROFILE, toolchain: [] })).toBe(profileDigest(PROFILE));
  });
});
