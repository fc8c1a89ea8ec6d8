import * as crypto from "node:crypto";
import { describe, expect, it, vi } from "vitest";

// Count the constant-time comparisons (and their operand sizes) the authenticator makes.
const comparisons: { left: number; right: number }[] = [];
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof crypto>();
  return {
    ...actual,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      comparisons.push({ left: a.byteLength, right: b.byteLength });
      return actual.timingSafeEqual(a, b);
    },
  };
});
const { createBearerAuthenticator } = await import("./bearer-auth.js");

const TOKENS = ["afw-test-secret-bearer-aaaaaaaa", { token: "afw-test-secret-bearer-b", name: "ci", tenant: "acme", requestsPerMinute: 5 }, "afw-test-secret-bearer-cccccccccccccccccccccccccccccccc"];

describe("createBearerAuthenticator", () => {
  it("accepts each configured token and names its client (never the token)", () => {
    const auth = createBearerAuthenticator(TOKENS);
    expect(auth.enabled).toBe(true);
    expect(auth.authenticate("Bearer afw-test-secret-bearer-aaaaaaaa")).toEqual({ name: "token-1" });
    expect(auth.authenticate("bearer   afw-test-secret-bearer-b ")).toEqual({ name: "ci", tenant: "acme", requestsPerMinute: 5 });
    expect(JSON.stringify(auth.authenticate("Bearer afw-test-secret-bearer-b"))).not.toContain("afw-test-secret");
  });

  it.each([
    undefined,
    "",
    "Bearer",
    "Bearer ",
    "Basic afw-test-secret-bearer-aaaaaaaa",
    "Bearer afw-test-secret-bearer-aaaaaaa",
    "Bearer afw-test-secret-bearer-aaaaaaaaa",
    "Bearer AFW-TEST-SECRET-BEARER-AAAAAAAA",
    "Bearer afw-test-secret-bearer-aaaaaaaa extra",
    "Bearer afw-test-secret-bearer-aaaaaaaa,afw-test-secret-bearer-b",
    "Bearer\tafw-test-secret-bearer-a\u0000aaaaaaa",
  ])("refuses malformed or wrong header #%#", (header) => {
    expect(createBearerAuthenticator(TOKENS).authenticate(header)).toBeUndefined();
  });

  it("compares fixed-size digests against every token, whatever matches and however long the guess", () => {
    const auth = createBearerAuthenticator(TOKENS);
    for (const header of ["Bearer afw-test-secret-bearer-aaaaaaaa", "Bearer afw-test-secret-bearer-cccccccccccccccccccccccccccccccc", "Bearer x", `Bearer ${"y".repeat(5000)}`]) {
      comparisons.length = 0;
      auth.authenticate(header);
      expect(comparisons, `header of ${header.length} chars`).toHaveLength(TOKENS.length);
      expect(comparisons.every((c) => c.left === 32 && c.right === 32)).toBe(true);
    }
  });

  it("is disabled without tokens and lists the secrets for the redactor", () => {
    expect(createBearerAuthenticator([]).enabled).toBe(false);
    expect(createBearerAuthenticator([]).authenticate("Bearer anything-at-all-000000")).toBeUndefined();
    expect(createBearerAuthenticator(TOKENS).secrets).toEqual(["afw-test-secret-bearer-aaaaaaaa", "afw-test-secret-bearer-b", "afw-test-secret-bearer-cccccccccccccccccccccccccccccccc"]);
  });
});
