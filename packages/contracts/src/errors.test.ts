import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isRetryableStatus } from "./errors.js";
import { AfwError, BackendError, parseOrThrow, toAfwError, ERROR_CODES } from "./index.js";

describe("AfwError", () => {
  it("carries a stable code, cause and details", () => {
    const cause = new Error("socket hang up");
    const error = new AfwError("CONFIG_INVALID", "bad config", { cause, details: { path: "a.b" } });
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.cause).toBe(cause);
    expect(error.toJSON()).toEqual({ code: "CONFIG_INVALID", message: "bad config", details: { path: "a.b" } });
    expect(error).toBeInstanceOf(Error);
  });

  it("isInstance recognises errors across copies by marker, not prototype", () => {
    const error = new AfwError("INTERNAL", "x");
    const foreign = Object.assign(Object.create(Error.prototype), { [Symbol.for("afw.error")]: true, code: "INTERNAL" });
    expect(AfwError.isInstance(error)).toBe(true);
    expect(AfwError.isInstance(foreign)).toBe(true);
    expect(AfwError.isInstance(new Error("x"))).toBe(false);
    expect(AfwError.isInstance(null)).toBe(false);
    expect(AfwError.isInstance("INTERNAL")).toBe(false);
  });

  it("lists the codes every package relies on", () => {
    for (const code of ["INVALID_INPUT", "ALL_BACKENDS_FAILED", "TOOL_NOT_FOUND", "CACHE_UNAVAILABLE", "UNAUTHORIZED"]) {
      expect(ERROR_CODES).toContain(code);
    }
  });
});

describe("BackendError", () => {
  it.each([
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
    [400, false],
    [401, false],
    [404, false],
  ])("status %i retryable=%s", (status, retryable) => {
    expect(isRetryableStatus(status)).toBe(retryable);
    expect(new BackendError("BACKEND_UNAVAILABLE", "x", { statusCode: status }).isRetryable).toBe(retryable);
  });

  it("derives retryability from the code when no status is known", () => {
    expect(new BackendError("BACKEND_TIMEOUT", "t").isRetryable).toBe(true);
    expect(new BackendError("BACKEND_UNAVAILABLE", "refused").isRetryable).toBe(true);
    expect(new BackendError("BACKEND_AUTH_FAILED", "no").isRetryable).toBe(false);
    expect(new BackendError("FLOW_NOT_FOUND", "no").isRetryable).toBe(false);
  });

  it("never retries auth failures even on a 500 (Flowise answers 500 Unauthorized)", () => {
    expect(new BackendError("BACKEND_AUTH_FAILED", "Unauthorized", { statusCode: 500 }).isRetryable).toBe(false);
  });

  it("lets the caller override retryability", () => {
    expect(new BackendError("BACKEND_BAD_RESPONSE", "x", { isRetryable: false }).isRetryable).toBe(false);
  });

  it("is an AfwError and is recognised by both isInstance checks", () => {
    const error = new BackendError("BACKEND_TIMEOUT", "t", { backendId: "flowise", statusCode: 504 });
    expect(AfwError.isInstance(error)).toBe(true);
    expect(BackendError.isInstance(error)).toBe(true);
    expect(BackendError.isInstance(new AfwError("INTERNAL", "x"))).toBe(false);
    expect(error.toJSON().details).toMatchObject({ statusCode: 504, isRetryable: true, backendId: "flowise" });
  });
});

describe("helpers", () => {
  it("toAfwError keeps AfwErrors and hides unknown messages behind INTERNAL", () => {
    const known = new AfwError("NOT_FOUND", "x");
    expect(toAfwError(known)).toBe(known);
    const wrapped = toAfwError(new Error("secret-token-123 leaked"));
    expect(wrapped.code).toBe("INTERNAL");
    expect(wrapped.message).not.toContain("secret");
  });

  it("parseOrThrow returns data or throws INVALID_INPUT with the path", () => {
    const schema = z.object({ n: z.number() });
    expect(parseOrThrow(schema, { n: 1 })).toEqual({ n: 1 });
    try {
      parseOrThrow(schema, { n: "x" }, "CONFIG_INVALID", "config");
      expect.unreachable();
    } catch (error) {
      expect(AfwError.isInstance(error)).toBe(true);
      expect((error as AfwError).code).toBe("CONFIG_INVALID");
      expect((error as AfwError).message).toMatch(/^invalid config: n: /);
    }
  });
});
