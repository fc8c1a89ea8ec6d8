import { describe, expect, it } from "vitest";
import { extractFlowiseText, FlowisePredictionSchema, parseFollowUpPrompts } from "./flowise-reply.js";

const parse = (value: unknown) => FlowisePredictionSchema.parse(value);

describe("extractFlowiseText", () => {
  it("reads `text` of a chatflow reply", () => {
    const reply = parse({ text: "Paris is the capital.", question: "Capital?", chatId: "c", chatMessageId: "m", isStreamValid: false, sessionId: "s", memoryType: "Buffer Memory" });
    expect(extractFlowiseText(reply)).toBe("Paris is the capital.");
  });

  it("reads a string field of `json` (structured output) or the JSON itself", () => {
    expect(extractFlowiseText(parse({ json: { answer: "42", confidence: 0.9 }, question: "q" }))).toBe("42");
    expect(extractFlowiseText(parse({ json: { rows: [1, 2] } }))).toBe('{"rows":[1,2]}');
    expect(extractFlowiseText(parse({ json: "plain" }))).toBe("plain");
  });

  it("reads the last node output of an agentflow v2 reply", () => {
    const reply = parse({
      executionId: "e",
      agentFlowExecutedData: [
        { nodeId: "startAgentflow_0", data: { output: { question: "q" } }, status: "FINISHED" },
        { nodeId: "llmAgentflow_0", data: { output: { content: "Agent answer", usageMetadata: { input_tokens: 1 } } }, status: "FINISHED" },
        { nodeId: "directReplyAgentflow_0", data: { output: {} }, status: "FINISHED" },
      ],
    });
    expect(extractFlowiseText(reply)).toBe("Agent answer");
  });

  it("reads the last message of agentReasoning (multi-agent flows)", () => {
    const reply = parse({ text: "", agentReasoning: [{ agentName: "Supervisor", messages: ["routing"] }, { agentName: "Worker", messages: ["first", "Final worker answer"] }] });
    expect(extractFlowiseText(reply)).toBe("Final worker answer");
  });

  it("prefers `text` over other shapes", () => {
    expect(extractFlowiseText(parse({ text: "from text", json: { answer: "from json" } }))).toBe("from text");
  });

  it("returns an explicitly empty text, and undefined when there is no answer at all", () => {
    expect(extractFlowiseText(parse({ text: "" }))).toBe("");
    expect(extractFlowiseText(parse({ chatId: "c" }))).toBeUndefined();
  });

  it("accepts extra fields and nulls but rejects wrong types on fields it uses", () => {
    expect(FlowisePredictionSchema.safeParse({ text: "x", brandNewField: { a: 1 }, sessionId: null }).success).toBe(true);
    expect(FlowisePredictionSchema.safeParse({ text: 42 }).success).toBe(false);
    expect(FlowisePredictionSchema.safeParse({ text: "x", sourceDocuments: "nope" }).success).toBe(false);
  });
});

describe("parseFollowUpPrompts", () => {
  it("parses Flowise's JSON-string form and accepts arrays", () => {
    expect(parseFollowUpPrompts('["a","b"]')).toEqual(["a", "b"]);
    expect(parseFollowUpPrompts(["c"])).toEqual(["c"]);
    expect(parseFollowUpPrompts("not json")).toBeUndefined();
    expect(parseFollowUpPrompts(null)).toBeUndefined();
  });
});
