// Which Go toolchain a module needs (issue 22). go.mod's `go` line is the oldest Go that may build
// the module, and since Go 1.21 an older go refuses it outright ("go.mod requires go >= 1.27 (running
// go 1.26.8; GOTOOLCHAIN=local)"). Go itself would download the newer toolchain as a module
// (`golang.org/toolchain`) from the module proxy, which is one of the registries setup may reach. So
// when the machine's go is too old, init names the toolchain Go would pick (GOTOOLCHAIN=go1.27.3):
// the setup, with the network, fetches it into the module cache it stores, and every run (offline)
// starts it from there. A `toolchain` line alone, with a `go` line the machine's go satisfies, is a
// preference: the machine's go serves, and nothing is fetched.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** `1.27`, `1.27.3`, `1.27rc1` as numbers to compare: a language version sorts before its rcs, and those before `.0`. */
function parts(version: string): [number, number, number, number] | null {
  const match = /^(\d+)\.(\d+)(?:\.(\d+)|(rc|beta)(\d+))?$/.exec(version);
  if (match === null) return null;
  const [, major, minor, patch, pre, preN] = match;
  const kind = patch !== undefined ? 2 : pre === "rc" ? 1 : pre === "beta" ? 0 : -1;
  return [Number(major), Number(minor), kind, Number(patch ?? preN ?? 0)];
}

/** Go's order of versions (without the `go` prefix); null when either cannot be read. */
export function compareGo(a: string, b: string): number | null {
  const [x, y] = [parts(a), parts(b)];
  if (x === null || y === null) return null;
  for (let i = 0; i < 4; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** The `go` and `toolchain` lines of a go.mod (versions without the `go` prefix). */
export function goModVersions(text: string): { go: string | null; toolchain: string | null } {
  const line = (name: string): string | null => new RegExp(`^\\s*${name}\\s+(?:go)?(\\S+)\\s*(?://.*)?$`, "m").exec(text)?.[1] ?? null;
  const toolchain = line("toolchain");
  return { go: line("go"), toolchain: toolchain === "default" ? null : toolchain };
}

/**
 * The toolchain (`go1.27.3`) a module needs when `local` (the machine's go, `go1.26.8`) is older than
 * its `go` line, chosen as Go chooses it: the `toolchain` line when it is newer than the `go` line,
 * else the `go` line, a language version (`1.27`) meaning its first release (`1.27.0`). Null when the
 * machine's go builds the module, or a version cannot be read (then nothing changes).
 */
export function neededToolchain(goMod: string, local: string): string | null {
  const { go, toolchain } = goModVersions(goMod);
  const have = local.replace(/^go/, "");
  if (go === null || (compareGo(go, have) ?? 0) <= 0) return null;
  if (toolchain !== null && (compareGo(toolchain, go) ?? 0) > 0) return `go${toolchain}`;
  return /^\d+\.\d+$/.test(go) && (compareGo(go, "1.21") ?? -1) >= 0 ? `go${go}.0` : `go${go}`;
}

/** The version of the go in `binDir` (`go1.26.8`), from its GOROOT's VERSION file; null when it has none. */
export function localGoVersion(binDir: string): string | null {
  try {
    const first = readFileSync(join(dirname(binDir), "VERSION"), "utf8").split("\n")[0]?.trim() ?? "";
    return /^go\d+\.\d+/.test(first) ? first : null;
  } catch {
    return null;
  }
}
