// Shared by the Node runners: which one a package.json says the owner runs, its install command (by
// lock file), the checks worth proposing, and the note on packages it does not declare.
import type { Detection, PackageJson } from "../policy/detect.js";
import { expandedTest, preSteps, unsupportedRunner } from "./scripts.js";
import { DEBIAN_CA_STORE } from "./ca-store.js";
import { TAP_SCRIPTED } from "./tap-launch.js";
import type { Found, RepoView, RunnerName } from "./types.js";

/** The JUnit reporter package each Node runner needs, when its own output is not JUnit with files. */
export const REPORTER_PACKAGE: Partial<Record<RunnerName, string>> = { jest: "jest-junit", mocha: "mocha-junit-reporter" };

export const NODE_KEY_FILES = [
  "**/package.json", "**/package-lock.json", "**/npm-shrinkwrap.json", "**/yarn.lock", "**/pnpm-lock.yaml", "**/.npmrc",
  "**/.yarnrc.yml", "**/bun.lockb", "**/bun.lock",
] as const;

export function hasDep(pkg: PackageJson, name: string): boolean {
  return name in (pkg.dependencies ?? {}) || name in (pkg.devDependencies ?? {});
}

/** How each Node runner shows in a test script. */
export const SCRIPTED: [RegExp, RunnerName][] = [
  [/\bvitest\b/, "vitest"], [/\bjest\b/, "jest"], [/\bmocha\b/, "mocha"], [/\bnode\b[^&|;]*--test\b/, "node-test"],
  // The TAP runners (issue 22), read through the gate's launcher (src/runners/tap-launch.ts).
  [TAP_SCRIPTED.tape.pattern, "tape"], [TAP_SCRIPTED.ava.pattern, "ava"], [TAP_SCRIPTED.tap.pattern, "tap"],
];

const CONFIG_FILES: [RegExp, RunnerName][] = [
  [/^vitest\.config\.[cm]?[jt]s$/, "vitest"],
  [/^vitest\.workspace\.[cm]?[jt]s$/, "vitest"],
  [/^jest\.config\.(?:[cm]?[jt]s|json)$/, "jest"],
  [/^\.mocharc(?:\.(?:[cm]?js|json|jsonc|ya?ml))?$/, "mocha"],
];

/** The one Node runner package.json points at, and why; null when it points at none. */
export function nodeRunnerOf(pkg: PackageJson, files: ReadonlySet<string>): { kind: RunnerName; evidence: string } | null {
  // `npm test` as npm runs it: `npm run X` indirection followed (issue 22).
  const test = expandedTest(pkg);
  const via = test === (pkg.scripts?.test ?? "") ? "" : ` (through ${pkg.scripts?.test ?? ""})`;
  // The test script says what the owner runs: it wins over configs and dependencies.
  for (const [pattern, kind] of SCRIPTED) if (pattern.test(test)) return { kind, evidence: `package.json scripts.test runs ${kind === "node-test" ? "node --test" : kind}${via}` };
  // A runner the gate cannot read yet: no guess; detection says so (src/policy/detect.ts).
  if (unsupportedRunner(test, "") !== null) return null;
  for (const [pattern, kind] of CONFIG_FILES) {
    const file = [...files].find((f) => pattern.test(f));
    if (file !== undefined) return { kind, evidence: `${file} configures ${kind}` };
  }
  if (pkg.jest !== undefined) return { kind: "jest", evidence: "package.json has a jest section" };
  if (pkg.mocha !== undefined) return { kind: "mocha", evidence: "package.json has a mocha section" };
  for (const kind of ["vitest", "jest", "mocha", "ava", "tape", "tap"] as const) if (hasDep(pkg, kind)) return { kind, evidence: `package.json depends on ${kind}` };
  if (test !== "" && !/no test specified/.test(test)) {
    return { kind: "node-test", evidence: `package.json scripts.test is '${test}', not a runner this knows; node --test is a guess` };
  }
  return null;
}

/**
 * Packages whose install scripts download a browser or a binary from a host that is no package
 * registry, which setup cannot reach: the whole install failed (puppeteer, found on
 * yargs/yargs-parser, whose mocha suite never starts a browser). Each one's own switch skips it.
 */
const DOWNLOAD_SKIPS: readonly [string, string][] = [
  ["puppeteer", "PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1"],
  ["playwright", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1"],
  ["@playwright/test", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1"],
  ["cypress", "CYPRESS_INSTALL_BINARY=0"],
  ["electron", "ELECTRON_SKIP_BINARY_DOWNLOAD=1"],
  ["chromedriver", "CHROMEDRIVER_SKIP_DOWNLOAD=true"],
];

/** The text of the files that decide the install command: the pnpm or yarn lock, yarn's own settings. */
interface LockTexts { pnpmLock: string | null; yarnLock: string | null; yarnrc: string | null }

function installCommand(pkg: PackageJson, files: ReadonlySet<string>, locks: LockTexts): string | null {
  const skips = [...new Set(DOWNLOAD_SKIPS.filter(([name]) => hasDep(pkg, name)).map(([, env]) => env))];
  const install = bareInstall(pkg, files, locks);
  return install === null || skips.length === 0 ? install : `${skips.join(" ")} ${install}`;
}

/**
 * The pnpm a pnpm-lock.yaml asks for: package.json's `packageManager` (corepack's field) when it names
 * pnpm, else the release line that writes the lock's `lockfileVersion` (9.0: pnpm 9 and 10 alike,
 * and pnpm 9 still runs dependencies' install scripts, which pnpm 10 blocks unless allowed).
 */
export function pnpmSpec(pkg: PackageJson, pnpmLock: string | null): string {
  const manager = typeof pkg.packageManager === "string" ? /^pnpm@(\d+\.\d+\.\d+[\w.-]*)/.exec(pkg.packageManager) : null;
  if (manager !== null) return `pnpm@${manager[1]}`;
  const lockVersion = /^lockfileVersion:\s*['"]?(\d+)/m.exec(pnpmLock ?? "")?.[1];
  const line: Record<string, string> = { "9": "9", "6": "8", "5": "7" };
  return lockVersion !== undefined && line[lockVersion] !== undefined ? `pnpm@${line[lockVersion]}` : "pnpm";
}

/**
 * yarn the way a yarn.lock asks for it, through npx like pnpm (the machine has no yarn). Classic
 * (`# yarn lockfile v1`): yarn 1 from the npm registry, `--frozen-lockfile`, and `--ignore-engines`:
 * yarn 1 alone refuses a package whose `engines` exclude the machine's Node, where npm and pnpm warn
 * (immerjs/immer: semantic-release 25 wants Node 22, a release tool no test loads; the tests run on
 * the machine's Node whatever the install says). Berry (a lock with `__metadata`): the release the
 * repository commits (`.yarnrc.yml`'s `yarnPath`), else the version `packageManager` names, from
 * `@yarnpkg/cli-dist`, `--immutable`; see `berryEnv` for what it is given.
 */
export function yarnInstall(pkg: PackageJson, files: ReadonlySet<string>, yarnLock: string | null, yarnrc: string | null): string {
  const manager = typeof pkg.packageManager === "string" ? /^yarn@(\d+)\.(\d+\.\d+[\w.-]*)/.exec(pkg.packageManager) : null;
  const berry = /^__metadata:/m.test(yarnLock ?? "") || (manager !== null && Number(manager[1]) >= 2);
  if (!berry) return `npx --yes yarn@${manager !== null ? `${manager[1]}.${manager[2]}` : "1"} install --frozen-lockfile --ignore-engines`;
  const env = berryEnv(yarnrc);
  const committed = yarnPathOf(yarnrc);
  if (committed !== undefined && files.has(committed)) return `${env} node ${committed} install --immutable`;
  return `${env} npx --yes -p @yarnpkg/cli-dist${manager !== null ? `@${manager[1]}.${manager[2]}` : ""} yarn install --immutable`;
}

/** The yarn release `.yarnrc.yml`'s yarnPath names, relative to the tree. */
function yarnPathOf(yarnrc: string | null): string | undefined {
  return /^yarnPath:\s*["']?([^"'\s#]+)/m.exec(yarnrc ?? "")?.[1]?.replace(/^\.\//, "");
}

/** Whether `.yarnrc.yml` leaves berry on Plug'n'Play (its default `nodeLinker`): no node_modules at all. */
export function berryPnp(yarnrc: string | null): boolean {
  const linker = /^nodeLinker:\s*["']?([\w-]+)/m.exec(yarnrc ?? "")?.[1];
  return linker === undefined || linker === "pnp";
}

/**
 * What berry's install is given. The machine's CA store (`NODE_EXTRA_CA_CERTS`): berry reads no
 * npmrc, so behind a registry proxy that re-signs TLS, where npm and yarn 1 trust the store through
 * npm's `cafile`, berry alone failed "self-signed certificate in certificate chain" (reduxjs/reselect).
 * And Plug'n'Play is installed as node_modules (`YARN_NODE_LINKER`, which wins over `.yarnrc.yml`):
 * the gate's launchers, preloads and canaries find the runner and its packages in node_modules, and
 * a PnP install has none (the same packages, from the same lock).
 */
export function berryEnv(yarnrc: string | null): string {
  return [`NODE_EXTRA_CA_CERTS=${DEBIAN_CA_STORE}`, ...(berryPnp(yarnrc) ? ["YARN_NODE_LINKER=node-modules"] : [])].join(" ");
}

function bareInstall(pkg: PackageJson, files: ReadonlySet<string>, locks: LockTexts): string | null {
  // pnpm through npx, from the npm registry setup reaches: a machine (and its sandbox) seldom has pnpm
  // on its PATH, and corepack fetches from elsewhere. Not `--offline`: setup is the step that downloads
  // (unjs/ufo: "pnpm: not found", and an empty store offline would have failed the same).
  if (files.has("pnpm-lock.yaml")) return `npx --yes ${pnpmSpec(pkg, locks.pnpmLock)} install --frozen-lockfile`;
  if (files.has("yarn.lock")) return yarnInstall(pkg, files, locks.yarnLock, locks.yarnrc);
  // No audit or funding calls: they reach the network for nothing the judgment needs.
  if (files.has("package-lock.json") || files.has("npm-shrinkwrap.json")) return "npm ci --no-audit --no-fund";
  const declared = Object.keys(pkg.dependencies ?? {}).length + Object.keys(pkg.devDependencies ?? {}).length;
  return declared > 0 ? "npm install --no-audit --no-fund" : null;
}

function nodeChecks(pkg: PackageJson, files: ReadonlySet<string>): { name: string; run: string }[] {
  const checks: { name: string; run: string }[] = [];
  if (pkg.scripts?.typecheck !== undefined) checks.push({ name: "typecheck", run: "npm run typecheck" });
  else if (files.has("tsconfig.json")) checks.push({ name: "typecheck", run: "npx --no-install tsc --noEmit" });
  if (pkg.scripts?.lint !== undefined) checks.push({ name: "lint", run: "npm run lint" });
  return checks;
}

async function lockTexts(repo: RepoView): Promise<LockTexts> {
  const read = async (path: string): Promise<string | null> => (repo.files.has(path) ? await repo.readText(path) : null);
  return { pnpmLock: await read("pnpm-lock.yaml"), yarnLock: await read("yarn.lock"), yarnrc: await read(".yarnrc.yml") };
}

/** The install command, and the note a Plug'n'Play repository gets (berry installs node_modules for the gate instead). */
async function installOf(repo: RepoView, pkg: PackageJson): Promise<Pick<Detection, "install" | "installNote" | "scratch">> {
  const locks = await lockTexts(repo);
  // `files` holds top-level names only: the release `.yarnrc.yml`'s yarnPath names is added when the
  // tree has it (before, it never was, and berry always came through npx: reduxjs/reselect).
  const release = yarnPathOf(locks.yarnrc);
  const files = release !== undefined && (await repo.committed?.(release)) === true ? new Set([...repo.files, release]) : repo.files;
  const install = installCommand(pkg, files, locks);
  const pnp = install !== null && /\bYARN_NODE_LINKER=node-modules\b/.test(install) && berryPnp(locks.yarnrc);
  const yarn1 = install !== null && /\byarn@1\b/.test(install);
  return {
    install,
    ...(pnp ? { installNote: "yarn Plug'n'Play (no nodeLinker in .yarnrc.yml) is installed as node_modules (YARN_NODE_LINKER): the lock's packages, found as Node finds them, where PnP would refuse a package the manifest does not declare" } : {}),
    ...(yarn1 ? { scratch: YARN1_SCRATCH } : {}),
  };
}

/**
 * yarn 1 keeps every package unpacked in its cache under HOME, in the run's scratch, besides the copy
 * in node_modules, and every platform's optional packages with them (esbuild's, rollup's): on
 * immerjs/immer the cache took 1.6 GB for 445 MB of node_modules and filled the default 512 MiB
 * ("ENOSPC", which yarn reported as "trouble with your network connection"). A tmpfs limit, not a
 * reservation: a run that writes little costs no more.
 */
const YARN1_SCRATCH = { mb: 3072, why: "yarn 1 keeps every package unpacked in its cache in the scratch (HOME), besides node_modules: 1.6 GB for immer's" };

/** What runner `name` finds in the repository: something only when package.json points at it. */
export async function detectNode(repo: RepoView, name: RunnerName): Promise<Found | null> {
  if (repo.pkg === null) return null;
  const node = nodeRunnerOf(repo.pkg, repo.files);
  if (node === null || node.kind !== name) return null;
  const reporter = REPORTER_PACKAGE[name];
  const pattern = SCRIPTED.find(([, kind]) => kind === name)?.[0];
  const before = pattern === undefined ? [] : preSteps(repo.pkg, pattern);
  return {
    ...(before.length === 0 ? {} : { preSteps: before }),
    testScript: expandedTest(repo.pkg),
    evidence: node.evidence,
    ...await installOf(repo, repo.pkg),
    runnerDeclared: name === "node-test" || hasDep(repo.pkg, name),
    ...(declaredRange(repo.pkg, name) === undefined ? {} : { runnerRange: declaredRange(repo.pkg, name) }),
    reporterDeclared: reporter === undefined || hasDep(repo.pkg, reporter),
    checks: nodeChecks(repo.pkg, repo.files),
  };
}

function declaredRange(pkg: PackageJson, name: string): string | undefined {
  return pkg.devDependencies?.[name] ?? pkg.dependencies?.[name];
}

/**
 * Whether every version a declared range allows is at least `major.minor`: `^4.0.2`, `~3.2.0`,
 * `>=3.1`, `4` yes; `^3.0.0`, `*`, `latest`, a URL or a workspace link no (unknown is never enough).
 */
export function rangeAtLeast(range: string | undefined, major: number, minor: number): boolean {
  const floor = /^\s*(?:\^|~|>=|=)?\s*v?(\d+)(?:\.(\d+|x|\*))?/.exec(range ?? "");
  if (floor === null || /\|\||\s-\s|</.test(range ?? "")) return false;
  const [floorMajor, floorMinor] = [Number(floor[1]), /^\d+$/.test(floor[2] ?? "") ? Number(floor[2]) : 0];
  return floorMajor > major || (floorMajor === major && floorMinor >= minor);
}

/** The packages the runner needs that package.json does not declare (what `--add-deps` installs). */
export function missingNodePackages(found: Detection): string[] {
  const missing: string[] = [];
  if (!found.runnerDeclared && found.kind !== "node-test") missing.push(found.kind);
  const reporter = REPORTER_PACKAGE[found.kind as RunnerName];
  if (!found.reporterDeclared && reporter !== undefined) missing.push(reporter);
  return missing;
}

/** The note the starter carries when package.json lacks what the runner needs. */
export function missingNote(found: Detection): string[] {
  const missing = missingNodePackages(found);
  return missing.length === 0 ? [] : [
    `package.json does not declare ${missing.join(" or ")}: add ${missing.length === 1 ? "it" : "them"} (npm install --save-dev ${missing.join(" ")},`,
    "or `ranex init --add-deps`), or name a node_modules/.bin that has them in toolchain.path below.",
  ];
}

/** A Node runner's binary: the tree's own after setup installs it, else the toolchain's on PATH. */
export function nodeBin(found: Detection, name: string): string {
  return found.runnerDeclared && found.install !== null ? `node_modules/.bin/${name}` : name;
}

/** The name in the test file whose title the repeat note gives, shared by runners that cannot select. */
export const WHOLE_SUITE_NOTE = "This runner repeats the whole suite unless `select` names how to run only some tests (docs/policy.md).";
