import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { WorkspaceError } from "./errors.js";
import { gitArgv, gitEnv, lastLine, runGit } from "./git.js";

// One `git cat-file --batch` process serves every blob of a call: asking per file would start
// thousands of processes on a large tree. Content is streamed to a sink, so a 2 GB blob never
// sits in memory.

export interface ObjectHeader {
  type: string;
  size: number;
}

export type ChunkSink = (chunk: Buffer) => void | Promise<void>;

export class CatFileBatch {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly chunks: AsyncIterator<Buffer>;
  private pending: Buffer = Buffer.alloc(0);
  private stderr = "";
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(gitDir: string) {
    this.child = spawn("git", gitArgv(gitDir, ["cat-file", "--batch"]), { env: gitEnv(), stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.on("data", (c: Buffer) => {
      if (this.stderr.length < 16_384) this.stderr += c.toString("utf8");
    });
    this.child.stdin.on("error", () => undefined); // reported through the missing output instead
    this.child.on("error", () => undefined);
    this.chunks = this.child.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  static open(gitDir: string): CatFileBatch {
    return new CatFileBatch(gitDir);
  }

  /** Streams one object's content to `sink`; `accept` may refuse it by header (then it is drained). */
  read(object: string, sink: ChunkSink, accept?: (header: ObjectHeader) => void): Promise<ObjectHeader> {
    // Requests are strictly one after another: the protocol is a single ordered stream.
    const next = this.queue.then(() => this.readNow(object, sink, accept));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Reads one object into memory, refusing (before reading) anything larger than maxBytes. */
  async readBuffer(object: string, maxBytes: number, what = object): Promise<{ header: ObjectHeader; content: Buffer }> {
    const parts: Buffer[] = [];
    const header = await this.read(object, (c) => void parts.push(Buffer.from(c)), (h) => {
      if (h.size > maxBytes) throw new WorkspaceError(`${what} is ${h.size} bytes, more than the limit of ${maxBytes}`);
    });
    return { header, content: Buffer.concat(parts) };
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      await new Promise<void>((resolve) => {
        this.child.once("close", () => resolve());
        // Closing stdin ends git; the kill is only for a git stuck in a write we no longer read.
        setTimeout(() => this.child.kill("SIGKILL"), 5_000).unref();
      });
    }
  }

  private async readNow(object: string, sink: ChunkSink, accept?: (header: ObjectHeader) => void): Promise<ObjectHeader> {
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(object)) throw new WorkspaceError(`not an object id: ${JSON.stringify(object)}`);
    this.child.stdin.write(`${object}\n`);
    const line = await this.readLine();
    const fields = line.split(" ");
    if (fields[1] === "missing") throw new WorkspaceError(`object ${object} is missing from the mirror`);
    const type = fields[1];
    const size = Number(fields[2]);
    if (fields.length !== 3 || type === undefined || !Number.isSafeInteger(size)) {
      throw new WorkspaceError(`unexpected answer from git cat-file: ${JSON.stringify(line)}`);
    }
    const header = { type, size };
    let refusal: unknown = null;
    try {
      accept?.(header);
    } catch (e) {
      refusal = e;
    }
    // A refused object is still read (and dropped) to keep the stream in step for the next request.
    await this.readExact(size, refusal === null ? sink : () => undefined);
    await this.readExact(1, () => undefined);
    if (refusal !== null) throw refusal;
    return header;
  }

  private async fill(): Promise<void> {
    const next = await this.chunks.next();
    if (next.done) throw new WorkspaceError(`git cat-file ended early: ${lastLine(this.stderr)}`);
    this.pending = this.pending.length === 0 ? next.value : Buffer.concat([this.pending, next.value]);
  }

  private async readLine(): Promise<string> {
    for (;;) {
      const end = this.pending.indexOf(10);
      if (end !== -1) {
        const line = this.pending.subarray(0, end).toString("utf8");
        this.pending = this.pending.subarray(end + 1);
        return line;
      }
      await this.fill();
    }
  }

  private async readExact(count: number, sink: ChunkSink): Promise<void> {
    let left = count;
    while (left > 0) {
      if (this.pending.length === 0) await this.fill();
      const take = Math.min(left, this.pending.length);
      const chunk = this.pending.subarray(0, take);
      this.pending = this.pending.subarray(take);
      left -= take;
      await sink(chunk);
    }
  }
}

/** Runs `fn` with a batch reader and always ends the git process. */
export async function withCatFile<T>(gitDir: string, fn: (batch: CatFileBatch) => Promise<T>): Promise<T> {
  const batch = CatFileBatch.open(gitDir);
  try {
    return await fn(batch);
  } finally {
    await batch.close();
  }
}

/** Type and size of many objects with one `git cat-file --batch-check` (no content is read). */
export async function objectHeaders(gitDir: string, objects: readonly string[]): Promise<Map<string, ObjectHeader | null>> {
  const unique = [...new Set(objects)];
  const result = new Map<string, ObjectHeader | null>();
  if (unique.length === 0) return result;
  const out = await runGit(gitDir, ["cat-file", "--batch-check"], { input: unique.map((o) => `${o}\n`).join("") });
  if (out.code !== 0) throw new WorkspaceError(`cannot read object sizes: ${lastLine(out.stderr)}`);
  const lines = out.stdout.toString("utf8").split("\n").filter((l) => l.length > 0);
  if (lines.length !== unique.length) throw new WorkspaceError("git cat-file --batch-check answered a different number of objects");
  unique.forEach((object, i) => {
    const [, type, size] = (lines[i] ?? "").split(" ");
    result.set(object, type === undefined || type === "missing" || size === undefined ? null : { type, size: Number(size) });
  });
  return result;
}
