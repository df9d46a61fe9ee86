import { canonicalJson, sha256Hex } from "../kernel/index.js";
import { overlayMounts } from "./overlays.js";
import { LOADER_LINK, LOADER_MODE, processIsolationArguments, READABLE_LOADER, type LinkerScript } from "./process-isolation.js";
import { DENIED_SYSCALLS } from "./seccomp.js";
import { DEFAULT_SCRATCH_BYTES, type RunRequest, type SandboxProfile } from "./types.js";

// The bwrap command line is the isolation. Its fixed part is listed here as data so that the
// profile digest covers it: a change of mounts or flags changes every digest, and evidence
// measured under the old isolation no longer matches a subject measured under the new one.

/** Bump when the runner's behaviour changes in a way the flag list below does not show. */
export const RUNNER_LAYOUT_VERSION = 2;

export const SANDBOX_UID = 65534;
export const SANDBOX_GID = 65534;
export const SANDBOX_HOME = "/tmp/home";
export const SANDBOX_WORKDIR = "/work";
export const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * Namespaces and privileges. We run as root, so dropping capabilities is what stops a remount of
 * /usr. --disable-userns stops nested user namespaces: no way back to a capability set inside.
 */
export const ISOLATION_FLAGS: readonly string[] = [
  "--unshare-all", "--unshare-user", "--disable-userns", "--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_GID),
  "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--clearenv",
];

/**
 * The system, read-only. /bin, /lib, ... are merged-/usr symlinks on the hosts we support. /proc too:
 * no process of the run opens another's `/proc/<pid>/mem` (or any /proc file) for writing.
 */
export const SYSTEM_MOUNTS: readonly string[] = [
  "--ro-bind", "/usr", "/usr",
  "--symlink", "usr/bin", "/bin",
  "--symlink", "usr/sbin", "/sbin",
  "--symlink", "usr/lib", "/lib",
  "--symlink", "usr/lib64", "/lib64",
  "--proc", "/proc",
  "--remount-ro", "/proc",
  "--dev", "/dev",
];

/**
 * The run's private scratch: `/tmp` (HOME and TMPDIR live in it) is a tmpfs of the profile's size,
 * new for every run, so no run can fill the host's disk through it or read what another run left.
 */
export function scratchMounts(profile: SandboxProfile): string[] {
  return ["--size", String(scratchBytesOf(profile)), "--tmpfs", "/tmp", "--dir", SANDBOX_HOME];
}

export function scratchBytesOf(profile: SandboxProfile): number {
  return profile.scratchBytes ?? DEFAULT_SCRATCH_BYTES;
}

/**
 * The tree at /work, writable, with the frozen paths bound read-only over it: the run can add files
 * next to a frozen test, but writing, deleting or renaming the frozen file itself fails (EROFS or
 * EBUSY). The runner has checked each is a regular file of the tree reached without a symlink.
 * Then the cached dependencies (treeOverlays), read-only, each where its setup created it (a cached
 * folder in a tmpfs of the run's own, sized as the scratch, so tools may add beside its entries).
 */
export function treeMounts(request: RunRequest, folderBytes: number): string[] {
  const args = ["--bind", request.workdir, SANDBOX_WORKDIR];
  for (const rel of request.readonlyPaths ?? []) args.push("--ro-bind", `${request.workdir}/${rel}`, `${SANDBOX_WORKDIR}/${rel}`);
  args.push(...overlayMounts(request, SANDBOX_WORKDIR, folderBytes));
  return args;
}

/** Read-only mounts of this run only (the canary): named by the request, not by the profile. */
export function extraMounts(request: RunRequest): string[] {
  return (request.extraMounts ?? []).flatMap((m) => ["--ro-bind", m.host, m.sandbox]);
}

/** Only the /etc files tools need; the rest of the host's /etc (shadow, machine secrets) stays out. */
export const ETC_FILES: readonly string[] = ["/etc/ld.so.cache", "/etc/alternatives", "/etc/ssl", "/etc/nsswitch.conf", "/etc/localtime"];
/**
 * Name resolution files: mounted only for a run that is allowed the network. /etc/hosts is not among
 * them: every run gets the generated one below, so `localhost` resolves with or without network.
 */
export const NETWORK_ETC_FILES: readonly string[] = ["/etc/resolv.conf", "/etc/host.conf", "/etc/gai.conf"];

/**
 * The /etc/hosts of every run: loopback only. Test runners bind and dial `localhost` (vitest's
 * workers, dev servers); without this file getaddrinfo fails with EAI_AGAIN in a run without network.
 */
export function generatedHosts(): string {
  return "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n";
}

/**
 * The policy's toolchain (`toolchain.path`): directories put before SANDBOX_PATH, in order. Each is
 * mounted read-only; an entry named `.../bin` (or `node_modules/.bin`) mounts the directory above it
 * (the toolchain's prefix), because what is there links into `../lib` (or `../<package>`). A prefix inside SANDBOX_WORKDIR
 * would be hidden by the tree mounted there, so it is shown at TOOLCHAIN_ROOT/<n>/<its name> instead.
 */
export const TOOLCHAIN_ROOT = "/opt/ranex/toolchain";

export interface ToolchainMount {
  host: string;
  sandbox: string;
  /** The PATH entry as the sandbox sees it. */
  entry: string;
}

export function toolchainMounts(profile: SandboxProfile): ToolchainMount[] {
  return (profile.toolchain ?? []).map((dir, index) => {
    const entry = dir.length > 1 ? dir.replace(/\/+$/, "") : dir;
    const host = /\/\.?bin$/.test(entry) && entry.split("/").length > 3 ? entry.replace(/\/\.?bin$/, "") : entry;
    const hidden = host === SANDBOX_WORKDIR || host.startsWith(`${SANDBOX_WORKDIR}/`);
    // Keeps the last name (`node_modules` must stay `node_modules` for Node to resolve through it).
    const sandbox = hidden ? `${TOOLCHAIN_ROOT}/${index}/${host.split("/").pop() ?? "root"}` : host;
    return { host, sandbox, entry: sandbox + entry.slice(host.length) };
  });
}

/** PATH inside the sandbox; `onHost` for the `none` backend, where nothing is remounted. */
export function toolchainPath(profile: SandboxProfile, onHost = false): string {
  return [...(onHost ? profile.toolchain ?? [] : toolchainMounts(profile).map((m) => m.entry)), SANDBOX_PATH].join(":");
}

/** `/etc/passwd` and `/etc/group` naming only the sandbox user, so tools that look the user up work. */
export function generatedAccounts(): { passwd: string; group: string } {
  return {
    passwd: `root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:${SANDBOX_UID}:${SANDBOX_GID}:ranex sandbox:${SANDBOX_HOME}:/bin/sh\n`,
    group: `root:x:0:\nsandbox:x:${SANDBOX_GID}:\n`,
  };
}

/** The fixed environment every run starts from; request.env is added on top (never replacing these). */
export function baseEnvironment(home: string, tmp: string): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: home, CI: "true", LANG: "C.UTF-8", TMPDIR: tmp };
}

/** Variables the request may not override: they are how the runner pins the environment. */
export const PINNED_ENV_NAMES: readonly string[] = ["PATH", "HOME", "CI", "LANG", "TMPDIR"];

export interface BwrapLayout {
  /** Host directory holding the generated passwd, group and hosts. */
  accountsDir: string;
  /** The host's dynamic loader, shown execute-only over itself (./process-isolation.ts); null leaves it readable. */
  loaderPath: string | null;
  /** glibc's linker scripts, rewritten to name the readable copy of the loader. */
  linkerScripts?: readonly LinkerScript[];
}

/** The full bwrap argument list (after `bwrap`), ending with the command to run. */
export function bwrapArguments(profile: SandboxProfile, request: RunRequest, layout: BwrapLayout, command: readonly string[]): string[] {
  const args: string[] = [...ISOLATION_FLAGS];
  if (request.network) args.push("--share-net");
  args.push(...SYSTEM_MOUNTS, ...scratchMounts(profile));
  for (const file of ETC_FILES) args.push("--ro-bind-try", file, file);
  if (request.network) for (const file of NETWORK_ETC_FILES) args.push("--ro-bind-try", file, file);
  args.push("--ro-bind", `${layout.accountsDir}/passwd`, "/etc/passwd", "--ro-bind", `${layout.accountsDir}/group`, "/etc/group");
  args.push("--ro-bind", `${layout.accountsDir}/hosts`, "/etc/hosts");
  for (const path of profile.readonly) args.push("--ro-bind", path, path);
  // /usr is already there, read-only; everything else of the toolchain is mounted read-only.
  for (const m of toolchainMounts(profile)) if (m.host !== "/usr" && !m.host.startsWith("/usr/")) args.push("--ro-bind", m.host, m.sandbox);
  for (const mount of profile.mounts ?? []) args.push("--ro-bind", mount.host, mount.sandbox);
  args.push(...extraMounts(request));
  args.push(...treeMounts(request, scratchBytesOf(profile)));
  if (request.outdir !== undefined) args.push("--bind", request.outdir, request.outdir);
  // Last of the mounts, so nothing mounted after it hides the execute-only loader; then the filter.
  args.push(...processIsolationArguments(layout.loaderPath, layout.linkerScripts));
  // The sandbox's own root (where /etc and the mount points live) becomes read-only once built.
  args.push("--remount-ro", "/", "--chdir", SANDBOX_WORKDIR);
  const env = { ...request.env, ...baseEnvironment(SANDBOX_HOME, "/tmp"), PATH: toolchainPath(profile) };
  for (const [name, value] of Object.entries(env)) args.push("--setenv", name, value);
  args.push("--", ...command);
  return args;
}

/** `sha256:<hex>` over the canonical profile and the runner's fixed isolation, so either changing changes it. */
export function profileDigest(profile: SandboxProfile): string {
  const document = {
    profile: {
      backend: profile.backend,
      readonly: [...profile.readonly],
      mounts: (profile.mounts ?? []).map((m) => ({ host: m.host, sandbox: m.sandbox })),
      // Only when set, so that digests of profiles without a toolchain stay what they were.
      ...(profile.toolchain !== undefined && profile.toolchain.length > 0 ? { toolchain: [...profile.toolchain] } : {}),
      memoryBytes: profile.memoryBytes,
      maxProcesses: profile.maxProcesses,
      outputLimitBytes: profile.outputLimitBytes,
      scratchBytes: scratchBytesOf(profile),
      // Only when the policy names it, so that digests of profiles without it stay what they were.
      ...(profile.treeBytes !== undefined ? { treeBytes: profile.treeBytes } : {}),
    },
    runner: {
      version: RUNNER_LAYOUT_VERSION,
      isolation: profile.backend === "bwrap" ? ISOLATION_FLAGS : [],
      mounts: profile.backend === "bwrap" ? SYSTEM_MOUNTS : [],
      etc: profile.backend === "bwrap" ? ETC_FILES : [],
      networkEtc: profile.backend === "bwrap" ? NETWORK_ETC_FILES : [],
      accounts: profile.backend === "bwrap" ? generatedAccounts() : null,
      hosts: profile.backend === "bwrap" ? generatedHosts() : null,
      path: SANDBOX_PATH,
      // Only under bwrap, as the flags above: what keeps the run's processes out of each other.
      ...(profile.backend === "bwrap" ? { seccompDenied: Object.keys(DENIED_SYSCALLS).sort(), loader: { path: LOADER_LINK, mode: LOADER_MODE, forLinkers: READABLE_LOADER } } : {}),
    },
  };
  return `sha256:${sha256Hex(canonicalJson(document))}`;
}
