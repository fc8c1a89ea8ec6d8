import { describe, expect, it } from "vitest";
import { cleanMessage, errorFromStatus, errorFromStreamEvent, errorMessageFromBody } from "./error-mapping.js";

const context = { backendId: "b", kind: "flowise", operation: "execute", flowId: "f", secrets: ["sk-super-secret-key"] };

describe("errorMessageFromBody", () => {
  it("reads Flowise {statusCode, success, message, stack} without the stack", () => {
    const body = JSON.stringify({ statusCode: 404, success: false, message: "Chatflow f not found", stack: "Error: at x.js:1:1" });
    expect(errorMessageFromBody(body)).toBe("Chatflow f not found");
  });

  it("reads Flowise's auth body and FastAPI details", () => {
    expect(errorMessageFromBody('{"error":"Unauthorized Access"}')).toBe("Unauthorized Access");
    expect(errorMessageFromBody('{"detail":"Flow not found"}')).toBe("Flow not found");
    expect(errorMessageFromBody('{"detail":[{"loc":["body","input_value"],"msg":"field required","type":"missing"}]}')).toBe("body.input_value: field required");
  });

  it("reads a FastAPI detail that is a JSON string, never its traceback", () => {
    const detail = JSON.stringify({ message: "Error running graph", traceback: "Traceback (most recent call last): secret", code: "500" });
    const message = errorMessageFromBody(JSON.stringify({ detail }));
    expect(message).toBe("Error running graph");
  });

  it("keeps one line of plain text and drops HTML pages", () => {
    expect(errorMessageFromBody("Bad gateway\nmore")).toBe("Bad gateway");
    expect(errorMessageFromBody("<html><body>oops</body></html>")).toBeUndefined();
    expect(errorMessageFromBody("")).toBeUndefined();
  });
});

describe("errorFromStatus", () => {
  it("maps Flowise's 500 'Unauthorized' on prediction to a non-retryable auth failure", () => {
    const error = errorFromStatus(500, JSON.stringify({ statusCode: 500, success: false, message: "Error: predictionsServices.buildChatflow - Unauthorized" }), null, context);
    expect(error.code).toBe("BACKEND_AUTH_FAILED");
    expect(error.isRetryable).toBe(false);
    expect(error.statusCode).toBe(500);
  });

  it("maps a 400 about a bad id on a flow call to FLOW_NOT_FOUND, other 400s to a bad request", () => {
    expect(errorFromStatus(400, '{"detail":"badly formed hexadecimal UUID string"}', null, context).code).toBe("FLOW_NOT_FOUND");
    expect(errorFromStatus(400, '{"detail":"tweak is invalid"}', null, context).code).toBe("BACKEND_BAD_RESPONSE");
  });

  it("maps Flowise's 400 'Invalid Chatflow ID' and its wrapped 500 'Chatflow … not found' to FLOW_NOT_FOUND", () => {
    expect(errorFromStatus(400, '{"statusCode":400,"success":false,"message":"Invalid Chatflow ID","stack":{}}', null, context).code).toBe("FLOW_NOT_FOUND");
    const wrapped = errorFromStatus(500, JSON.stringify({ statusCode: 500, success: false, message: "Error: chatflowsService.checkIfChatflowIsValidForStreaming - Chatflow f not found", stack: {} }), null, context);
    expect(wrapped.code).toBe("FLOW_NOT_FOUND");
    expect(wrapped.isRetryable).toBe(false);
    expect(errorFromStatus(500, '{"message":"upstream model not reachable"}', null, context).code).toBe("BACKEND_UNAVAILABLE");
  });

  it("maps a 404 outside a flow call to a bad response, not FLOW_NOT_FOUND", () => {
    expect(errorFromStatus(404, "", null, { ...context, flowId: undefined }).code).toBe("BACKEND_BAD_RESPONSE");
  });

  it("parses Retry-After as seconds or as a date", () => {
    expect(errorFromStatus(429, "", "2", context).details?.["retryAfterMs"]).toBe(2000);
    const later = new Date(Date.now() + 10_000).toUTCString();
    expect(errorFromStatus(429, "", later, context).details?.["retryAfterMs"]).toBeGreaterThan(5_000);
  });

  it("redacts secrets echoed by the backend", () => {
    const error = errorFromStatus(500, JSON.stringify({ message: "bad key sk-super-secret-key" }), null, context);
    expect(error.message).not.toContain("sk-super-secret-key");
    expect(error.message).toContain("[REDACTED]");
  });

  it("redacts the key quoted base64-encoded, as base64 of `Bearer <key>`, base64url and URL-encoded", () => {
    const key = "sk-super-secret-key";
    for (const form of [
      Buffer.from(key).toString("base64"),
      Buffer.from(`Bearer ${key}`).toString("base64"),
      Buffer.from(`user:${key}`).toString("base64url"),
      encodeURIComponent(`${key}/+`),
    ]) {
      const error = errorFromStatus(401, JSON.stringify({ message: `rejected credentials ${form}` }), null, context);
      expect(error.message).toContain("[REDACTED]");
      expect(error.message).not.toContain(Buffer.from(key).toString("base64").slice(2, 20));
      expect(error.message).not.toContain(Buffer.from(key).toString("base64url").slice(2, 20));
    }
  });
});

describe("errorFromStreamEvent", () => {
  it("maps auth and generic mid-stream errors", () => {
    expect(errorFromStreamEvent("Error: predictionsServices.buildChatflow - Unauthorized", context).code).toBe("BACKEND_AUTH_FAILED");
    const generic = errorFromStreamEvent("429 rate limit from upstream", context);
    expect(generic.code).toBe("BACKEND_UNAVAILABLE");
    expect(generic.isRetryable).toBe(true);
  });
});

describe("cleanMessage", () => {
  it("removes configured secrets, bearer tokens and key-looking values, and bounds length", () => {
    expect(cleanMessage("Authorization: Bearer abcdefghijkl", [])).toBe("Authorization: Bearer [REDACTED]");
    expect(cleanMessage('{"x-api-key": "lf-1234567890"}', [])).not.toContain("lf-1234567890");
    expect(cleanMessage("key sk-abcdefghijklmnop", [])).toBe("key [REDACTED]");
    expect(cleanMessage("x".repeat(1000)).length).toBeLessThanOrEqual(300);
  });
});
