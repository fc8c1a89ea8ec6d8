import { describe, expect, it } from "vitest";
import { AfwError, FlowExecutionRequestSchema } from "@afw/contracts";
import { parseExecutionRequest, plainExecutionRequest } from "./adapter-common.js";

const valid: unknown[] = [
  { flowId: "f", question: "q" },
  { flowId: "f", question: "q", sessionId: "s", timeoutMs: 5_000, requestId: "r" },
  { flowId: "f", question: "q", sessionId: undefined, timeoutMs: undefined, requestId: undefined },
  { flowId: "f", question: "q", history: undefined, parameters: undefined, uploads: undefined },
  { flowId: "f", question: "q", stream: false, extra: { nested: true } },
  { question: "q", flowId: "f", timeoutMs: Number.MAX_SAFE_INTEGER },
];

const invalid: unknown[] = [
  null,
  "f",
  {},
  { flowId: "", question: "q" },
  { flowId: "f", question: "" },
  { flowId: "f", question: 1 },
  { flowId: 1, question: "q" },
  { flowId: "f", question: "q", sessionId: 3 },
  { flowId: "f", question: "q", requestId: null },
  { flowId: "f", question: "q", timeoutMs: 0 },
  { flowId: "f", question: "q", timeoutMs: -1 },
  { flowId: "f", question: "q", timeoutMs: 1.5 },
  { flowId: "f", question: "q", timeoutMs: Number.NaN },
  { flowId: "f", question: "q", timeoutMs: Number.POSITIVE_INFINITY },
  { flowId: "f", question: "q", timeoutMs: 2 ** 60 },
  { flowId: "f", question: "q", timeoutMs: "5" },
];

describe("parseExecutionRequest", () => {
  it("returns what the schema returns for the common request, keys and order included", () => {
    for (const request of valid) {
      const expected = FlowExecutionRequestSchema.parse(request);
      expect(plainExecutionRequest(request)).toStrictEqual(expected);
      expect(Object.keys(plainExecutionRequest(request)!)).toEqual(Object.keys(expected));
      expect(parseExecutionRequest(request as never)).toStrictEqual(expected);
    }
  });

  it("leaves every request the schema refuses to the schema, with its error", () => {
    for (const request of invalid) {
      expect(FlowExecutionRequestSchema.safeParse(request).success).toBe(false);
      expect(plainExecutionRequest(request)).toBeUndefined();
      expect(() => parseExecutionRequest(request as never)).toThrow(AfwError);
    }
  });

  it("leaves history, parameters and uploads to the schema", () => {
    const request = { flowId: "f", question: "q", history: [{ role: "user", content: "hi" }], parameters: { temperature: 0.2 } };
    expect(plainExecutionRequest(request)).toBeUndefined();
    expect(parseExecutionRequest(request as never)).toStrictEqual(FlowExecutionRequestSchema.parse(request));
    expect(() => parseExecutionRequest({ flowId: "f", question: "q", history: [{ role: "robot", content: "hi" }] } as never)).toThrow(/flow execution request/);
  });
});
