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
  const take = (chunk: Buffer): void => {
    bytes += chunk.length;
    if (kept < RECORD_MAX_BYTES) {
      const part = chunk.subarray(0, RECORD_MAX_BYTES - kept);
      chunks.push(part);
      kept += part.length;
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
      return { text: Buffer.concat(chunks).toString("utf8"), bytes };
    },
  };
}
