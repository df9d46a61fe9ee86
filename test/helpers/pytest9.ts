import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// The current pytest from the package index (9.x), in a virtualenv of Debian's python3 (so what it
// links to is on the sandbox's own /usr), built once per machine and reused: tests name its bin
// folder in toolchain.path. Debian's /usr/bin/python3 has pytest 7; the gate must work with both.
export const PYTEST9_VENV = join(tmpdir(), "ranex-test-pytest9");

export function pytest9Bin(): string {
  const bin = join(PYTEST9_VENV, "bin");
  if (!existsSync(join(bin, "pytest"))) {
    execFileSync("/usr/bin/python3", ["-m", "venv", PYTEST9_VENV]);
    execFileSync(join(bin, "pip"), ["install", "-q", "--disable-pip-version-check", "pytest>=9,<10"], { stdio: "pipe" });
  }
  return bin;
}

/** The pytest version a python3 found first on `bin` then the sandbox PATH runs (e.g. "9.2.0"). */
export function pytestVersion(bin: string | null): string {
  const python = bin === null ? "/usr/bin/python3" : join(bin, "python3");
  return execFileSync(python, ["-c", "import pytest; print(pytest.__version__)"], { encoding: "utf8" }).trim();
}
