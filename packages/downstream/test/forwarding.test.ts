// What a downstream server sends back while a call runs: progress for the call, log messages,
// sampling and elicitation requests to the caller, and cancellation of the call.
import { fileURLToPath } from "node:url";
import type { CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDownstreamManager, type DownstreamCaller, type DownstreamLogMessage, type DownstreamManager, type DownstreamProgress } from "../src/index.js";
import { firstText, rejectionOf } from "./helpers.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/forwarding-server.mjs", import.meta.url));
const SECRET = "fixture-secret-value-8841";

const json = (result: { content?: unknown }) => JSON.parse(firstText(result)) as Record<string, unknown>;

describe("forwarding between a downstream server and the caller of a call", () => {
  let manager: DownstreamManager;
  const unattributed: DownstreamLogMessage[] = [];

  beforeAll(async () => {
    manager = createDownstreamManager(
      { servers: [{ name: "fwd", transport: "stdio", command: process.execPath, args: [FIXTURE], env: { FIXTURE_SECRET: SECRET }, pingIntervalMs: 0 }] },
      { onServerLog: (message) => unattributed.push(message) },
    );
    await manager.start();
  }, 20_000);
  afterAll(() => manager.stop());

  it("reports the server's progress notifications of a call to onProgress, in order", async () => {
    const seen: DownstreamProgress[] = [];
    const result = await manager.callTool("fwd__progress", { steps: 3 }, { onProgress: (progress) => seen.push(progress) });
    expect(firstText(result)).toBe("reported 3");
    expect(seen).toEqual([
      { progress: 1, total: 3, message: "step 1" },
      { progress: 2, total: 3, message: "step 2" },
      { progress: 3, total: 3, message: "step 3" },
    ]);
  });

  it("asks for no progress when nobody listens", async () => {
    expect(firstText(await manager.callTool("fwd__progress", { steps: 2 }))).toBe("no progress token");
  });

  it("forwards a log message sent during a call to its caller, redacted", async () => {
    const logs: DownstreamLogMessage[] = [];
    const caller: DownstreamCaller = { key: "session-a", log: (message) => logs.push(message) };
    await manager.callTool("fwd__log", { level: "warning", text: "disk almost full" }, { caller });
    expect(logs).toEqual([{ server: "fwd", level: "warning", logger: "fixture", data: { message: "disk almost full", token: "[REDACTED]" } }]);
    expect(JSON.stringify(logs)).not.toContain(SECRET);
  });

  it("forwards sampling to the caller and its reply to the server", async () => {
    const asked: unknown[] = [];
    const caller: DownstreamCaller = {
      key: "session-a",
      createMessage: async (params) => {
        asked.push(params.messages);
        return { role: "assistant", model: "test-model", content: { type: "text", text: "forty-two" } } satisfies CreateMessageResult;
      },
    };
    const result = await manager.callTool("fwd__sample", { prompt: "the answer?" }, { caller });
    expect(json(result)).toEqual({ ok: true, model: "test-model", reply: "forty-two" });
    expect(asked).toEqual([[{ role: "user", content: { type: "text", text: "the answer?" } }]]);
  });

  it("forwards elicitation to the caller", async () => {
    const caller: DownstreamCaller = { key: "session-a", elicit: async () => ({ action: "accept", content: { name: "Ada" } }) };
    expect(json(await manager.callTool("fwd__elicit", {}, { caller }))).toEqual({ ok: true, action: "accept", content: { name: "Ada" } });
  });

  it("answers the server with a clear error when the caller cannot sample or elicit", async () => {
    const caller: DownstreamCaller = { key: "session-a" };
    const sampled = json(await manager.callTool("fwd__sample", { prompt: "x" }, { caller }));
    expect(sampled).toMatchObject({ ok: false, code: -32601 });
    expect(sampled["message"]).toContain("does not support sampling/createMessage");
    const elicited = json(await manager.callTool("fwd__elicit", {}));
    expect(elicited).toMatchObject({ ok: false });
    expect(elicited["message"]).toContain("no call of a client is in progress");
  });

  it("forwards nothing while calls of two callers are in flight (it cannot tell whose it is)", async () => {
    const controller = new AbortController();
    const otherLogs: DownstreamLogMessage[] = [];
    const other: DownstreamCaller = { key: "session-b", log: (message) => otherLogs.push(message), createMessage: async () => ({ role: "assistant", model: "m", content: { type: "text", text: "leak" } }) };
    const pending = manager.callTool("fwd__until_cancelled", {}, { caller: other, signal: controller.signal });
    const logs: DownstreamLogMessage[] = [];
    const caller: DownstreamCaller = { key: "session-a", log: (message) => logs.push(message), createMessage: async () => ({ role: "assistant", model: "m", content: { type: "text", text: "mine" } }) };
    const before = unattributed.length;
    await manager.callTool("fwd__log", { level: "info", text: "whose?" }, { caller });
    const sampled = json(await manager.callTool("fwd__sample", { prompt: "x" }, { caller }));
    controller.abort();
    await rejectionOf(pending);
    expect(logs).toEqual([]);
    expect(otherLogs).toEqual([]);
    expect(unattributed.slice(before).map((message) => (message.data as { message: string }).message)).toEqual(["whose?"]);
    expect(sampled).toMatchObject({ ok: false });
    expect(sampled["message"]).toContain("calls of several clients");
  });

  it("cancels the downstream request when the call's signal aborts", async () => {
    const { cancellations: before } = json(await manager.callTool("fwd__cancellations", {})) as { cancellations: number };
    const controller = new AbortController();
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const pending = manager.callTool("fwd__until_cancelled", {}, { signal: controller.signal, onProgress: () => started() });
    await running; // the server has the request
    controller.abort(new Error("user pressed stop"));
    expect((await rejectionOf(pending)).code).toBe("ABORTED");
    // The cancellation travels on the same pipe before this call, so the server has counted it.
    const after = json(await manager.callTool("fwd__cancellations", {})) as { cancellations: number; reasons: string[] };
    expect(after.cancellations).toBe(before + 1);
    expect(after.reasons.at(-1)).toContain("user pressed stop");
  });
});
