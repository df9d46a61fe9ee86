// The default frozen set: what is harness by nature, whatever the policy says (issues 2, 19, 22).
// The principle, not a list of attacks: a file that decides which code runs the tests (the runner,
// its configuration and plugins, the build that compiles them, the dependencies they link against)
// or what the tests compare with (golden files, snapshots, mocks) decides the verdict as much as the
// tests do, so a pull request may not change it unless the policy releases it by exact path
// (`unfreeze`). Matched at any depth.
import { shown } from "./context.js";

// The test harness of common runners: a runner loads these before any test, so whoever edits or
// adds one can rewrite the results.
const HARNESS_FILES = [
  // Python: pytest and tox configuration, interpreter start-up hooks.
  "conftest.py", "pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini", "noxfile.py", "setup.cfg", "pyproject.toml",
  "sitecustomize.py", "usercustomize.py", "*.pth",
  // Node: manifest, install-time configuration and hooks, runner configuration.
  "package.json",
  "vitest.config.*", "vitest.workspace.*", "vite.config.*", "jest.config.*", ".mocharc*", "babel.config.*", ".babelrc*",
  "ava.config.*", ".taprc",
  // Setup files the runners load before every test file: jest's and vitest's by convention,
  // create-react-app's `src/setupTests.*` without any configuration.
  "jest.setup.*", "jest-setup.*", "vitest.setup.*", "setupTests.*",
  // Lock files: they decide which runner and plugins get installed.
  "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb",
  "poetry.lock", "uv.lock", "Pipfile.lock", "pdm.lock", "Cargo.lock", "go.sum", "Gemfile.lock", "composer.lock",
  "Makefile", "GNUmakefile",
  ".gitmodules", // which repositories the gate fetches into the tree as submodules (issue 22)
];

// Loader files (issue 19): a file that decides which code an interpreter or package manager loads,
// rather than being code a reviewer reads. Installed-package metadata registers plugins and entry
// points (pytest loads every `pytest11` entry point of a dist-info on sys.path by itself); bytecode
// runs instead of the source beside it (an unchecked-hash .pyc is never compared with its .py);
// install configuration and dependency manifests choose what gets installed.
const LOADER_GLOBS = [
  // Installed-package metadata: entry points, top_level.txt, RECORD; and a committed install.
  "*.dist-info/**", "*.egg-info/**", "*.egg-link", "node_modules/**",
  // Bytecode: run in place of (or without) the source the diff shows.
  "__pycache__/**", "*.pyc", "*.pyo",
  // Install configuration and hooks of npm, yarn and pnpm.
  ".npmrc", ".yarnrc", ".yarnrc.*", ".pnpmfile.cjs", ".pnpmfile.mjs", ".pnp.cjs", ".pnp.loader.mjs",
  // Dependency manifests and constraints: what pip installs, at which versions.
  "requirements*.txt", "requirements*.in", "constraints*.txt", "Pipfile",
  // Jest loads a `__mocks__` module in place of the real one: beside node_modules for a package,
  // with no `jest.mock` call at all. A new mock is as much harness as an edited one.
  "__mocks__/**",
  // The JVM's plugin registries, read from the classpath (src/main as well as src/test): a
  // META-INF/services file registers a JUnit extension (autoloaded when junit-platform.properties
  // or Surefire says so), a Mockito plugin replaces how mocks behave.
  "META-INF/services/**", "junit-platform.properties", "mockito-extensions/**",
];

// The build of the compiled ecosystems (issue 22): what decides which code is compiled into the test
// binary, which dependencies it links against, and which program runs it.
const BUILD_FILES = [
  // Go: `replace` swaps a module the tests import (an assertion library) for tree code; `go.work`
  // adds modules and replaces of its own; the `toolchain` line chooses the compiler.
  "go.mod", "go.work", "go.work.sum",
  // Rust: Cargo.toml's `[patch]`, `[profile]` and `build`; a build script runs before the tests are
  // compiled and can pass the linker anything (`cargo:rustc-link-arg-tests`); `.cargo/config` can name
  // a `runner` that cargo runs instead of each test binary, set rustflags, or replace a source;
  // the toolchain file picks the compiler; nextest's config picks what counts as a pass (retries).
  "Cargo.toml", "build.rs", ".cargo/config", ".cargo/config.toml", "rust-toolchain", "rust-toolchain.toml", ".config/nextest.toml",
  // Maven: pom.xml configures Surefire (argLine, a javaagent, includes, testSourceDirectory) and
  // the dependencies; `.mvn` holds extensions loaded into Maven itself, its JVM and CLI flags; the
  // wrapper chooses which Maven runs.
  "pom.xml", ".mvn/**", "mvnw", "mvnw.cmd",
  // Gradle: build and settings scripts (`*.gradle`, `*.gradle.kts`, init scripts included), the
  // properties and version catalog, the wrapper, and the build logic compiled into the build itself.
  "*.gradle", "*.gradle.kts", "gradle.properties", "gradle/*.versions.toml", "gradle/wrapper/**", "gradlew", "gradlew.bat",
  "buildSrc/**", "build-logic/**",
];

/**
 * What the tests compare with, frozen as of the base like the test files themselves: a PR may add
 * new ones for its new tests, never change or delete the base's. Go's `testdata` (golden files),
 * jest's and vitest's snapshots, fixtures beside `__tests__`, Maven's and Gradle's test resources.
 */
export const TEST_DATA_GLOBS: readonly string[] = [
  "**/testdata/**", "**/__snapshots__/**", "**/*.snap", "**/__fixtures__/**", "**/src/test/resources/**",
];

/** Frozen whatever the policy says, unless it names a path in `unfreeze`. Each is matched at any depth. */
export const DEFAULT_FROZEN_GLOBS: readonly string[] = [
  ".github/**",
  ".ranex/**",
  ...LOADER_GLOBS.map((glob) => `**/${glob}`),
  ...HARNESS_FILES.map((name) => `**/${name}`),
  ...BUILD_FILES.map((name) => `**/${name}`),
];

/** Go compiles a module's `vendor/` folder in place of the module cache: harness next to each go.mod. */
export function vendorGlobs(basePaths: readonly string[]): string[] {
  return basePaths.filter((p) => p === "go.mod" || p.endsWith("/go.mod")).map((p) => `${p.slice(0, -"go.mod".length)}vendor/**`);
}

// Dependency manifests: an honest PR may need to change one (a new dependency, a version bump), so
// the finding says how a repository lets it. Others (runner configuration, bytecode) are not meant
// to be released, though `unfreeze` can.
const MANIFEST = /(?:^|\/)(?:package\.json|pyproject\.toml|setup\.cfg|Pipfile|requirements[^/]*\.(?:txt|in)|constraints[^/]*\.txt|go\.mod|go\.work|Cargo\.toml|pom\.xml|build\.gradle(?:\.kts)?|settings\.gradle(?:\.kts)?|gradle\.properties|gradle\/[^/]*\.versions\.toml)$/;

/** For a dependency manifest, the words that tell the owner how to let PRs change it. */
export function releaseHint(path: string): string | null {
  return MANIFEST.test(path)
    ? `a dependency manifest, frozen by default; release it with unfreeze: ['${shown(path)}']`
    : null;
}
