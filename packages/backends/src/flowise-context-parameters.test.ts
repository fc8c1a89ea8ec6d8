import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "@afw/contracts";
import { createFlowiseBackend } from "./flowise-backend.js";
import { planContext, readFlowiseProfile } from "./flowise-flow-profile.js";
import { startFlowiseServer } from "./testing/flowise-server.js";
import type { MockPlatformServer } from "./testing/mock-server.js";

// Issue 20 M1 (parameters silently dropped) and M2 (context doubled), against the local Flowise
// reproduction, which applies overrides and memory the way Flowise 3.1.2 does.
const MEMORY = "11111111-aaaa-4aaa-8aaa-111111111111";
const OTHER = "22222222-bbbb-4bbb-8bbb-222222222222";
const STATELESS = "33333333-cccc-4ccc-8ccc-333333333333";
const LOCKED = "44444444-dddd-4ddd-8ddd-444444444444";
const PARTIAL = "55555555-eeee-4eee-8eee-555555555555";
const llm = () => [{ id: "chatOpenAI_0", label: "ChatOpenAI", name: "chatOpenAI", category: "Chat Models", params: { temperature: 0.9, maxTokens: 256 } }];
const key = (flowId: string) => `fw:${flowId}`;

describe("Flowise context and parameters", () => {
  let server: MockPlatformServer;
  const backend = () => createFlowiseBackend({ id: "fw", baseURL: server.url });
  const lastRun = () => server.runs.at(-1)!;
  const lastBody = () => server.requests.filter((request) => request.route === "run").at(-1)!.body as Record<string, unknown>;

  beforeAll(async () => {
    server = await startFlowiseServer({});
  });
  beforeEach(() => {
    server.reset();
    server.addFlow({ id: MEMORY, name: "With memory", nodes: llm() });
    server.addFlow({ id: OTHER, name: "Other with memory", nodes: llm() });
    server.addFlow({ id: STATELESS, name: "No memory", nodes: llm(), memory: false });
    server.addFlow({ id: LOCKED, name: "Overrides off", nodes: llm(), overridable: false });
    server.addFlow({ id: PARTIAL, name: "Temperature only", nodes: llm(), overridable: ["temperature"] });
  });
  afterAll(() => server.close());

  /** Runs turns like the gateway does: history of earlier turns, each marked with the flow that remembers it. */
  async function converse(flowise: ReturnType<typeof backend>, turns: Array<{ flowId: string; question: string }>, sessionId: string) {
    const history: ChatMessage[] = [];
    const seen: ChatMessage[][] = [];
    for (const turn of turns) {
      const result = await flowise.execute({ flowId: turn.flowId, question: turn.question, sessionId, history: [...history] });
      seen.push(lastRun().history.map(({ role, content }) => ({ role, content })));
      const rememberedBy = result.delivery?.context?.platformMemory ? key(turn.flowId) : undefined;
      history.push({ role: "user", content: turn.question, ...(rememberedBy ? { rememberedBy } : {}) }, { role: "assistant", content: result.text, ...(rememberedBy ? { rememberedBy } : {}) });
    }
    const plain = history.map(({ role, content }) => ({ role, content }));
    // The model sees each earlier turn exactly once (through the platform's memory or as history).
    expect(seen).toEqual(turns.map((_, index) => plain.slice(0, 2 * index)));
  }

  it("three turns on a flow with memory: the model sees each earlier turn exactly once, through the platform's memory", async () => {
    const flowise = backend();
    await flowise.discoverFlows();
    await converse(flowise, [1, 2, 3].map((n) => ({ flowId: MEMORY, question: `question ${n}` })), "s-memory");
    expect(lastBody()["history"]).toBeUndefined();
    expect(lastBody()["overrideConfig"]).toEqual({ sessionId: "s-memory" });
  });

  it("learns memory from the reply's memoryType when discovery did not run", async () => {
    const flowise = backend();
    await converse(flowise, [1, 2, 3].map((n) => ({ flowId: MEMORY, question: `q${n}` })), "s-learned");
  });

  it("a flow without memory gets every earlier turn as history", async () => {
    const flowise = backend();
    await flowise.discoverFlows();
    await converse(flowise, [1, 2, 3].map((n) => ({ flowId: STATELESS, question: `q${n}` })), "s-stateless");
    expect(lastBody()["history"]).toHaveLength(4);
  });

  it("switching flows: turns the new flow never saw go as history, before what its memory holds", async () => {
    const flowise = backend();
    await flowise.discoverFlows();
    await converse(flowise, [{ flowId: OTHER, question: "first, elsewhere" }, { flowId: MEMORY, question: "second" }, { flowId: MEMORY, question: "third" }], "s-switch");
    expect(lastBody()["history"]).toHaveLength(2);
  });

  it("a turn answered elsewhere after one the flow remembers: all history, no session id (no doubling, no reordering)", async () => {
    const flowise = backend();
    await flowise.discoverFlows();
    await converse(flowise, [{ flowId: MEMORY, question: "one" }, { flowId: OTHER, question: "two" }, { flowId: MEMORY, question: "three" }], "s-interleaved");
    expect(lastBody()["overrideConfig"]).toBeUndefined();
    expect(lastBody()["history"]).toHaveLength(4);
  });

  it("reports parameters the chatflow applies, and sends temperature 0 so that Flowise applies it", async () => {
    const flowise = backend();
    await flowise.discoverFlows();
    const result = await flowise.execute({ flowId: MEMORY, question: "q", parameters: { temperature: 0, maxTokens: 42 } });
    expect(result.delivery?.parameters).toEqual({ applied: ["temperature", "maxTokens"], ignored: [], unverified: [] });
    expect(lastRun().nodeParams["chatOpenAI_0"]).toEqual({ temperature: 0, maxTokens: 42 });
  });

  it("reports parameters a chatflow ignores, with why, and does not send them", async () => {
    const flowise = backend();
    await flowise.discoverFlows();
    const locked = await flowise.execute({ flowId: LOCKED, question: "q", parameters: { temperature: 0.2, maxTokens: 10 } });
    expect(locked.delivery?.parameters?.applied).toEqual([]);
    expect(locked.delivery?.parameters?.ignored.map((entry) => entry.parameter)).toEqual(["temperature", "maxTokens"]);
    expect(locked.delivery?.parameters?.ignored[0]?.reason).toMatch(/does not accept API overrides.*Override Config/);
    expect(lastBody()["overrideConfig"]).toBeUndefined();
    expect(lastRun().nodeParams["chatOpenAI_0"]).toEqual({ temperature: 0.9, maxTokens: 256 });

    const partial = await flowise.execute({ flowId: PARTIAL, question: "q", parameters: { temperature: 0.2, maxTokens: 10 } });
    expect(partial.delivery?.parameters?.applied).toEqual(["temperature"]);
    expect(partial.delivery?.parameters?.ignored).toEqual([{ parameter: "maxTokens", reason: expect.stringMatching(/'maxTokens' of 'ChatOpenAI' is not enabled for override/) }]);
    expect(lastRun().nodeParams["chatOpenAI_0"]).toEqual({ temperature: 0.2, maxTokens: 256 });
  });

  it("never claims a parameter applied when the chatflow's configuration was not read", async () => {
    const result = await backend().execute({ flowId: PARTIAL, question: "q", parameters: { maxTokens: 10 } });
    expect(result.delivery?.parameters).toEqual({ applied: [], ignored: [], unverified: ["maxTokens"] });
  });
});

describe("readFlowiseProfile and planContext", () => {
  const graph = (nodes: unknown[], edges: unknown[] = []) => JSON.stringify({ nodes, edges });
  const node = (id: string, name: string, category: string, inputs: Record<string, unknown> = {}) => ({ id, data: { id, name, label: name, category, inputs } });

  it("finds memory the way Flowise does", () => {
    expect(readFlowiseProfile(graph([node("bufferMemory_0", "bufferMemory", "Memory")], [{ source: "bufferMemory_0", target: "x" }]), null)?.memory).toBe(true);
    expect(readFlowiseProfile(graph([node("bufferMemory_0", "bufferMemory", "Memory")]), null)?.memory).toBe(false); // not wired
    expect(readFlowiseProfile(graph([node("seqStart_0", "seqStart", "Sequential Agents", { agentMemory: "{{agentMemory_0.data.instance}}" })]), null)?.memory).toBe(true);
    expect(readFlowiseProfile(graph([node("agent_0", "agentAgentflow", "Agent Flows", { agentEnableMemory: true })]), null)?.memory).toBe(true);
    expect(readFlowiseProfile(graph([node("llm_0", "llmAgentflow", "Agent Flows", { llmEnableMemory: false })]), null)?.memory).toBe(false);
    expect(readFlowiseProfile("not json", null)).toBeUndefined();
    expect(readFlowiseProfile(undefined, null)).toBeUndefined();
  });

  it("reads the override setting", () => {
    const apiConfig = JSON.stringify({ overrideConfig: { status: true, nodes: { ChatOpenAI: [{ name: "temperature", enabled: true }, { name: "maxTokens", enabled: false }] } } });
    const profile = readFlowiseProfile(graph([node("chatOpenAI_0", "ChatOpenAI", "Chat Models", { temperature: "0.9", maxTokens: "" })]), apiConfig);
    expect(profile?.overridesEnabled).toBe(true);
    expect([...(profile?.enabledByLabel.get("ChatOpenAI") ?? [])]).toEqual(["temperature"]);
    expect(readFlowiseProfile(graph([]), "{broken")?.overridesEnabled).toBe(false);
  });

  it("plans each earlier message exactly once", () => {
    const mine = (content: string): ChatMessage => ({ role: "user", content, rememberedBy: "b:f" });
    const other = (content: string): ChatMessage => ({ role: "user", content });
    expect(planContext([mine("a"), mine("b")], "b:f", true)).toEqual({ history: [], sendSessionId: true, platformMemory: true });
    expect(planContext([other("a"), mine("b")], "b:f", true)).toEqual({ history: [other("a")], sendSessionId: true, platformMemory: true });
    expect(planContext([mine("a"), other("b")], "b:f", true)).toEqual({ history: [mine("a"), other("b")], sendSessionId: false, platformMemory: false });
    expect(planContext([mine("a")], "b:f", false)).toEqual({ history: [mine("a")], sendSessionId: true, platformMemory: false });
  });
});
