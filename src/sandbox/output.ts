// Keeps the last `limit` bytes of a stream and counts everything, so a 1 GB print costs a counter,
// not a gigabyte of memory. The tail is what a person needs: the failure is usually at the end.

export class OutputTail {
  private chunks: Buffer[] = [];
  private kept = 0;
  total = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.limit <= 0) return;
    const piece = chunk.length > this.limit ? chunk.subarray(chunk.length - this.limit) : chunk;
    this.chunks.push(Buffer.from(piece));
    this.kept += piece.length;
    while (this.kept > this.limit) {
      const first = this.chunks[0];
      if (first === undefined) break;
      const excess = this.kept - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.kept -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.kept -= excess;
      }
    }
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  /** The kept bytes as text; a character cut at the front by the limit becomes U+FFFD. */
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
