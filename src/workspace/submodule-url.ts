// Where a submodule may be fetched from (issue 22). A `.gitmodules` URL is text from the judged
// tree, so a pull request can write any: `ext::sh -c …` (a remote helper that runs a command),
// `--upload-pack=…` (an option), `file:///srv/another-customer.git` (another repository on the
// gate's disk), an internal host. The trusted process fetches only what the operator allows:
// https on named hosts, local paths only when `file` is on (tests, a local `ranex judge`). Pure: no
// I/O, so every refusal is a unit-tested line a person can read.

export interface SubmoduleAccess {
  /** Hosts (lower case, `host` or `host:port`) whose https URLs may be fetched. */
  hosts: readonly string[];
  /** Local paths and file:// URLs: they read this machine's disk, so off unless the operator says. */
  file: boolean;
  /** How many levels are followed: 1 is the tree's own submodules, 2 their submodules too. */
  depth: number;
  /** How long one submodule's download may take (RANEX_SUBMODULE_FETCH_SECONDS); DEFAULT_SUBMODULE_FETCH_SECONDS when absent. */
  fetchSeconds?: number;
}

export const DEFAULT_SUBMODULE_DEPTH = 3;
export const DEFAULT_SUBMODULE_FETCH_SECONDS = 300;
const MAX_SUBMODULE_DEPTH = 10;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The operator's choice, from the environment: `RANEX_SUBMODULE_HOSTS` (comma separated; default
 * github.com and `GHE_HOST`; `none` for no host), `RANEX_SUBMODULE_FILE=1`, `RANEX_SUBMODULE_DEPTH`.
 */
export function submoduleAccess(env: Env): SubmoduleAccess {
  const listed = env.RANEX_SUBMODULE_HOSTS;
  const defaults = ["github.com", ...(env.GHE_HOST ? [hostOnly(env.GHE_HOST)] : [])];
  const hosts = listed === undefined || listed.trim() === "" ? defaults
    : listed.trim().toLowerCase() === "none" ? [] : listed.split(/[,\s]+/).filter((h) => h !== "").map(hostOnly);
  const depth = Number(env.RANEX_SUBMODULE_DEPTH ?? DEFAULT_SUBMODULE_DEPTH);
  const fetchSeconds = Number(env.RANEX_SUBMODULE_FETCH_SECONDS ?? DEFAULT_SUBMODULE_FETCH_SECONDS);
  return {
    hosts: [...new Set(hosts)],
    file: env.RANEX_SUBMODULE_FILE === "1",
    depth: Number.isInteger(depth) && depth >= 0 ? Math.min(depth, MAX_SUBMODULE_DEPTH) : DEFAULT_SUBMODULE_DEPTH,
    ...(Number.isFinite(fetchSeconds) && fetchSeconds > 0 && fetchSeconds !== DEFAULT_SUBMODULE_FETCH_SECONDS ? { fetchSeconds } : {}),
  };
}

function hostOnly(text: string): string {
  return text.trim().toLowerCase().replace(/^[a-z]+:\/\//, "").replace(/\/.*$/, "");
}

export type ResolvedUrl =
  | { ok: true; location: string; kind: "https" | "file" }
  | { ok: false; why: string };

const REMOTE_HELPER = /^[A-Za-z][A-Za-z0-9+.-]*::/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
const SCP_LIKE = /^(?:[^@/\s]+@)?([^@/\s:]+):(?!\/\/)(.*)$/;
const HOST_NAME = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::\d{1,5})?$/;

/**
 * The location git may fetch a submodule from, or why not. `parent` is where the superproject
 * itself came from (its URL, or its local path): a relative URL (`../other.git`) is resolved
 * against it as git does. ssh URLs on an allowed host are fetched over https (the gate holds no
 * ssh key, and the gitlink's sha pins the content whatever the transport).
 */
export function resolveSubmoduleUrl(raw: string, parent: string, access: SubmoduleAccess): ResolvedUrl {
  const url = raw.trim();
  if (url === "") return refuse("it has no URL in .gitmodules");
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(url)) return refuse("its URL contains a control character");
  if (url.startsWith("-")) return refuse("its URL starts with '-', which git would read as an option");
  if (REMOTE_HELPER.test(url)) return refuse(`its URL names a remote helper (${url.slice(0, url.indexOf("::") + 2)}), which runs a command instead of fetching`);
  if (url.startsWith("./") || url.startsWith("../")) {
    const joined = joinRelative(parent.trim(), url);
    if (joined === null) return refuse(`its relative URL climbs above ${parent}`);
    return resolveSubmoduleUrl(joined, parent, access);
  }
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === "https" || scheme === "ssh" || scheme === "git+ssh" || scheme === "ssh+git") {
    let parsed: URL;
    try {
      parsed = new URL(scheme === "https" ? url : url.replace(SCHEME, "ssh://"));
    } catch {
      return refuse("its URL cannot be parsed");
    }
    if (scheme === "https" && (parsed.username !== "" || parsed.password !== "")) return refuse("its URL carries credentials");
    // The ssh user (git@) names an account on the host, not a credential of ours: dropped.
    const host = parsed.host.toLowerCase();
    return httpsOn(host, parsed.pathname + parsed.search, access);
  }
  if (scheme === "file") {
    if (!access.file) return refuse("file URLs read this machine's disk and the operator has not allowed them (RANEX_SUBMODULE_FILE=1)");
    let path: string;
    try {
      path = decodeURIComponent(new URL(url).pathname);
    } catch {
      return refuse("its URL cannot be parsed");
    }
    return localPath(path, access);
  }
  if (scheme !== undefined) return refuse(`the ${scheme}:// transport is not allowed (only https${access.file ? " and file" : ""})`);
  if (url.startsWith("/")) return localPath(url, access);
  const scp = SCP_LIKE.exec(url);
  if (scp !== null) {
    const path = scp[2] ?? "";
    return httpsOn((scp[1] ?? "").toLowerCase(), path.startsWith("/") ? path : `/${path}`, access);
  }
  return refuse("its URL is neither absolute nor relative to the repository (./ or ../)");
}

function refuse(why: string): ResolvedUrl {
  return { ok: false, why };
}

function httpsOn(host: string, path: string, access: SubmoduleAccess): ResolvedUrl {
  if (!HOST_NAME.test(host)) return refuse(`its host ${JSON.stringify(host)} is not a host name`);
  if (!access.hosts.includes(host)) {
    const allowed = access.hosts.length === 0 ? "no host is allowed" : `allowed: ${access.hosts.join(", ")}`;
    return refuse(`its host ${host} is not one the operator allows (${allowed}; RANEX_SUBMODULE_HOSTS)`);
  }
  if (path === "/" || path === "") return refuse("its URL names no repository");
  return { ok: true, location: `https://${host}${path}`, kind: "https" };
}

function localPath(path: string, access: SubmoduleAccess): ResolvedUrl {
  if (!access.file) return refuse("it is a path on this machine and the operator has not allowed local submodules (RANEX_SUBMODULE_FILE=1)");
  if (!path.startsWith("/")) return refuse("its local path is not absolute");
  if (path.split("/").some((part) => part === "." || part === "..")) return refuse("its local path has a '.' or '..' component");
  return { ok: true, location: path, kind: "file" };
}

/** `./x` and `../x` against the parent, as git resolves them: the parent's last component is its name. */
function joinRelative(parent: string, relative: string): string | null {
  const scheme = SCHEME.exec(parent)?.[0] ?? "";
  let rest = parent.slice(scheme.length).replace(/\/+$/, "");
  let rel = relative;
  for (;;) {
    if (rel.startsWith("./")) {
      rel = rel.slice(2);
    } else if (rel.startsWith("../")) {
      const parts = rest.split("/");
      // A URL's first component is its host, a path's the root: neither is climbed over.
      if (parts.length <= 1) return null;
      rest = parts.slice(0, -1).join("/");
      rel = rel.slice(3);
    } else {
      break;
    }
  }
  if (rel === "" || rel.split("/").includes("..")) return null;
  return `${scheme}${rest}/${rel}`;
}

/** May the parent's fetch credentials (the App's installation token) go along: the same host and owner. */
export function sameOwner(location: string, parent: string): boolean {
  const a = ownerOf(location);
  const b = ownerOf(parent);
  return a !== null && b !== null && a === b;
}

function ownerOf(url: string): string | null {
  if (!url.startsWith("https://")) return null;
  try {
    const parsed = new URL(url);
    const owner = parsed.pathname.split("/")[1] ?? "";
    return owner === "" ? null : `${parsed.host.toLowerCase()}/${owner.toLowerCase()}`;
  } catch {
    return null;
  }
}
