import { describe, expect, it } from "vitest";
import { SseParser, type SseEvent } from "./sse-parser.js";

// A Flowise stream exactly as SSEStreamer writes it: "message:" for most events, "message" for
// end/error, no space after "data:", a heartbeat comment and multi-byte characters.
const FLOWISE_STREAM =
  'message:\ndata:{"event":"start","data":"Hé"}\n\n' +
  'message:\ndata:{"event":"token","data":"Hé"}\n\n' +
  ":heartbeat\n\n" +
  'message:\ndata:{"event":"token","data":"llo 👋 "}\n\n' +
  'message:\ndata:{"event":"token","data":"wörld"}\n\n' +
  'message:\ndata:{"event":"metadata","data":{"chatId":"c1","sessionId":"s1"}}\n\n' +
  'message\ndata:{"event":"end","data":"[DONE]"}\n\n';

const EXPECTED = [
  { event: "start", data: "Hé" },
  { event: "token", data: "Hé" },
  { event: "token", data: "llo 👋 " },
  { event: "token", data: "wörld" },
  { event: "metadata", data: { chatId: "c1", sessionId: "s1" } },
  { event: "end", data: "[DONE]" },
];

function parseAll(chunks: Array<Uint8Array | string>): { events: SseEvent[]; incomplete: boolean } {
  const parser = new SseParser();
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  const rest = parser.finish();
  return { events: [...events, ...rest.events], incomplete: rest.incomplete };
}

describe("SseParser", () => {
  it("parses Flowise's non-standard frames", () => {
    const { events, incomplete } = parseAll([FLOWISE_STREAM]);
    expect(events.map((event) => JSON.parse(event.data))).toEqual(EXPECTED);
    expect(incomplete).toBe(false);
  });

  it("gives the same events for a split at every byte offset", () => {
    const bytes = new TextEncoder().encode(FLOWISE_STREAM);
    for (let offset = 0; offset <= bytes.length; offset += 1) {
      const { events, incomplete } = parseAll([bytes.subarray(0, offset), bytes.subarray(offset)]);
      expect(events.map((event) => JSON.parse(event.data)), `split at ${offset}`).toEqual(EXPECTED);
      expect(incomplete).toBe(false);
    }
  });

  it("gives the same events when fed one byte at a time", () => {
    const bytes = new TextEncoder().encode(FLOWISE_STREAM);
    const { events } = parseAll([...bytes].map((byte) => Uint8Array.of(byte)));
    expect(events.map((event) => JSON.parse(event.data))).toEqual(EXPECTED);
  });

  it("handles CRLF and CR line ends split between chunks", () => {
    const crlf = FLOWISE_STREAM.replace(/\n/g, "\r\n");
    for (let offset = 0; offset <= crlf.length; offset += 1) {
      const { events } = parseAll([crlf.slice(0, offset), crlf.slice(offset)]);
      expect(events.map((event) => JSON.parse(event.data)), `split at ${offset}`).toEqual(EXPECTED);
    }
    const { events } = parseAll([FLOWISE_STREAM.replace(/\n/g, "\r")]);
    expect(events).toHaveLength(EXPECTED.length);
  });

  it("reads standard SSE: event field, space after data:, multi-line data", () => {
    const { events } = parseAll(["event: update\ndata: line one\ndata: line two\nid: 7\n\n"]);
    expect(events).toEqual([{ event: "update", data: "line one\nline two" }]);
  });

  it("ignores comments and frames without data", () => {
    const { events } = parseAll([":heartbeat\n\nmessage:\n\n:another\n\n"]);
    expect(events).toEqual([]);
  });

  it("reports an unfinished frame as incomplete (a cut stream)", () => {
    const { events, incomplete } = parseAll(['message:\ndata:{"event":"token","data":"a"}\n\nmessage:\ndata:{"event":"tok']);
    expect(events).toHaveLength(1);
    expect(incomplete).toBe(true);
  });
});
