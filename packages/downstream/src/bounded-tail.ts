/**
 * Keeps only the last `maxBytes` bytes of a stream (as text) and counts everything seen. Used for
 * a downstream server's stderr so that a flood costs a fixed amount of memory.
 */
export class BoundedTail {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Total bytes ever appended. */
  totalBytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Appends a chunk, dropping the oldest bytes beyond the bound. */
  append(chunk: Buffer | string): void {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    this.totalBytes += buffer.length;
    if (this.maxBytes <= 0) return;
    if (buffer.length >= this.maxBytes) {
      this.chunks = [Buffer.from(buffer.subarray(buffer.length - this.maxBytes))];
      this.size = this.maxBytes;
      return;
    }
    this.chunks.push(Buffer.from(buffer));
    this.size += buffer.length;
    while (this.size > this.maxBytes && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const excess = this.size - this.maxBytes;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  /** The retained tail as UTF-8 text (a split multi-byte character at the start is dropped). */
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8").replace(/^\uFFFD+/, "");
  }

  /** The last `count` non-empty lines of the retained tail. */
  lastLines(count: number): string[] {
    return this.text()
      .split(/\r?\n/)
      .filter((line) => line.trim().length > 0)
      .slice(-count);
  }

  /** Forgets the retained text (the byte count is kept). */
  clear(): void {
    this.chunks = [];
    this.size = 0;
  }
}
