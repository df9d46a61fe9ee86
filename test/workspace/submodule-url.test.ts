import { describe, expect, it } from "vitest";
import { resolveSubmoduleUrl, sameOwner, submoduleAccess, type SubmoduleAccess } from "../../src/workspace/submodule-url.js";

const app: SubmoduleAccess = { hosts: ["github.com"], file: false, depth: 3 };
const local: SubmoduleAccess = { hosts: [], file: true, depth: 3 };
const parent = "https://github.com/python-poetry/tomlkit.git";

function location(raw: string, from = parent, access = app): string {
  const r = resolveSubmoduleUrl(raw, from, access);
  if (!r.ok) throw new Error(r.why);
  return r.location;
}

function refused(raw: string, from = parent, access = app): string {
  const r = resolveSubmoduleUrl(raw, from, access);
  if (r.ok) throw new Error(`${raw} was allowed: ${r.location}`);
  return r.why;
}

describe("where a submodule may be fetched from", () => {
  it("takes an https URL on an allowed host, and a relative one against the repository's own URL", () => {
    expect(location("https://github.com/toml-lang/toml-test.git")).toBe("https://github.com/toml-lang/toml-test.git");
    expect(location("../toml-test.git")).toBe("https://github.com/python-poetry/toml-test.git");
    expect(location("../../toml-lang/toml-test")).toBe("https://github.com/toml-lang/toml-test");
    expect(location("./sub")).toBe("https://github.com/python-poetry/tomlkit.git/sub");
  });

  it("fetches ssh and scp-like URLs on an allowed host over https (the gate holds no ssh key)", () => {
    expect(location("git@github.com:toml-lang/toml-test.git")).toBe("https://github.com/toml-lang/toml-test.git");
    expect(location("ssh://git@github.com/toml-lang/toml-test.git")).toBe("https://github.com/toml-lang/toml-test.git");
  });

  it("refuses what would run a command or be read as an option", () => {
    expect(refused("ext::sh -c touch% /tmp/pwned")).toContain("remote helper (ext::)");
    expect(refused("fd::17")).toContain("remote helper");
    expect(refused("--upload-pack=touch /tmp/pwned")).toContain("starts with '-'");
    expect(refused("-oProxyCommand=touch /tmp/pwned")).toContain("starts with '-'");
    expect(refused("https://github.com/a/b\n[core]")).toContain("control character");
  });

  it("refuses hosts and transports the operator did not allow", () => {
    expect(refused("https://gitlab.com/a/b.git")).toMatch(/host gitlab.com is not one the operator allows \(allowed: github.com; RANEX_SUBMODULE_HOSTS\)/);
    expect(refused("http://github.com/a/b.git")).toContain("http:// transport is not allowed");
    expect(refused("git://github.com/a/b.git")).toContain("git:// transport is not allowed");
    expect(refused("https://user:secret@github.com/a/b.git")).toContain("carries credentials");
    expect(refused("git@169.254.169.254:a/b")).toContain("not one the operator allows");
    expect(refused("https://github.com/")).toContain("names no repository");
    expect(refused("sub/dir")).toContain("neither absolute nor relative");
    expect(refused("../../../x")).toContain("climbs above");
  });

  it("reads this machine's disk only when the operator allows it", () => {
    expect(refused("file:///srv/other-customer.git")).toContain("RANEX_SUBMODULE_FILE=1");
    expect(refused("/srv/other-customer.git")).toContain("RANEX_SUBMODULE_FILE=1");
    expect(refused("../other", "/srv/repos/app")).toContain("RANEX_SUBMODULE_FILE=1");
    expect(location("../app-modules/data", "/srv/repos/app", local)).toBe("/srv/repos/app-modules/data");
    expect(location("file:///srv/repos/data", "/srv/repos/app", local)).toBe("/srv/repos/data");
    expect(refused("/srv/repos/../../etc", "/srv/repos/app", local)).toContain("'.' or '..' component");
    expect(refused("https://github.com/a/b", "/srv/repos/app", local)).toContain("no host is allowed");
  });

  it("gives the App's credentials only to the same host and owner", () => {
    expect(sameOwner("https://github.com/python-poetry/toml-test.git", parent)).toBe(true);
    expect(sameOwner("https://github.com/toml-lang/toml-test.git", parent)).toBe(false);
    expect(sameOwner("https://github.example.com/python-poetry/x", parent)).toBe(false);
    expect(sameOwner("/srv/x", "/srv/y")).toBe(false);
  });

  it("reads the operator's choice from the environment", () => {
    expect(submoduleAccess({})).toEqual({ hosts: ["github.com"], file: false, depth: 3 });
    expect(submoduleAccess({ GHE_HOST: "https://ghe.example.com/" })).toMatchObject({ hosts: ["github.com", "ghe.example.com"] });
    expect(submoduleAccess({ RANEX_SUBMODULE_HOSTS: "github.com, GitLab.com", RANEX_SUBMODULE_FILE: "1", RANEX_SUBMODULE_DEPTH: "1" }))
      .toEqual({ hosts: ["github.com", "gitlab.com"], file: true, depth: 1 });
    expect(submoduleAccess({ RANEX_SUBMODULE_HOSTS: "none", RANEX_SUBMODULE_DEPTH: "x" })).toEqual({ hosts: [], file: false, depth: 3 });
    expect(submoduleAccess({ RANEX_SUBMODULE_FETCH_SECONDS: "20" })).toEqual({ hosts: ["github.com"], file: false, depth: 3, fetchSeconds: 20 });
    expect(submoduleAccess({ RANEX_SUBMODULE_FETCH_SECONDS: "-1" })).toEqual({ hosts: ["github.com"], file: false, depth: 3 });
  });
});
