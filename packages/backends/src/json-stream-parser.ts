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
    this.buffer += typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    const values: unknown[] = [];
    let start = 0;
    let newline = this.buffer.indexOf("\n");
    while (newline !== -1) {
      const end = newline > start && this.buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      this.processLine(this.buffer.slice(start, end), values);
      start = newline + 1;
      newline = this.buffer.indexOf("\n", start);
    }
    this.buffer = this.buffer.slice(start);
    return values;
  }

  /**
   * Ends the input. Returns the last objects and whether unfinished text was left over (a cut stream).
   * @throws SyntaxError when the leftover text is complete but not valid JSON.
   */
  finish(): { values: unknown[]; incomplete: boolean } {
    this.buffer += this.decoder.decode();
    const values: unknown[] = [];
    let incomplete = false;
    const rest = this.buffer.replace(/\r$/, "");
    this.buffer = "";
    if (rest.trim()) this.block.push(stripDataPrefix(rest));
    if (this.block.length > 0) {
      const text = this.block.join("\n");
      this.block = [];
      try {
        values.push(parseJsonBounded(text));
      } catch {
        incomplete = true;
      }
    }
    return { values, incomplete };
  }

  private processLine(line: string, values: unknown[]): void {
    if (line.trim() === "") {
      if (this.block.length > 0) {
        const text = this.block.join("\n");
        this.block = [];
        values.push(parseJsonBounded(text));
      }
      return;
    }
    if (line.startsWith(":")) return; // SSE comment from a proxy
    this.block.push(stripDataPrefix(line));
    // One object per line is the common case: emit as soon as the block parses.
    const text = this.block.length === 1 ? (this.block[0] as string) : this.block.join("\n");
    const first = firstNonSpace(text);
    const last = lastNonSpace(text);
    if ((first === "{" && last === "}") || (first === "[" && last === "]")) {
      try {
        values.push(parseJsonBounded(text));
        this.block = [];
      } catch {
        // not complete yet: keep collecting lines until a blank line
      }
    }
  }
}

function stripDataPrefix(line: string): string {
  return line.startsWith("data:") ? line.slice(5).trimStart() : line;
}

function firstNonSpace(text: string): string | undefined {
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] as string;
    if (char !== " " && char !== "\t") return char;
  }
  return undefined;
}

function lastNonSpace(text: string): string | undefined {
  for (let index = text.length - 1; index >= 0; index -= 1) {
    const char = text[index] as string;
    if (char !== " " && char !== "\t" && char !== "\r") return char;
  }
  return undefined;
}
