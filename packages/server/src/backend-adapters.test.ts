import { describe, expect, it } from "vitest";
import { adapterSettings } from "./backend-adapters.js";
import { BackendConfigSchema } from "./config-schema.js";

describe("adapterSettings", () => {
  it("passes a configured stream first-byte timeout to the adapter, and leaves the adapter's default otherwise", () => {
    const base = { id: "flowise", kind: "flowise", baseURL: "http://127.0.0.1:3000" };
    expect(adapterSettings(BackendConfigSchema.parse({ ...base, streamFirstByteTimeoutMs: 2_500 })).timeouts).toEqual({ requestTimeoutMs: 30_000, streamFirstByteTimeoutMs: 2_500 });
    expect(adapterSettings(BackendConfigSchema.parse(base)).timeouts).toEqual({ requestTimeoutMs: 30_000 });
    expect(BackendConfigSchema.safeParse({ ...base, streamFirstByteTimeoutMs: 0 }).success).toBe(false);
  });
});
