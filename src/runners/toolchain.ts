// Finding a toolchain for `ranex init`: the sandbox's PATH is /usr/local/bin:/usr/bin:/bin, so a
// compiler installed elsewhere (Go in /usr/local/go/bin, rustup's cargo) must be named in
// `toolchain.path`. Init looks where the user's own shell would find it, then at the usual places.
import { accessSync, constants, realpathSync } from "node:fs";
import { dirname, join } from "node:path";

const SANDBOX_DIRS = new Set(["/usr/local/bin", "/usr/bin", "/bin"]);

/** The folder holding `binary` (the real file, not a symlink to it), or null when none is found. */
export function findBinary(binary: string, usual: readonly string[], pathEnv = process.env.PATH ?? ""): string | null {
  for (const dir of [...pathEnv.split(":").filter((d) => d.startsWith("/")), ...usual]) {
    const full = join(dir, binary);
    try {
      accessSync(full, constants.X_OK);
      return dirname(realpathSync(full));
    } catch {
      // not here
    }
  }
  return null;
}

/** The toolchain.path entries a binary needs: none when the sandbox's own PATH has it. */
export function toolchainFor(binaryDir: string | null): string[] {
  return binaryDir === null || SANDBOX_DIRS.has(binaryDir) ? [] : [binaryDir];
}
