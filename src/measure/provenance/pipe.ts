// The record's channel out of the sandbox: a FIFO the measuring process creates and reads while the
// run goes on. The run sees it read-only mounted with mode 0200: its processes can open it for
// writing (a FIFO on a read-only mount still opens), but cannot read it (no capability overrides the
// mode inside) nor change its mode (read-only mount). Nothing written can be taken back.
import { chmod } from "node:fs/promises";
import { constants, openSync, readSync } from "node:fs";
import { Socket } from "node:net";
import { makeFifo } from "./fifos.js";

/** At most this much of the record is kept; the rest is counted as dropped. */
export const RECORD_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Past that, the processes' end lines are still kept, up to this much more: the first process's end
 * is written last, and a record without it reads as cut short, which is unsafe (found on
 * npm/node-semver: node-tap ran 67 Node processes, one per test file, whose lines filled the record
 * before the launcher ended, and every honest head FAILed). Only an end whose start line was kept
 * counts (./record.ts checks its nonce), so these lines can vouch for nothing else.
 */
export const RECORD_END_BYTES = 256 * 1024;
const END_LINE = '{"k":"end",';

export interface RecordPipe {
  path: string;
  /** Stops reading (after what is already in the pipe) and returns the text and how many bytes came. */
  finish(): Promise<{ text: string; bytes: number }>;
}

/** Makes the FIFO at `path` (its folder lies in `parent`, where ./fifos.ts keeps FIFOs made ahead) and reads it. */
export async function openRecordPipe(path: string, parent: string): Promise<RecordPipe> {
  await makeFifo(path, parent);
  // Read and write, non-blocking: the open does not wait for a writer, and the pipe never reads as
  // ended while the run's processes come and go.
  const fd = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
  await chmod(path, 0o200);
  // The socket owns the descriptor from here on, and closes it when destroyed.
  const socket = new Socket({ fd, readable: true, writable: false });
  const chunks: Buffer[] = [];
  let kept = 0;
  let bytes = 0;
  const ends: string[] = [];
  let endBytes = 0;
  let overflow = "";
  const take = (chunk: Buffer): void => {
    bytes += chunk.length;
    let rest = chunk;
    if (kept < RECORD_MAX_BYTES) {
      const part = chunk.subarray(0, RECORD_MAX_BYTES - kept);
      chunks.push(part);
      kept += part.length;
      rest = chunk.subarray(part.length);
    }
    if (rest.length === 0) return;
    // Past the cap: only whole end lines (the line cut at the cap starts this text and is no end line).
    const lines = (overflow + rest.toString("latin1")).split("\n");
    overflow = lines.pop() ?? "";
    if (overflow.length > 4096) overflow = "";
    for (const line of lines) {
      if (line.startsWith(END_LINE) && endBytes + line.length + 1 <= RECORD_END_BYTES) {
        ends.push(line);
        endBytes += line.length + 1;
      }
    }
  };
  socket.on("data", take);
  socket.on("error", () => undefined);
  return {
    path,
    async finish() {
      // The run has ended: whatever it wrote last is still in the pipe. Drained here, synchronously,
      // so no event can interleave, until the pipe is empty (EAGAIN).
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        let read = 0;
        try {
          read = readSync(fd, buffer, 0, buffer.length, null);
        } catch {
          break;
        }
        if (read <= 0) break;
        take(Buffer.from(buffer.subarray(0, read)));
      }
      socket.destroy();
      const text = Buffer.concat(chunks).toString("utf8");
      return { text: ends.length === 0 ? text : `${text}\n${ends.join("\n")}\n`, bytes };
    },
  };
}
