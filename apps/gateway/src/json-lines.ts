import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

/** One parsed input line: the value, or why the line could not be read. */
type JsonLine = { line: number; value: unknown } | { line: number; error: string };

/** Reads JSON lines from `input` (blank lines skipped). */
async function* readJsonLines(input: Readable): AsyncGenerator<JsonLine> {
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

/** Answers each JSON line of `input` on `output` with `{ id, ...answer(value) }`, or `{ id, error }` when the line is not JSON or `answer` throws. */
export async function answerJsonLines(input: Readable, output: Writable, answer: (value: Record<string, unknown>) => Promise<Record<string, unknown>>): Promise<void> {
  for await (const line of readJsonLines(input)) {
    const value = "error" in line || line.value === null || typeof line.value !== "object" ? {} : (line.value as Record<string, unknown>);
    const id = value["id"] ?? null;
    try {
      await writeJsonLine(output, "error" in line ? { id, error: line.error } : { id, ...(await answer(value)) });
    } catch (error) {
      await writeJsonLine(output, { id, error: error instanceof Error ? error.message : String(error) });
    }
  }
}
