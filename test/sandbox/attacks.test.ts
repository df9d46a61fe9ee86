import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createSandbox, type RunResult } from "../../src/sandbox/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { marker, PROFILE } from "./helpers.js";

// Attacks from inside the sandbox. Each probe prints `name=yes` when the attack worked and
// `name=no:<why>`. The safe ones also run under backend "none" as a control: there they must work,
// which shows the probe can tell (a probe that always says "no" would prove nothing).

const mark = marker();
const planted = `planted-${randomBytes(8).toString("hex")}`;
// Split in the command so the secret never appears whole on a command line.
const [plantedHead, plantedTail] = [planted.slice(0, 10), planted.slice(10)];
let server: Server;
let port = 0;
let dataDir = "";
let holder: ChildProcess | undefined;

function probes(): string {
  const py = (name: string, code: string) =>
    `python3 -c "${code.replaceAll('"', '\\"')}" >/dev/null 2>/tmp/err-${name} && echo ${name}=yes || echo "${name}=no:$(tail -1 /tmp/err-${name} | cut -c1-120)"`;
  return [
    `S=${plantedHead}'${plantedTail}'`,
    `mkdir -p /tmp`,
    `mount -o remount,rw /usr 2>/dev/null && echo remount=yes || echo remount=no`,
    `touch /usr/ranex-pwned-${mark} 2>/dev/null && echo write_usr=yes || echo write_usr=no`,
    `(echo x >> /etc/passwd) 2>/dev/null && echo write_etc_passwd=yes || echo write_etc_passwd=no`,
    `touch /etc/ranex-pwned-${mark} 2>/dev/null && echo write_etc=yes || echo write_etc=no`,
    `ls /root >/dev/null 2>&1 && echo read_root=yes || echo read_root=no`,
    `unshare -r true 2>/dev/null && echo nested_userns=yes || echo nested_userns=no`,
    `grep -q "$S" /proc/1/environ 2>/dev/null && echo proc1_environ=yes || echo proc1_environ=no`,
    `grep -lq "$S" /proc/*/environ 2>/dev/null && echo any_environ=yes || echo any_environ=no`,
    `env | grep -q "$S" && echo own_env=yes || echo own_env=no`,
    `grep -rlq "$S" /tmp/home /work /etc 2>/dev/null && echo files=yes || echo files=no`,
    `ls ${dataDir} >/dev/null 2>&1 && echo data_dir=yes || echo data_dir=no`,
    `awk 'NR>2 && $1 != "lo:" {f=1} END {print (f ? "interfaces=yes" : "interfaces=no")}' /proc/net/dev`,
    py("loopback", `import socket; socket.create_connection(('127.0.0.1', ${port}), 1)`),
    py("dns", `import socket; socket.getaddrinfo('example.com', 443)`),
    py("outbound", `import socket; socket.create_connection(('1.1.1.1', 443), 1)`),
    `: ${mark}`,
  ].join("\n");
}

function parse(result: RunResult): Record<string, string> {
  const found: Record<string, string> = {};
  for (const line of result.outputTail.split("\n")) {
    const m = /^(\w+)=(yes|no)(?::(.*))?$/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined) found[m[1]] = m[2] === "yes" ? "yes" : `no${m[3] ? `:${m[3]}` : ""}`;
  }
  return found;
}

let inside: Record<string, string> = {};
let control: Record<string, string> = {};

beforeAll(async () => {
  server = createServer((socket) => {
    socket.on("error", () => { /* a probe that hangs up early is fine */ });
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
  dataDir = tempDir("ranex-data-");
  writeFileSync(join(dataDir, "signing.key"), `${planted}\n`);
  process.env.RANEX_TEST_PLANTED = planted;
  // /proc/<pid>/environ shows a process's initial environment, so plant it in a live host process
  // too, as a judge's parent holding a key would.
  holder = spawn("/bin/sleep", ["60"], { env: { RANEX_TEST_PLANTED: planted } });
  const request = { command: "", workdir: tempDir("ranex-attack-"), env: {}, timeoutMs: 60_000, network: false };
  const safeProbes = probes().split("\n").filter((line) => !/remount|ranex-pwned|\/etc\/passwd/.test(line)).join("\n");
  const [bwrapRun, noneRun] = await Promise.all([
    createSandbox(PROFILE).run({ ...request, command: probes() }),
    createSandbox({ ...PROFILE, backend: "none" }).run({ ...request, command: safeProbes }),
  ]);
  inside = parse(bwrapRun);
  control = parse(noneRun);
});

afterAll(() => {
  delete process.env.RANEX_TEST_PLANTED;
  holder?.kill("SIGKILL");
  server.close();
});

describe("attacks from inside the bwrap sandbox", () => {
  it("cannot remount or write the host's /usr, even as root on the host", () => {
    expect(inside.remount).toBe("no");
    expect(inside.write_usr).toBe("no");
    expect(existsSync(`/usr/ranex-pwned-${mark}`)).toBe(false);
  });

  it("cannot write /etc, nor reach a capability set through a nested user namespace", () => {
    expect(inside.write_etc_passwd).toBe("no");
    expect(inside.write_etc).toBe("no");
    expect(existsSync(`/etc/ranex-pwned-${mark}`)).toBe(false);
    expect(inside.nested_userns).toBe("no");
  });

  it("cannot read /root (the control run on the host can)", () => {
    expect(control.read_root).toBe("yes");
    expect(inside.read_root).toBe("no");
  });

  it("finds no planted secret in the environment, /proc/*/environ, home, work or the data dir", () => {
    expect(control.any_environ).toBe("yes");
    expect(control.data_dir).toBe("yes");
    expect(inside).toMatchObject({ own_env: "no", proc1_environ: "no", any_environ: "no", files: "no", data_dir: "no" });
    expect(control.own_env).toBe("no"); // even without namespaces, the environment is built from empty
  });

  it("sees no host network: no interfaces but lo, no host loopback, no DNS, no outbound connect", () => {
    expect(control.interfaces).toBe("yes");
    expect(control.loopback).toBe("yes");
    expect(inside.interfaces).toBe("no");
    expect(inside.loopback).toMatch(/^no:.*(ConnectionRefused|Errno 111)/);
    expect(inside.dns).toMatch(/^no:.*gaierror/);
    expect(inside.outbound).toMatch(/^no:.*(Network is unreachable|Errno 101)/);
  });
});

describe("network: true (setup only, by policy)", () => {
  it("shares the host network, so the flag is what keeps it out", async () => {
    const result = await createSandbox(PROFILE).run({
      command: `python3 -c "import socket; print(socket.create_connection(('127.0.0.1', ${port}), 1).recv(100).decode())"`,
      workdir: tempDir(), env: {}, timeoutMs: 5000, network: true,
    });
    expect(result.outputTail).toContain("hello from the host");
  });
});
