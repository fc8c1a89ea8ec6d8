/**
 * Keeps only the last `maxBytes` bytes of a stream (as text) and counts everything seen. Used for
 * a downstream server's stderr so that a flood costs a fixed amount of memory.
 */
export class BoundedTail {
  private tail = Buffer.alloc(0);
  /** Total bytes ever appended. */
  totalBytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Appends a chunk, dropping the oldest bytes beyond the bound. */
  append(chunk: Buffer | string): void {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    this.totalBytes += buffer.length;
    if (this.maxBytes <= 0) return;
    const joined = Buffer.concat([this.tail, buffer.subarray(Math.max(0, buffer.length - this.maxBytes))]);
    // A copy, so the tail never holds on to a larger buffer it was cut from.
    this.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - this.maxBytes)));
  }

  /** The retained tail as UTF-8 text (a split multi-byte character at the start is dropped). */
  text(): string {
    return this.tail.toString("utf8").replace(/^\uFFFD+/, "");
  }

  /** The last `count` non-empty lines of the retained tail. */
  lastLines(count: number): string[] {
    return this.text()
      .split(/\r?\n/)
      .filter((line) => line.trim().length > 0)
      .slice(-count);
  }
}
