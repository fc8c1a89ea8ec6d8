import { describe, expect, it } from "vitest";
import { JsonStreamParser } from "./json-stream-parser.js";
import { pythonJson } from "./testing/langflow-server.js";

const EVENTS = [
  { event: "add_message", data: { sender: "User", text: "Grüße", session_id: "s" } },
  { event: "token", data: { chunk: "Hel", id: "m1", timestamp: "2025-01-01 00:00:00 UTC" } },
  { event: "token", data: { chunk: "lo 👋", id: "m1", timestamp: "2025-01-01 00:00:00 UTC" } },
  { event: "end", data: { result: { session_id: "s", outputs: [] } } },
];

function parseAll(chunks: Array<Uint8Array | string>) {
  const parser = new JsonStreamParser();
  const values = chunks.flatMap((chunk) => parser.push(chunk));
  const rest = parser.finish();
  return { values: [...values, ...rest.values], incomplete: rest.incomplete };
}

describe("JsonStreamParser", () => {
  // Langflow writes json.dumps(...) + "\n\n"; json.dumps escapes non-ASCII by default.
  const langflowText = EVENTS.map((event) => `${pythonJson(event)}\n\n`).join("");
  // A proxy or newer version might send raw UTF-8 instead: test both.
  const utf8Text = EVENTS.map((event) => `${JSON.stringify(event)}\n\n`).join("");

  it("parses Langflow's blank-line-separated objects", () => {
    expect(parseAll([langflowText]).values).toEqual(EVENTS);
  });

  for (const [label, text] of [
    ["python-escaped", langflowText],
    ["raw UTF-8", utf8Text],
  ] as const) {
    it(`gives the same objects for a split at every byte offset (${label})`, () => {
      const bytes = new TextEncoder().encode(text);
      for (let offset = 0; offset <= bytes.length; offset += 1) {
        const { values, incomplete } = parseAll([bytes.subarray(0, offset), bytes.subarray(offset)]);
        expect(values, `split at ${offset}`).toEqual(EVENTS);
        expect(incomplete).toBe(false);
      }
    });
  }

  it("accepts NDJSON, CRLF, data: prefixes and objects spread over lines", () => {
    const text = `${JSON.stringify(EVENTS[0])}\r\n${JSON.stringify(EVENTS[1])}\ndata: ${JSON.stringify(EVENTS[2])}\n\n${JSON.stringify(EVENTS[3], null, 2)}\n\n`;
    expect(parseAll([text]).values).toEqual(EVENTS);
  });

  it("reports leftover text as incomplete (a cut stream)", () => {
    const { values, incomplete } = parseAll([`${JSON.stringify(EVENTS[0])}\n\n{"event": "tok`]);
    expect(values).toEqual([EVENTS[0]]);
    expect(incomplete).toBe(true);
  });

  it("throws on a finished block that is not JSON", () => {
    const parser = new JsonStreamParser();
    expect(() => parser.push("not json at all\n\n")).toThrow(SyntaxError);
  });
});
