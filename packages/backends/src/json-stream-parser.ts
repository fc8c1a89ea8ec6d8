import { parseJsonBounded } from "./json-limits.js";
/**
 * Incremental parser of Langflow's stream: JSON objects separated by blank lines, without a `data:` prefix (`{"event":
 * "token", "data": {...}}\n\n`).
 * @example
 * ```ts
 * const parser = new JsonStreamParser();
 * parser.push('{"event": "token", "da');        // []
 * parser.push('ta": {"chunk": "Hi"}}\n\n');     // [{ event: "token", data: { chunk: "Hi" } }]
 * ```
 */
export class JsonStreamParser {
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private block: string[] = [];

  /**
   * Feeds a chunk; returns every object completed by it.
   * @throws SyntaxError when a finished block is not valid JSON.
   */
  push(chunk: Uint8Array | string): unknown[] {
    const lines = (this.buffer + (typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true }))).split("\n");
    this.buffer = lines.pop()!;
    const values: unknown[] = [];
    for (const line of lines) this.processLine(line.replace(/\r$/, ""), values);
    return values;
  }

  /**
   * Ends the input. Returns the last objects and whether unfinished text was left over (a cut stream).
   * @throws SyntaxError when the leftover text is complete but not valid JSON.
   */
  finish(): { values: unknown[]; incomplete: boolean } {
    const values: unknown[] = [];
    const rest = (this.buffer + this.decoder.decode()).replace(/\r$/, "");
    this.buffer = "";
    if (rest.trim()) this.block.push(stripDataPrefix(rest));
    try {
      this.flush(values);
      return { values, incomplete: false };
    } catch {
      return { values, incomplete: true };
    }
  }

  private processLine(line: string, values: unknown[]): void {
    if (line.trim() === "") return this.flush(values);
    if (line.startsWith(":")) return; // SSE comment from a proxy
    this.block.push(stripDataPrefix(line));
    // One object per line is the common case: emit as soon as the block parses (else wait for more lines).
    const text = this.block.join("\n");
    if (!/^[ \t]*[[{]/.test(text) || !/[}\]][ \t]*$/.test(text)) return;
    try {
      values.push(parseJsonBounded(text));
      this.block = [];
    } catch {
      // not complete yet
    }
  }

  private flush(values: unknown[]): void {
    if (this.block.length === 0) return;
    const text = this.block.join("\n");
    this.block = [];
    values.push(parseJsonBounded(text));
  }
}

function stripDataPrefix(line: string): string {
  return line.startsWith("data:") ? line.slice(5).trimStart() : line;
}
