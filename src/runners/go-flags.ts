// The build flags a policy's Go commands use, read from the commands as the shell would split them
// (issue 22). Go keys every compiled package on its flags, so the gate's standard-library layer
// (src/measure/deps/go-std.ts) helps a run only when it was built with the same ones: `-race`
// compiles every package of the standard library again, `CGO_ENABLED=0` the ones that use cgo.
// Flags that change no package of the standard library (`-cover`: measured on Go 1.26, it
// instruments the packages under test only; `-run`, `-json`, `-count`) are left out, so they share
// the default layer. Flags the gate does not reproduce are named, so the run's line can say why the
// layer may not apply. Pure.

/** One set of flags a layer is built for; empty `args` and `env`: the default layer. */
export interface GoBuildFlags {
  /** `go test` flags that change how the standard library compiles, as written (sorted). */
  args: string[];
  /** `NAME=value` assignments that do (sorted). */
  env: string[];
  /** Flags that change it but that the gate does not build a layer for (the runs compile what they change). */
  unsupported: string[];
}

/** Compile-changing flags the gate builds a layer with: booleans, and flags with a value (checked). */
const REPRODUCED_BOOL = new Set(["-race", "-msan", "-asan", "-trimpath"]);
const REPRODUCED_VALUE: Record<string, RegExp> = { "-tags": /^[\w.,-]*$/ };
/** Compile-changing flags the gate does not reproduce (a layer for them would be one per repository). */
const UNSUPPORTED = new Set(["-gcflags", "-asmflags", "-toolexec", "-pgo", "-buildmode", "-compiler", "-gccgoflags", "-overlay", "-linkshared", "-installsuffix", "-coverpkg"]);
/** Flags that take a separate value when written without `=` (so the value is not read as a flag or package). */
const TAKES_VALUE = new Set([
  ...Object.keys(REPRODUCED_VALUE), ...UNSUPPORTED, "-run", "-skip", "-count", "-timeout", "-p", "-parallel", "-cpu", "-bench", "-benchtime",
  "-covermode", "-coverprofile", "-o", "-exec", "-mod", "-modfile", "-ldflags", "-vet", "-list", "-shuffle", "-blockprofile", "-cpuprofile",
  "-memprofile", "-mutexprofile", "-outputdir", "-trace", "-fuzz", "-fuzztime", "-C",
]);
/** Environment that changes how the standard library compiles, with the values the gate reproduces. */
const ENV_REPRODUCED: Record<string, RegExp> = { CGO_ENABLED: /^[01]$/, GOAMD64: /^v[1-4]$/, GOARM64: /^v[89]\.\d$/, GOEXPERIMENT: /^[\w,]*$/ };
const ENV_UNSUPPORTED = new Set(["GOOS", "GOARCH", "CC", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_LDFLAGS"]);

/** Shell words of a command, quotes removed; `;`, `&&`, `||`, `|`, `{`, `}`, `(`, `)` as words of their own. */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  const push = (): void => {
    if (word !== null) words.push(word);
    word = null;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i] ?? "";
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word = (word ?? "") + command.slice(i + 1, end === -1 ? undefined : end);
      i = end === -1 ? command.length : end;
    } else if (c === '"') {
      let j = i + 1;
      let text = "";
      for (; j < command.length && command[j] !== '"'; j++) text += command[j] === "\\" && j + 1 < command.length ? command[++j] : command[j];
      word = (word ?? "") + text;
      i = j;
    } else if (/\s/.test(c)) push();
    else if (";&|(){}".includes(c)) {
      push();
      const two = command.slice(i, i + 2);
      words.push(two === "&&" || two === "||" ? two : c);
      if (two === "&&" || two === "||") i++;
    } else word = (word ?? "") + c;
  }
  push();
  return words;
}

const SEPARATORS = new Set([";", "&&", "||", "|", "&", "(", ")", "{", "}"]);

/**
 * The flag sets of every `go test` in the commands (deduplicated): the environment it gets from
 * assignments before it and `export`s earlier in the same command, and its own flags (GOFLAGS'
 * contents count as flags). A command without `go test` gives none.
 */
export function goBuildFlags(commands: readonly (string | undefined)[]): GoBuildFlags[] {
  const found = new Map<string, GoBuildFlags>();
  for (const command of commands) {
    if (command === undefined) continue;
    const words = shellWords(command);
    const exported = new Map<string, string>();
    let start = 0;
    for (let i = 0; i <= words.length; i++) {
      const w = words[i];
      if (w !== undefined && !SEPARATORS.has(w)) continue;
      const simple = words.slice(start, i);
      start = i + 1;
      const assigned = new Map(exported);
      let k = 0;
      if (simple[0] === "export") {
        for (const a of simple.slice(1)) assignment(a, exported);
        continue;
      }
      while (k < simple.length && assignment(simple[k] ?? "", assigned)) k++;
      if (simple[k] !== "go" || simple[k + 1] !== "test") continue;
      const flags = readFlags([...(assigned.get("GOFLAGS") ?? "").split(/\s+/).filter(Boolean), ...simple.slice(k + 2)], assigned);
      found.set(JSON.stringify([flags.args, flags.env]), flags);
    }
  }
  return [...found.values()];
}

function assignment(word: string, into: Map<string, string>): boolean {
  const match = /^([A-Za-z_]\w*)=(.*)$/s.exec(word);
  if (match?.[1] === undefined) return false;
  into.set(match[1], match[2] ?? "");
  return true;
}

function readFlags(words: readonly string[], env: ReadonlyMap<string, string>): GoBuildFlags {
  const args = new Set<string>();
  const unsupported = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? "";
    if (w === "-args" || w === "--args") break;
    if (!w.startsWith("-")) continue;
    const eq = w.indexOf("=");
    const name = (eq === -1 ? w : w.slice(0, eq)).replace(/^--/, "-");
    const value = eq === -1 && TAKES_VALUE.has(name) ? words[++i] ?? "" : eq === -1 ? null : w.slice(eq + 1);
    if (REPRODUCED_BOOL.has(name) && (value === null || value === "true")) args.add(name);
    else if (name in REPRODUCED_VALUE && value !== null && value !== "") {
      if (REPRODUCED_VALUE[name]?.test(value) === true) args.add(`${name}=${value}`);
      else unsupported.add(`${name}=${value}`);
    } else if (UNSUPPORTED.has(name) && !(name === "-coverpkg" && !/\b(all|std)\b/.test(value ?? ""))) {
      // -coverpkg instruments the standard library only when its patterns reach it (`all`, `std`).
      unsupported.add(value === null ? name : `${name}=${value}`);
    }
  }
  const envOut: string[] = [];
  for (const [name, value] of env) {
    if (name in ENV_REPRODUCED) {
      if (ENV_REPRODUCED[name]?.test(value) === true) envOut.push(`${name}=${value}`);
      else unsupported.add(`${name}=${value}`);
    } else if (ENV_UNSUPPORTED.has(name)) unsupported.add(`${name}=${value}`);
    // Another toolchain than the machine's (go.mod asks for a newer Go: src/runners/go-toolchain.ts):
    // the gate's layer is the machine's go's, and the setup's warm layer holds that toolchain's build.
    else if (name === "GOTOOLCHAIN" && value !== "local" && value !== "") unsupported.add(`${name}=${value}`);
  }
  return { args: [...args].sort(), env: envOut.sort(), unsupported: [...unsupported].sort() };
}
