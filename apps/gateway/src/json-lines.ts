import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

/** One parsed input line: the value, or why the line could not be read. */
export type JsonLine = { line: number; value: unknown } | { line: number; error: string };

/** Reads JSON lines from `input` (blank lines skipped). */
export async function* readJsonLines(input: Readable): AsyncGenerator<JsonLine> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let number = 0;
  for await (const raw of lines) {
    number++;
    const text = raw.trim();
    if (!text) continue;
    try {
      yield { line: number, value: JSON.parse(text) };
    } catch {
      yield { line: number, error: `line ${number} is not valid JSON` };
    }
  }
}

/** Writes one JSON value as a line, waiting for the stream to drain when its buffer is full. */
export async function writeJsonLine(output: Writable, value: unknown): Promise<void> {
  if (!output.write(`${JSON.stringify(value)}\n`)) {
    await new Promise<void>((resolve) => output.once("drain", resolve));
  }
}
