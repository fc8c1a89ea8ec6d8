import { describe, expect, it } from "vitest";
import { createFlowiseFrameReader } from "./flowise-reply.js";

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

function parseAll(chunks: Array<Uint8Array | string>): { events: Array<{ data: string }> } {
  const reader = createFlowiseFrameReader();
  const encoder = new TextEncoder();
  const frames = chunks.flatMap((chunk) => reader.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk));
  return { events: [...frames, ...reader.finish()].map((data) => ({ data })) };
}

describe("createFlowiseFrameReader (Flowise's SSE dialect through eventsource-parser)", () => {
  it("parses Flowise's non-standard frames", () => {
    const { events } = parseAll([FLOWISE_STREAM]);
    expect(events.map((event) => JSON.parse(event.data))).toEqual(EXPECTED);
  });

  it("gives the same events for a split at every byte offset", () => {
    const bytes = new TextEncoder().encode(FLOWISE_STREAM);
    for (let offset = 0; offset <= bytes.length; offset += 1) {
      const { events } = parseAll([bytes.subarray(0, offset), bytes.subarray(offset)]);
      expect(events.map((event) => JSON.parse(event.data)), `split at ${offset}`).toEqual(EXPECTED);
    }
  });

  it("gives the same events when fed one byte at a time", () => {
    const bytes = new TextEncoder().encode(FLOWISE_STREAM);
    const { events } = parseAll([...bytes].map((byte) => Uint8Array.of(byte)));
    expect(events.map((event) => JSON.parse(event.data))).toEqual(EXPECTED);
  });

  it("handles CRLF and CR line ends split between chunks", () => {
    const crlf = new TextEncoder().encode(FLOWISE_STREAM.replace(/\n/g, "\r\n"));
    for (let offset = 0; offset <= crlf.length; offset += 1) {
      const { events } = parseAll([crlf.subarray(0, offset), crlf.subarray(offset)]);
      expect(events.map((event) => JSON.parse(event.data)), `split at ${offset}`).toEqual(EXPECTED);
    }
    // CR-only line ends: a CR at the very end of the input could still be the first half of a CRLF,
    // so eventsource-parser waits for the next character; Flowise writes "\n" and never ends on a CR.
    const { events } = parseAll([FLOWISE_STREAM.replace(/\n/g, "\r") + "\n"]);
    expect(events).toHaveLength(EXPECTED.length);
  });

  it("reads standard SSE: event field, space after data:, multi-line data", () => {
    const { events } = parseAll(["event: update\ndata: line one\ndata: line two\nid: 7\n\n"]);
    expect(events).toEqual([{ data: "line one\nline two" }]);
  });

  it("drops only whole `message` lines, never data that reads like one", () => {
    const { events } = parseAll(["data:message:\n\nmessage\ndata:x\nmessage:\n\n", "message:\ndata: message\n\n"]);
    expect(events).toEqual([{ data: "message:" }, { data: "x" }, { data: "message" }]);
  });

  it("ignores comments and frames without data", () => {
    const { events } = parseAll([":heartbeat\n\nmessage:\n\n:another\n\n"]);
    expect(events).toEqual([]);
  });

  it("does not deliver an unfinished frame (a cut stream)", () => {
    const { events } = parseAll(['message:\ndata:{"event":"token","data":"a"}\n\nmessage:\ndata:{"event":"token","data":"b"}\n']);
    expect(events).toHaveLength(1);
  });
});
