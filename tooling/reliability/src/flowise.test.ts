/**
 * The whole gateway (MCP over Streamable HTTP) against Flowise 3.1.2, one scenario run twice:
 *
 * - against the recorded replies of a real Flowise (`fixtures/flowise-3.1.2-gateway.json`), always, asserting on the
 *   gateway's answers and on what it sent to Flowise;
 * - opt-in, against a real Flowise 3.1.2 (an OpenAI-compatible stub as its LLM):
 *
 *     AFW_FLOWISE_REAL=1 pnpm --filter @afw/reliability exec vitest run src/flowise.test.ts
 *
 *   Flowise must be installed once (`AFW_FLOWISE_REAL=1 pnpm --filter @afw/backends test:flowise-real`). With
 *   `AFW_FLOWISE_RECORD=1` the gateway's exchanges with Flowise are written to the fixture the replay serves.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import type { LlmCall } from "@afw/testing";
import { startRecordingProxy, startReplayServer } from "./harness/flowise-recording.js";
import type { FlowiseFront, FlowiseRecording, RecordedExchange } from "./harness/flowise-recording.js";
import { FLOWISE_VERSION, startRealFlowise } from "./harness/flowise-real.js";
import { startHttpGateway, type HttpGateway } from "./harness/gateway.js";
import { connectClient, parseReply, universalQuery, type QueryReply } from "./harness/mcp.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/flowise-3.1.2-gateway.json", import.meta.url));

/** What the scenario needs: Flowise (real behind a recording proxy, or a replay), its key and chatflows. */
interface FlowiseScenarioContext {
  /** The proxy or replay server the gateway talks to. */
  front: FlowiseFront;
  apiKey: string;
  /**
   * `memory`: Conversation Chain with Buffer Memory, Override Config enabling ChatOpenAI's `temperature` only; `locked`:
   * the same without Override Config; `deleted`: deleted by `deleteFlow` after discovery.
   */
  ids: { memory: string; locked: string; deleted: string };
  /** Calls the stub LLM received (real Flowise only). */
  llm?: LlmCall[];
  /** Deletes the `deleted` chatflow (real Flowise only; a replay already answers 404). */
  deleteFlow?: () => Promise<void>;
}

const SESSION = "afw-e2e-session";

function predictions(front: FlowiseFront, flowId: string): RecordedExchange[] {
  return front.exchanges.filter((exchange) => exchange.method === "POST" && exchange.path === `/api/v1/prediction/${flowId}`);
}

function answer(reply: QueryReply) {
  if (reply.kind !== "answer") throw new Error(`expected an answer, got ${JSON.stringify(reply).slice(0, 400)}`);
  return reply.result;
}

function failure(reply: QueryReply) {
  if (reply.kind !== "tool-error") throw new Error(`expected a tool error, got ${JSON.stringify(reply).slice(0, 400)}`);
  return reply.error;
}

async function gatewayFor(front: FlowiseFront, apiKey: string): Promise<{ gateway: HttpGateway; client: Client }> {
  const gateway = await startHttpGateway({
    backends: [{ id: "flowise", kind: "flowise", baseURL: front.url, apiKey, requestTimeoutMs: 120_000 }],
    backendConnect: { allowedHosts: ["127.0.0.1"] },
  });
  return { gateway, client: await connectClient(gateway.url, "flowise-e2e") };
}

/**
 * The whole gateway (MCP over Streamable HTTP) against Flowise: three turns of one session, then a turn on another
 * chatflow and one back (each earlier turn reaches the model exactly once, in order), parameters applied or reported,
 * streaming, a deleted chatflow and a wrong key.
 */
async function runFlowiseScenario(context: FlowiseScenarioContext): Promise<void> {
  const { front, ids, llm } = context;
  const { gateway, client } = await gatewayFor(front, context.apiKey);
  try {
    // 1. Three turns of one session on a chatflow with memory.
    const questions = [1, 2, 3].map((turn) => `Question ${turn} about the tide tables`);
    for (const [index, question] of questions.entries()) {
      const llmBefore = llm?.length ?? 0;
      const result = answer(await universalQuery(client, { question, flow_id: `flowise:${ids.memory}`, session_id: SESSION }));
      expect(result.result).toContain(`Stub answer to: ${question}`);
      expect(result._mcp_metadata.session_context).toEqual({ history_messages: 0, platform_memory: true });
      const sent = predictions(front, ids.memory).at(-1)!.request as Record<string, unknown>;
      expect(sent["history"]).toBeUndefined();
      expect(sent["overrideConfig"]).toMatchObject({ sessionId: SESSION });
      if (llm) {
        const call = llm.slice(llmBefore).at(-1)!;
        // Every question so far once as a user message, every earlier answer once as an assistant message.
        for (const [position, earlier] of questions.slice(0, index + 1).entries()) {
          expect(call.messages.filter((message) => message.role === "user" && message.content.includes(earlier)), `turn ${index + 1}: "${earlier}"`).toHaveLength(1);
          const answers = call.messages.filter((message) => message.role === "assistant" && message.content.includes(`Stub answer to: ${earlier}`));
          expect(answers, `turn ${index + 1}: answer to "${earlier}"`).toHaveLength(position < index ? 1 : 0);
        }
      }
    }

    // 1b. The same session moves to another chatflow with memory: the turns it never saw go as
    // history (Flowise prepends them to its memory, empty for this session), the session id too.
    const seenOnce = (call: LlmCall, asked: string[], answered: string[]) => {
      for (const earlier of asked) expect(call.messages.filter((message) => message.role === "user" && message.content.includes(earlier)), `user "${earlier}"`).toHaveLength(1);
      for (const earlier of answered) expect(call.messages.filter((message) => message.role === "assistant" && message.content.includes(`Stub answer to: ${earlier}`)), `answer to "${earlier}"`).toHaveLength(1);
      // ... and in the order they were asked
      const positions = asked.map((earlier) => call.messages.findIndex((message) => message.role === "user" && message.content.includes(earlier)));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    };
    const moved = "Question 4, asked of another chain";
    const movedResult = answer(await universalQuery(client, { question: moved, flow_id: `flowise:${ids.locked}`, session_id: SESSION }));
    expect(movedResult._mcp_metadata.session_context).toEqual({ history_messages: 6, platform_memory: true });
    const movedSent = predictions(front, ids.locked).at(-1)!.request as Record<string, unknown>;
    expect(movedSent["history"]).toHaveLength(6);
    expect(movedSent["overrideConfig"]).toMatchObject({ sessionId: SESSION });
    if (llm) seenOnce(llm.at(-1)!, [...questions, moved], questions);

    // 1c. Back to the first chatflow: its memory holds turns 1-3 but not turn 4, which came after
    // them; prepending would reorder, so every turn goes as history and the session id is withheld.
    const back = "Question 5, back on the first chain";
    const backResult = answer(await universalQuery(client, { question: back, flow_id: `flowise:${ids.memory}`, session_id: SESSION }));
    expect(backResult._mcp_metadata.session_context).toEqual({ history_messages: 8, platform_memory: false });
    const backSent = predictions(front, ids.memory).at(-1)!.request as Record<string, unknown>;
    expect(backSent["history"]).toHaveLength(8);
    expect(backSent["overrideConfig"]).toBeUndefined();
    if (llm) seenOnce(llm.at(-1)!, [...questions, moved, back], [...questions, moved]);

    // 2. Parameters: Override Config enables temperature (0 is applied), not maxTokens.
    const tuned = answer(await universalQuery(client, { question: "A precise answer, please", flow_id: `flowise:${ids.memory}`, parameters: { temperature: 0, max_tokens: 50 } }));
    expect(tuned._mcp_metadata.parameters_applied).toEqual(["temperature"]);
    expect(tuned._mcp_metadata.parameters_ignored).toEqual([{ parameter: "max_tokens", reason: expect.stringContaining("not enabled for override") }]);
    const tunedSent = predictions(front, ids.memory).at(-1)!.request as { overrideConfig?: Record<string, unknown> };
    expect(tunedSent.overrideConfig).toEqual({ temperature: "0" });
    if (llm) {
      expect(llm.at(-1)!.temperature).toBe(0);
      expect(llm.at(-1)!.maxTokens).toBeUndefined();
    }

    // 3. A chatflow without Override Config: nothing applies, and the answer says so.
    const locked = answer(await universalQuery(client, { question: "A warm answer, please", flow_id: `flowise:${ids.locked}`, parameters: { temperature: 1.2 } }));
    expect(locked._mcp_metadata.parameters_applied).toEqual([]);
    expect(locked._mcp_metadata.parameters_ignored).toEqual([{ parameter: "temperature", reason: expect.stringContaining("does not accept API overrides") }]);
    expect((predictions(front, ids.locked).at(-1)!.request as Record<string, unknown>)["overrideConfig"]).toBeUndefined();
    if (llm) expect(llm.at(-1)!.temperature).toBe(0.5);

    // 4. Streaming: tokens arrive as progress, the answer is whole.
    const streamed = await universalQuery(client, { question: "Stream the answer", flow_id: `flowise:${ids.memory}`, session_id: `${SESSION}-stream` }, { stream: true });
    const streamedResult = answer(streamed);
    expect(streamedResult.result).toContain("Stub answer to: Stream the answer");
    expect(streamed.kind === "answer" && streamed.progress.length).toBeGreaterThan(1);
    expect((predictions(front, ids.memory).at(-1)!.request as Record<string, unknown>)["streaming"]).toBe(true);

    // 5. A chatflow deleted after discovery: FLOW_NOT_FOUND, streaming or not.
    await context.deleteFlow?.();
    for (const stream of [false, true]) {
      const error = failure(await universalQuery(client, { question: "Are you still there?", flow_id: `flowise:${ids.deleted}` }, { stream }));
      expect(`${error.code} ${error.last_error ?? ""} ${error.error}`, `stream: ${stream}`).toContain("FLOW_NOT_FOUND");
    }
  } finally {
    await client.close();
    await gateway.close();
  }

  // 6. A wrong key: health says so, and a query's error names the cause.
  const wrong = await gatewayFor(front, "afw-test-secret-flowise-e2e-wrong-key");
  try {
    const health = parseReply<Record<string, unknown>>(await wrong.client.callTool({ name: "health_check", arguments: {} }));
    expect(JSON.stringify(health.body)).toContain("BACKEND_AUTH_FAILED");
    const refused = failure(await universalQuery(wrong.client, { question: "Anyone?" }));
    expect(JSON.stringify(refused)).toMatch(/API key|BACKEND_AUTH_FAILED/);
  } finally {
    await wrong.client.close();
    await wrong.gateway.close();
  }
}

const recording = JSON.parse(readFileSync(FIXTURE, "utf8")) as FlowiseRecording;
const KEY = "afw-test-secret-flowise-replay-key";

describe("the gateway against recorded Flowise 3.1.2 replies", () => {
  it("session memory, parameters, streaming, a deleted chatflow and a wrong key", async () => {
    expect(recording.flowise).toBe("3.1.2");
    const front = await startReplayServer(recording, KEY);
    try {
      await runFlowiseScenario({ front, apiKey: KEY, ids: recording.ids as FlowiseRecording["ids"] & { memory: string; locked: string; deleted: string } });
      expect(front.unmatched).toEqual([]);
    } finally {
      await front.close();
    }
  }, 120_000);
});

const ENABLED = process.env["AFW_FLOWISE_REAL"] === "1";
if (!ENABLED) {
  console.warn("[@afw/reliability] real-Flowise suite skipped: set AFW_FLOWISE_REAL=1 to run it (installs Flowise 3.1.2 from npm on first use; its recorded replay always runs).");
}

describe.skipIf(!ENABLED)("the gateway against a real Flowise 3.1.2", () => {
  it("session memory, parameters, streaming, a deleted chatflow and a wrong key", async () => {
    const flowise = await startRealFlowise();
    const front = await startRecordingProxy(flowise.url, flowise.apiKey);
    try {
      await runFlowiseScenario({ front, apiKey: flowise.apiKey, ids: flowise.ids, llm: flowise.llm, deleteFlow: () => flowise.deleteFlow() });
      if (process.env["AFW_FLOWISE_RECORD"] === "1") {
        const recording: FlowiseRecording = { flowise: FLOWISE_VERSION, recordedAt: new Date().toISOString(), ids: flowise.ids, exchanges: front.exchanges };
        // The key is recorded only as valid/invalid; the replay gets a key of its own.
        writeFileSync(FIXTURE, `${JSON.stringify(recording, null, 1).replaceAll(flowise.apiKey, "<api-key>")}\n`);
      }
    } finally {
      await front.close();
      await flowise.close();
    }
  }, 600_000);
});
