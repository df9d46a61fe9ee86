import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openRecordPipe, RECORD_MAX_BYTES } from "../../../src/measure/provenance/pipe.js";
import { parseRecord } from "../../../src/measure/provenance/record.js";
import { tempDir } from "../../helpers/git-repo.js";

// Found on npm/node-semver: node-tap ran one Node process per test file (67), whose lines filled the
// record's bound before the first process, the launcher, wrote its end; the record then read as cut
// short, which is unsafe, and every honest head FAILed. The end lines past the bound are kept.
const WRITER = `
const { openSync, writeSync } = require("node:fs");
const fd = openSync(process.argv[1], "w");
const write = (line) => writeSync(fd, line + "\\n");
write(JSON.stringify({ k: "start", pid: 1, lang: "node", nonce: "a1", ppid: 0, argv: "node tap-run.cjs tap" }));
const filler = JSON.stringify({ k: "code", pid: 2, p: "/work/" + "x".repeat(3000) + ".js", kind: "source" });
for (let written = 0; written < ${RECORD_MAX_BYTES} + 200000; written += filler.length + 1) write(filler);
write('{"k":"end","pid":1,"nonce":"a1"}');
// A forged end for a process whose start was never kept vouches for nothing.
write('{"k":"end","pid":7,"nonce":"zz"}');
`;

describe("the record's pipe", () => {
  it("keeps the processes' end lines written after the record's bound was reached", async () => {
    const scratch = tempDir("ranex-pipe-");
    mkdirSync(join(scratch, "gate"));
    const pipe = await openRecordPipe(join(scratch, "gate", "record"), scratch);
    const writer = spawn(process.execPath, ["-e", WRITER, pipe.path], { stdio: "inherit" });
    expect(await new Promise((resolve) => writer.on("exit", resolve))).toBe(0);
    const { text, bytes } = await pipe.finish();
    expect(bytes).toBeGreaterThan(RECORD_MAX_BYTES);
    const record = parseRecord(text, "/work", bytes);
    expect(record.processes).toEqual([expect.objectContaining({ pid: 1, ended: true })]);
  }, 60_000);
});
