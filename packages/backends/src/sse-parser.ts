/** One server-sent event: the `event` field (if any) and the joined `data` lines. */
export interface SseEvent {
  /** The `event:` field, when the frame had one. */
  event?: string;
  /** The `data:` lines of the frame joined with `\n`. */
  data: string;
}

/**
 * Incremental parser of server-sent events, tolerant of Flowise's non-standard frames:
 * `message:\ndata:{...}\n\n` (a `message` line that is not an SSE field, no space after
 * `data:`), `:heartbeat` comments, and `\r\n` or `\r` line ends. Feed it byte or text chunks
 * cut anywhere (also inside a multi-byte character or a line end); it returns the events completed
 * so far.
 *
 * @example
 * ```ts
 * const parser = new SseParser();
 * parser.push('message:\ndata:{"event":"tok'); // []
 * parser.push('en","data":"Hi"}\n\n');          // [{ data: '{"event":"token","data":"Hi"}' }]
 * ```
 */
export class SseParser {
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private dataLines: string[] = [];
  private eventName: string | undefined;
  private pendingCarriageReturn = false;

  /** Feeds a chunk; returns every event completed by it. */
  push(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    return this.consume(text);
  }

  /**
   * Ends the input. Returns the events still pending and whether a frame was left unfinished
   * (data received without its terminating blank line: a cut stream).
   */
  finish(): { events: SseEvent[]; incomplete: boolean } {
    const events = this.consume(this.decoder.decode());
    if (this.buffer.length > 0) {
      this.processLine(this.buffer, events);
      this.buffer = "";
    }
    const incomplete = this.dataLines.length > 0;
    this.dataLines = [];
    this.eventName = undefined;
    return { events, incomplete };
  }

  private consume(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let input = text;
    if (this.pendingCarriageReturn && input.startsWith("\n")) input = input.slice(1);
    this.pendingCarriageReturn = false;
    this.buffer += input;
    let start = 0;
    if (!this.buffer.includes("\r")) {
      // Fast path (Flowise, most servers): "\n" line ends only.
      let newline = this.buffer.indexOf("\n");
      while (newline !== -1) {
        this.processLine(this.buffer.slice(start, newline), events);
        start = newline + 1;
        newline = this.buffer.indexOf("\n", start);
      }
      this.buffer = this.buffer.slice(start);
      return events;
    }
    for (let index = 0; index < this.buffer.length; index += 1) {
      const char = this.buffer.charCodeAt(index);
      if (char !== 10 && char !== 13) continue;
      const line = this.buffer.slice(start, index);
      if (char === 13) {
        if (index + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(index + 1) === 10) index += 1;
        } else {
          this.pendingCarriageReturn = true;
        }
      }
      start = index + 1;
      this.processLine(line, events);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private processLine(line: string, events: SseEvent[]): void {
    if (line === "") {
      if (this.dataLines.length > 0) {
        events.push(this.eventName === undefined ? { data: this.dataLines.join("\n") } : { event: this.eventName, data: this.dataLines.join("\n") });
      }
      this.dataLines = [];
      this.eventName = undefined;
      return;
    }
    if (line.startsWith(":")) return; // comment, e.g. ":heartbeat"
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.dataLines.push(value);
    else if (field === "event") this.eventName = value;
    // "message", "id", "retry" and unknown fields carry nothing we use.
  }
}
