import { lstatSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeFifo, prepareFifos } from "../../../src/measure/provenance/fifos.js";
import { tempDir } from "../../helpers/git-repo.js";

// The records' FIFOs come from a pool made ahead (one mkfifo for several runs). Each run must still
// get a FIFO of its own, mode 0600, in its own gate folder, whatever happened to the pool.
describe("the records' FIFOs", () => {
  const isPrivateFifo = (path: string): void => {
    const stat = lstatSync(path);
    expect(stat.isFIFO(), path).toBe(true);
    expect(stat.mode & 0o777, path).toBe(0o600);
  };

  it("gives each of more runs than one batch a FIFO of its own, from a private pool beside the gate folders", async () => {
    const scratch = tempDir("ranex-fifos-");
    prepareFifos(scratch);
    const paths = Array.from({ length: 9 }, (_, i) => join(scratch, `gate-${i}`, "record"));
    for (const path of paths) mkdirSync(join(path, ".."), { recursive: true });
    await Promise.all(paths.map((path) => makeFifo(path, scratch)));
    for (const path of paths) isPrivateFifo(path);
    const pool = readdirSync(scratch).filter((name) => name.startsWith(".ranex-fifos-"));
    expect(pool).toHaveLength(1);
    expect(lstatSync(join(scratch, pool[0] ?? "")).mode & 0o777).toBe(0o700);
  });

  it("still makes a FIFO when the pool's folder was removed under it", async () => {
    const scratch = tempDir("ranex-fifos-");
    mkdirSync(join(scratch, "gate-a"));
    await makeFifo(join(scratch, "gate-a", "record"), scratch);
    for (const name of readdirSync(scratch)) if (name.startsWith(".ranex-fifos-")) rmSync(join(scratch, name), { recursive: true });
    mkdirSync(join(scratch, "gate-b"));
    await makeFifo(join(scratch, "gate-b", "record"), scratch);
    isPrivateFifo(join(scratch, "gate-b", "record"));
  });
});
