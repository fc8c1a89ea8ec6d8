import { describe, expect, it } from "vitest";
import { closeAfter } from "@afw/testing";
import type { McpSessionRecord, McpSessionRegistry } from "@afw/contracts";

/** The MCP session registry under test. */
export interface McpSessionRegistryHarness {
  registry: McpSessionRegistry;
  /** A second handle on the same data (Redis: another connection, as another gateway instance). */
  other: McpSessionRegistry;
  /** Moves time forward by `ms` (memory: the injected clock; Redis: real time passes). */
  advance(ms: number): Promise<void>;
  /** Whether `advance` is cheap (an injected clock) or really waits. */
  realTime: boolean;
  close(): Promise<void>;
}

/** Creates fresh, empty registries for one test. */
export type McpSessionRegistryFactory = () => Promise<McpSessionRegistryHarness>;

const record = (sessionId: string, extra: Partial<McpSessionRecord> = {}): McpSessionRecord => ({
  sessionId,
  owner: "alice",
  tenant: "t-a",
  protocolVersion: "2025-06-18",
  clientInfo: { name: "suite", version: "1.0.0" },
  createdAt: 1_600_000_000_000,
  lastSeenAt: 1_600_000_000_000,
  ...extra,
});

/** The MCP session registry suite, run against every implementation. */
export function describeMcpSessionRegistrySuite(name: string, factory: McpSessionRegistryFactory): void {
  describe(`MCP session registry conformance: ${name}`, () => {
    const track = closeAfter();
    const create = async () => track(await factory());

    it("stores a session that the other handle finds, with every field", async () => {
      const { registry, other } = await create();
      expect(await registry.create(record("s-1"), { idleTtlMs: 60_000 })).toBe(true);
      expect(await other.get("s-1")).toEqual({ status: "found", record: record("s-1") });
      expect(await other.get("s-2")).toEqual({ status: "absent" });
      const minimal = { sessionId: "s-min", owner: "", protocolVersion: "2025-03-26", createdAt: 5, lastSeenAt: 5 };
      await registry.create(minimal, { idleTtlMs: 60_000 });
      expect(await other.get("s-min")).toEqual({ status: "found", record: minimal });
    });

    it("touch refreshes lastSeenAt for the owner and refuses another owner without refreshing", async () => {
      const { registry, other } = await create();
      await registry.create(record("s-1"), { idleTtlMs: 60_000 });
      const touched = await other.touch("s-1", { owner: "alice", idleTtlMs: 60_000 });
      expect(touched.status).toBe("found");
      const seen = touched.status === "found" ? touched.record.lastSeenAt : -1;
      expect(seen).toBeGreaterThan(1_600_000_000_000);
      expect(touched.status === "found" && touched.record.createdAt).toBe(1_600_000_000_000);
      expect(await registry.get("s-1")).toMatchObject({ status: "found", record: { lastSeenAt: seen } });
      expect(await other.touch("s-1", { owner: "bob", idleTtlMs: 60_000 })).toEqual({ status: "forbidden" });
      expect(await other.touch("s-1", { owner: "", idleTtlMs: 60_000 })).toEqual({ status: "forbidden" });
      expect(await registry.touch("nope", { owner: "alice", idleTtlMs: 60_000 })).toEqual({ status: "absent" });
    });

    it("an empty owner (no auth) matches only the empty owner", async () => {
      const { registry } = await create();
      await registry.create(record("s-open", { owner: "" }), { idleTtlMs: 60_000 });
      expect((await registry.touch("s-open", { owner: "", idleTtlMs: 60_000 })).status).toBe("found");
      expect(await registry.touch("s-open", { owner: "alice", idleTtlMs: 60_000 })).toEqual({ status: "forbidden" });
    });

    it("delete removes a session for every handle and reports whether it existed", async () => {
      const { registry, other } = await create();
      await registry.create(record("s-1"), { idleTtlMs: 60_000 });
      expect(await other.delete("s-1")).toBe(true);
      expect(await registry.get("s-1")).toEqual({ status: "absent" });
      expect(await registry.touch("s-1", { owner: "alice", idleTtlMs: 60_000 })).toEqual({ status: "absent" });
      expect(await registry.delete("s-1")).toBe(false);
    });

    it("expires a session idleTtlMs after its latest touch", async () => {
      const { registry, other, advance } = await create();
      // With real Redis, TTLs run on wall time: each step leaves 800 ms of slack, so a busy host that
      // delays a step by less than that cannot let the key expire early.
      await registry.create(record("s-1"), { idleTtlMs: 2000 });
      await advance(1200);
      expect((await other.touch("s-1", { owner: "alice", idleTtlMs: 2000 })).status).toBe("found");
      await advance(1200);
      // 2.4 s after creation, 1.2 s after the touch: still there only because the touch extended it.
      expect((await registry.get("s-1")).status).toBe("found");
      await advance(2100);
      expect(await registry.get("s-1")).toEqual({ status: "absent" });
      expect(await registry.touch("s-1", { owner: "alice", idleTtlMs: 2000 })).toEqual({ status: "absent" });
    });

    it("creating an existing id replaces the record", async () => {
      const { registry, other } = await create();
      await registry.create(record("s-1"), { idleTtlMs: 60_000 });
      await other.create(record("s-1", { owner: "bob", tenant: undefined }), { idleTtlMs: 60_000 });
      const lookup = await registry.get("s-1");
      expect(lookup).toMatchObject({ status: "found", record: { owner: "bob" } });
      expect(lookup.status === "found" && "tenant" in lookup.record && lookup.record.tenant !== undefined).toBe(false);
    });

    it("treats ids with special characters as distinct opaque ids", async () => {
      const { registry } = await create();
      await registry.create(record("a:{b}"), { idleTtlMs: 60_000 });
      expect((await registry.get("a:{b}")).status).toBe("found");
      expect((await registry.get("a:{b")).status).toBe("absent");
      expect((await registry.get("a:*")).status).toBe("absent");
      expect(await registry.get("")).toEqual({ status: "absent" });
      expect(await registry.get("x".repeat(10_000))).toEqual({ status: "absent" });
    });

    it("rejects invalid records and TTLs with INVALID_INPUT", async () => {
      const { registry } = await create();
      await expect(registry.create({ ...record("s-1"), protocolVersion: "" }, { idleTtlMs: 60_000 })).rejects.toMatchObject({ code: "INVALID_INPUT" });
      await expect(registry.create(record("bad id"), { idleTtlMs: 60_000 })).rejects.toMatchObject({ code: "INVALID_INPUT" });
      await expect(registry.create(record("s-1"), { idleTtlMs: 0 })).rejects.toMatchObject({ code: "INVALID_INPUT" });
      await expect(registry.touch("s-1", { owner: "alice", idleTtlMs: Number.NaN })).rejects.toMatchObject({ code: "INVALID_INPUT" });
      expect(await registry.get("s-1")).toEqual({ status: "absent" });
    });
  });
}
