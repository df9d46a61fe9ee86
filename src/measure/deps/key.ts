// The dependency key: what a setup's result depends on, so that one setup serves every run (base,
// head, checks, repeats, mutants) and every later PR with the same key. Computed in the parent from
// the base tree's listing (lock files are frozen, so the head has the same ones or fails diff.frozen).
import picomatch from "picomatch";
import { canonicalJson, sha256Hex } from "../../kernel/index.js";
import { dependencyKeyFiles } from "../../runners/index.js";

/** Files that decide what a setup installs, at any depth (vendored node_modules excluded). */
export const DEPENDENCY_FILES: readonly string[] = [...new Set([
  "**/package.json", "**/package-lock.json", "**/npm-shrinkwrap.json", "**/yarn.lock", "**/pnpm-lock.yaml", "**/.npmrc",
  "**/.yarnrc.yml", "**/bun.lockb", "**/bun.lock",
  "**/requirements*.txt", "**/constraints*.txt", "**/pyproject.toml", "**/poetry.lock", "**/Pipfile", "**/Pipfile.lock",
  "**/uv.lock", "**/setup.py", "**/setup.cfg",
  "**/go.mod", "**/go.sum", "**/Cargo.toml", "**/Cargo.lock", "**/Gemfile", "**/Gemfile.lock",
  // And what each runner of the registry keys its dependencies on (pom.xml, build.gradle, ...).
  ...dependencyKeyFiles(),
])];

const isDependencyFile = picomatch([...DEPENDENCY_FILES], { dot: true });
const isVendored = (path: string): boolean => path.split("/").includes("node_modules");

export interface DependencyKeyInput {
  /** The base tree's files (path and blob id). */
  files: readonly { path: string; blob: string }[];
  /** Extra globs from the policy (`tests.setup_inputs`) that the setup also reads. */
  inputs: readonly string[];
  setup: string;
  setupNetwork: boolean;
  /** The sandbox profile digest: another isolation, another install. */
  profile: string;
  /**
   * The repository the setup ran for. A setup can read files no key names (a vendored tarball, a
   * script), so two repositories with the same lock files never share one result.
   */
  repository?: string;
}

/** `sha256:<hex>` over the dependency files' blobs, the setup command, its network and the profile. */
export function dependencyKey(input: DependencyKeyInput): { key: string; files: string[] } {
  const extra = input.inputs.length > 0 ? picomatch([...input.inputs], { dot: true }) : () => false;
  const used = input.files
    .filter((f) => !isVendored(f.path) && (isDependencyFile(f.path) || extra(f.path)))
    .map((f) => [f.path, f.blob] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const document = {
    // Version 2: a setup's own build outputs are stored copy-on-write (./cache.ts, isInstalled), so
    // entries stored read-only by version 1 are not reused.
    files: used, setup: input.setup, network: input.setupNetwork, profile: input.profile, version: 2,
    ...(input.repository === undefined ? {} : { repository: input.repository }),
  };
  return { key: `sha256:${sha256Hex(canonicalJson(document))}`, files: used.map(([path]) => path) };
}
