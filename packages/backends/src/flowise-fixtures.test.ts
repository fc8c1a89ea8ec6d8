import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BackendError, FlowStreamChunk } from "@afw/contracts";
import { errorFromStatus } from "./error-mapping.js";
import { createFlowiseBackend } from "./flowise-backend.js";
import { createFlowiseFrameReader, FlowiseChatflowListSchema, FlowisePredictionSchema } from "./flowise-reply.js";
import { startFlowiseServer } from "./testing/flowise-server.js";
import { collect } from "./testing/conformance.js";

interface Fixture {
  flowise: string;
  request: string;
  status: number;
  contentType: string | null;
  body: string;
}

const fixture = (name: string): Fixture => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8")) as Fixture;
const FLOW = "2086ad12-7bf8-4c89-90b4-e70f54b262d5";
const PLAIN = "feed989a-bc81-43dd-a80a-dce5bed5f4ef";
const SECURED = "ab3bc3f2-ba06-418e-83fa-c0f9dc5a271e";

/** The JSON frames of an SSE body fed in chunks, read as the Flowise adapter reads them. */
function sseEvents(...chunks: Array<Uint8Array | string>): Array<{ event: string; data: unknown }> {
  const reader = createFlowiseFrameReader();
  const frames = chunks.flatMap((chunk) => reader.push(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk));
  return [...frames, ...reader.finish()].map((data) => JSON.parse(data) as { event: string; data: unknown });
}

/** Serves the recorded replies of a real Flowise 3.1.2, byte for byte. */
function replayServer(): Promise<{ server: Server; url: string }> {
  const send = (response: import("node:http").ServerResponse, name: string) => {
    const recorded = fixture(name);
    response.writeHead(recorded.status, recorded.contentType ? { "content-type": recorded.contentType } : {}).end(recorded.body);
  };
  const server = createServer(async (request, response) => {
    let text = "";
    for await (const chunk of request) text += chunk;
    const body = text ? (JSON.parse(text) as { streaming?: boolean }) : {};
    const path = request.url ?? "";
    if (path === "/api/v1/ping") return send(response, "flowise-ping.json");
    if (path === "/api/v1/version") return send(response, "flowise-version.json");
    if (path.startsWith("/api/v1/chatflows?")) return send(response, request.headers.authorization === "Bearer good" ? "flowise-chatflows-page.json" : "flowise-chatflows-401.json");
    if (path.startsWith("/api/v1/chatflows-streaming/")) {
      return path.endsWith(FLOW) ? send(response, "flowise-chatflows-streaming.json") : response.writeHead(200, { "content-type": "application/json" }).end('{"isStreaming":false}');
    }
    if (path === `/api/v1/prediction/${FLOW}`) return send(response, body.streaming ? "flowise-prediction-stream.json" : "flowise-prediction.json");
    if (path === `/api/v1/prediction/${PLAIN}`) return send(response, "flowise-prediction-nonstreaming-flow.json");
    if (path === `/api/v1/prediction/${SECURED}`) return send(response, body.streaming ? "flowise-prediction-unauthorized-stream.json" : "flowise-prediction-unauthorized.json");
    return send(response, "flowise-prediction-404.json");
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

describe("recorded replies of a real Flowise 3.1.2", () => {
  let replay: { server: Server; url: string };
  beforeAll(async () => {
    replay = await replayServer();
  });
  afterAll(() => new Promise<void>((resolve) => replay.server.close(() => resolve())));
  const backend = (apiKey = "good") => createFlowiseBackend({ id: "recorded", baseURL: replay.url, apiKey });

  it("are valid for the adapter's schemas", () => {
    expect(fixture("flowise-prediction.json").flowise).toBe("3.1.2");
    expect(FlowisePredictionSchema.safeParse(JSON.parse(fixture("flowise-prediction.json").body)).success).toBe(true);
    const page = FlowiseChatflowListSchema.parse(JSON.parse(fixture("flowise-chatflows-page.json").body));
    expect(Array.isArray(page) ? undefined : page.total).toBe(3);
  });

  it("parse as a stream at every byte offset", () => {
    const body = new TextEncoder().encode(fixture("flowise-prediction-stream.json").body);
    const expected = sseEvents(body);
    expect(expected.map((frame) => frame.event)).toContain("end");
    for (let offset = 0; offset <= body.length; offset += 7) {
      expect(sseEvents(body.subarray(0, offset), body.subarray(offset)), `split at ${offset}`).toEqual(expected);
    }
  });

  it("drive health, discovery, execute and stream", async () => {
    const flowise = backend();
    expect(await flowise.checkHealth()).toMatchObject({ status: "healthy", version: "3.1.2" });
    const flows = await flowise.discoverFlows();
    expect(flows.length).toBeGreaterThan(0);
    expect(flows[0]!.tags).toEqual(["conversation", "afw"]);
    const result = await flowise.execute({ flowId: FLOW, question: "Fixture question", sessionId: "fixture-session" });
    expect(result).toMatchObject({ text: "Stub answer to: Fixture question (4 messages)", sessionId: "fixture-session" });
    const chunks = await collect(flowise.stream({ flowId: FLOW, question: "Fixture stream" }));
    const tokens = chunks.flatMap((chunk) => (chunk.type === "token" ? [chunk.text] : []));
    expect(tokens).toEqual(["Stub ", "answer ", "to: ", "Fixture ", "stream ", "(2 ", "messages)"]);
    const end = chunks.at(-1);
    expect(end?.type === "end" && end.result).toMatchObject({ text: tokens.join(""), sessionId: "fixture-stream", messageId: "28328d5d-538b-4159-9f2f-21e76fb8aa77" });
    const plain = await collect(flowise.stream({ flowId: PLAIN, question: "Fixture plain" }));
    expect(plain.map((chunk) => chunk.type)).toEqual(["end"]);
  });

  it("map the real error replies of unknown and malformed flow ids", () => {
    const context = { backendId: "b", kind: "flowise", operation: "execute", flowId: "x" };
    for (const name of ["flowise-prediction-404.json", "flowise-prediction-not-a-uuid.json", "flowise-chatflows-streaming-unknown.json"]) {
      const recorded = fixture(name);
      const error = errorFromStatus(recorded.status, recorded.body, null, context);
      expect(error.code, name).toBe("FLOW_NOT_FOUND");
      expect(error.isRetryable, name).toBe(false);
    }
  });

  it("map the real error replies", async () => {
    const notFound = (await backend().execute({ flowId: "00000000-0000-4000-8000-000000000000", question: "x" }).catch((error: unknown) => error)) as BackendError;
    expect(notFound).toMatchObject({ code: "FLOW_NOT_FOUND", statusCode: 404 });
    const unauthorized = (await backend().execute({ flowId: SECURED, question: "x" }).catch((error: unknown) => error)) as BackendError;
    expect(unauthorized).toMatchObject({ code: "BACKEND_AUTH_FAILED", statusCode: 500, isRetryable: false });
    const streamed = (await collect(backend().stream({ flowId: SECURED, question: "x" })).catch((error: unknown) => error)) as BackendError;
    expect(streamed).toMatchObject({ code: "BACKEND_AUTH_FAILED" });
    const listing = (await backend("bad").discoverFlows().catch((error: unknown) => error)) as BackendError;
    expect(listing).toMatchObject({ code: "BACKEND_AUTH_FAILED", statusCode: 401 });
  });

  it("have the same shapes as the local reproduction's replies", async () => {
    const mock = await startFlowiseServer({ apiKey: "k", flows: [{ id: FLOW, name: "x", answer: "Stub answer to: Fixture stream (2 messages)" }, { id: SECURED, name: "s", apiKey: "flow-key" }] });
    try {
      const call = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
        const response = await fetch(`${mock.url}${path}`, body === undefined ? { headers } : { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
        return { status: response.status, contentType: response.headers.get("content-type"), body: await response.text() };
      };
      const keysOf = (text: string) => Object.keys(JSON.parse(text) as object).sort();
      const real = {
        prediction: fixture("flowise-prediction.json"),
        stream: fixture("flowise-prediction-stream.json"),
        notFound: fixture("flowise-prediction-404.json"),
        unauthorized: fixture("flowise-prediction-unauthorized.json"),
        unauthorizedStream: fixture("flowise-prediction-unauthorized-stream.json"),
        listing401: fixture("flowise-chatflows-401.json"),
        page: fixture("flowise-chatflows-page.json"),
        ping: fixture("flowise-ping.json"),
        notUuid: fixture("flowise-prediction-not-a-uuid.json"),
        streamingUnknown: fixture("flowise-chatflows-streaming-unknown.json"),
      };
      const local = {
        prediction: await call(`/api/v1/prediction/${FLOW}`, { question: "q", overrideConfig: { sessionId: "s" } }),
        stream: await call(`/api/v1/prediction/${FLOW}`, { question: "q", streaming: true, overrideConfig: { sessionId: "s" } }),
        notFound: await call("/api/v1/prediction/00000000-0000-4000-8000-000000000000", { question: "x" }),
        unauthorized: await call(`/api/v1/prediction/${SECURED}`, { question: "x" }),
        unauthorizedStream: await call(`/api/v1/prediction/${SECURED}`, { question: "x", streaming: true }),
        listing401: await call("/api/v1/chatflows", undefined, { authorization: "Bearer wrong" }),
        page: await call("/api/v1/chatflows?page=1&limit=1", undefined, { authorization: "Bearer k" }),
        ping: await call("/api/v1/ping"),
        notUuid: await call("/api/v1/prediction/not-a-uuid", { question: "x" }),
        streamingUnknown: await call("/api/v1/chatflows-streaming/00000000-0000-4000-8000-000000000000"),
      };
      for (const key of Object.keys(real) as Array<keyof typeof real>) {
        expect(local[key].status, key).toBe(real[key].status);
        expect(local[key].contentType, key).toBe(real[key].contentType);
      }
      expect(local.ping.body).toBe(real.ping.body);
      expect(keysOf(local.prediction.body)).toEqual(keysOf(real.prediction.body));
      for (const key of ["notFound", "unauthorized", "listing401", "notUuid", "streamingUnknown"] as const) {
        expect(local[key].body.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<id>"), key).toBe(real[key].body.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<id>"));
      }
      expect(local.unauthorizedStream.body).toBe(real.unauthorizedStream.body);
      // Same framing and event sequence; the same tokens for the same answer.
      const shape = (events: Array<{ event: string }>) => events.map((event) => event.event).join(",").replace(/(token,)+/g, "token*,");
      expect(shape(sseEvents(local.stream.body))).toBe(shape(sseEvents(real.stream.body)));
      expect(sseEvents(local.stream.body).filter((event) => event.event === "token")).toEqual(sseEvents(real.stream.body).filter((event) => event.event === "token"));
      expect(local.stream.body.split("\n\n")[0]!.split("\n")[0]).toBe(real.stream.body.split("\n\n")[0]!.split("\n")[0]);
      const realPage = JSON.parse(real.page.body) as { data: Array<Record<string, unknown>> };
      const localPage = JSON.parse(local.page.body) as { data: Array<Record<string, unknown>> };
      expect(Object.keys(localPage).sort()).toEqual(Object.keys(realPage).sort());
      expect(Object.keys(localPage.data[0]!).sort()).toEqual(Object.keys(realPage.data[0]!).sort());
    } finally {
      await mock.close();
    }
  });
});
