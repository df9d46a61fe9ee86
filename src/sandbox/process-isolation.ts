// Keeps the processes of one run out of each other (issue 19). They are one user in one set of
// namespaces, so by default the kernel lets any of them attach to another, rewrite its memory
// (`/proc/<pid>/mem`, process_vm_writev), read its environment, or reopen its pipes through
// `/proc/<pid>/fd`: a test in Surefire's fork could rewrite what Maven reports. Three layers:
//  - the seccomp filter (./seccomp.ts) denies ptrace, process_vm_readv/writev, pidfd_getfd, kcmp;
//  - /proc is read-only, so no `/proc/<pid>/mem` (or any other /proc file) opens for writing;
//  - the dynamic loader is execute-only inside the sandbox. The kernel still maps it (it reads an
//    interpreter itself), but a process whose program or interpreter its user cannot read is made
//    non-dumpable at exec, and the kernel lets no process without CAP_SYS_PTRACE reach a
//    non-dumpable one: its `/proc/<pid>/environ`, `mem`, `maps` and `fd/*` links are refused. So
//    every dynamically linked process of the run (sh, python, node, java, cargo) is shut to the
//    others, and each still reads its own `/proc/self`. Linkers read the loader too (libc.so's
//    linker script names it): the script is shown rewritten to a readable copy elsewhere, which no
//    program names as its interpreter.
import { closeSync, existsSync, openSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { seccompProgram } from "./seccomp.js";

/** The fds bwrap reads them from: 3 is its status pipe (launch.ts), these follow it. */
export const SECCOMP_FD = 4;
export const LOADER_FD = 5;
/** The x86_64 loader every dynamically linked program names as its interpreter. */
export const LOADER_LINK = "/lib64/ld-linux-x86-64.so.2";
/** Execute only: the kernel maps it, nobody in the run can read it, so none of them stays dumpable. */
export const LOADER_MODE = "0111";

/** The loader, readable, for linkers (`cc`, rust-lld, cgo) only: no program names it as its interpreter. */
export const READABLE_LOADER = "/opt/ranex/loader/ld-linux-x86-64.so.2";
/** glibc's linker scripts that may name the loader (`AS_NEEDED ( /lib64/ld-linux-x86-64.so.2 )`). */
export const LINKER_SCRIPTS: readonly string[] = ["/usr/lib/x86_64-linux-gnu/libc.so", "/usr/lib64/libc.so", "/usr/lib/libc.so"];

export interface LinkerScript {
  /** Where the script is, in the sandbox as on the host. */
  path: string;
  /** The rewritten copy on the host, in the run's scratch folder. */
  copy: string;
}

/**
 * The bwrap arguments (after the system mounts) that need the fds below. A null loader leaves it
 * readable (SandboxOptions.readableLoader: valgrind loads programs itself); the filter is always on.
 */
export function processIsolationArguments(loaderPath: string | null, scripts: readonly LinkerScript[] = []): string[] {
  if (loaderPath === null) return ["--seccomp", String(SECCOMP_FD)];
  const args = ["--perms", LOADER_MODE, "--ro-bind-data", String(LOADER_FD), loaderPath, "--ro-bind", loaderPath, READABLE_LOADER];
  for (const script of scripts) args.push("--ro-bind", script.copy, script.path);
  return [...args, "--seccomp", String(SECCOMP_FD)];
}

/** Each linker script naming the loader, rewritten to READABLE_LOADER into `scratch`. */
function rewriteLinkerScripts(scratch: string): LinkerScript[] {
  const scripts: LinkerScript[] = [];
  for (const path of LINKER_SCRIPTS) {
    if (!existsSync(path) || realpathSync(path) !== path || !statSync(path).isFile() || statSync(path).size > 64 * 1024) continue;
    const text = readFileSync(path, "latin1");
    if (!/^[\t\n\r\x20-\x7e]*$/.test(text)) continue; // a shared object, not a script
    const rewritten = text.replace(/\S*\/ld-linux-x86-64\.so\.2/g, READABLE_LOADER);
    if (rewritten === text) continue;
    const copy = join(scratch, `linker-script-${scripts.length}`);
    writeFileSync(copy, rewritten, "latin1");
    scripts.push({ path, copy });
  }
  return scripts;
}

/** Where the loader really is on this host; the sandbox shows the same /usr, so the same path there. */
export function hostLoader(): string {
  if (!existsSync(LOADER_LINK)) throw new Error(`the dynamic loader ${LOADER_LINK} is not on this machine`);
  const real = realpathSync(LOADER_LINK);
  if (!real.startsWith("/usr/")) throw new Error(`the dynamic loader ${LOADER_LINK} is ${real}, outside /usr (the sandbox supports merged-/usr hosts only)`);
  return real;
}

export interface ProcessIsolation {
  /** Null when the loader stays readable. */
  loaderPath: string | null;
  linkerScripts: LinkerScript[];
  /** Open fds, in order SECCOMP_FD, LOADER_FD (when shown execute-only): hand them to bwrap and close them after the start. */
  fds: number[];
  close(): void;
}

/**
 * Opens what bwrap reads: the compiled filter (written into the run's scratch folder) and the host's
 * loader. Throws with a reason a person can act on; the run then fails to start instead of running
 * unfiltered.
 */
export function openProcessIsolation(scratch: string, options: { readableLoader?: boolean } = {}): ProcessIsolation {
  const loaderPath = options.readableLoader === true ? null : hostLoader();
  const linkerScripts = loaderPath === null ? [] : rewriteLinkerScripts(scratch);
  const filterFile = join(scratch, "seccomp.bpf");
  writeFileSync(filterFile, seccompProgram());
  const fds: number[] = [];
  try {
    fds.push(openSync(filterFile, "r"));
    if (loaderPath !== null) fds.push(openSync(loaderPath, "r"));
  } catch (err) {
    for (const fd of fds) closeSync(fd);
    throw err;
  }
  let closed = false;
  return {
    loaderPath, linkerScripts, fds,
    close() {
      if (closed) return;
      closed = true;
      for (const fd of fds) closeSync(fd);
    },
  };
}
