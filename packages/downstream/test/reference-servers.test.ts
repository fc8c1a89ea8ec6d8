// End-to-end: aggregate the real reference MCP servers from npm (devDependencies of this package,
// installed from the registry, no install scripts, run on Node 20 with `node <bin>` — no npx).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDownstreamManager, type DownstreamManager, type DownstreamServerConfigInput } from "../src/index.js";
import { firstText, isAlive } from "./helpers.js";

const binOf = (pkg: string) => fileURLToPath(new URL(`../node_modules/@modelcontextprotocol/${pkg}/dist/index.js`, import.meta.url));
const servers = {
  fs: binOf("server-filesystem"),
  memory: binOf("server-memory"),
  everything: binOf("server-everything"),
};
const missing = Object.entries(servers)
  .filter(([, bin]) => !existsSync(bin))
  .map(([name]) => name);
if (missing.length > 0) {
  // Printed so the skip reason shows in the test log.
  console.warn(`reference servers not installed (pnpm install in packages/downstream), skipping: ${missing.join(", ")}`);
}
const installed = (name: keyof typeof servers) => !missing.includes(name);

describe("the real reference servers behind one manager", () => {
  const dir = mkdtempSync(join(tmpdir(), "afw-reference-"));
  let manager: DownstreamManager;
  const pids: number[] = [];

  beforeAll(async () => {
    writeFileSync(join(dir, "notes.txt"), "remember the milk\n");
    process.env.AFW_GATEWAY_SECRET_FOR_TEST = "gateway-only-secret-value";
    const config: DownstreamServerConfigInput[] = [];
    const server = (name: keyof typeof servers, args: string[], settings: Partial<DownstreamServerConfigInput> = {}) =>
      ({ name, transport: "stdio", command: process.execPath, args: [servers[name], ...args], pingIntervalMs: 0, ...settings }) as DownstreamServerConfigInput;
    if (installed("fs")) config.push(server("fs", [dir]));
    if (installed("memory")) config.push(server("memory", [], { env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") }, mode: "cold", idleTimeoutMs: 30_000 }));
    if (installed("everything")) config.push(server("everything", [], { deny: ["toggle-*", "trigger-*", "simulate-*"] }));
    manager = createDownstreamManager({ servers: config });
    manager.onStatusChanged((status) => {
      if (status.pid !== undefined && !pids.includes(status.pid)) pids.push(status.pid);
    });
    await manager.start();
  });

  afterAll(async () => {
    delete process.env.AFW_GATEWAY_SECRET_FOR_TEST;
    await manager?.stop();
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it("connects to every installed server", () => {
    for (const status of manager.status()) {
      expect(status.lastError, status.name).toBeUndefined();
      expect(status.toolsKnown, status.name).toBe(true);
    }
  });

  it.skipIf(!installed("fs"))("lists and calls @modelcontextprotocol/server-filesystem", async () => {
    const names = manager.listTools().filter((t) => t.server === "fs").map((t) => t.namespacedName);
    expect(names).toEqual(expect.arrayContaining(["fs__list_directory", "fs__read_text_file", "fs__write_file", "fs__search_files"]));
    const listing = await manager.callTool("fs__list_directory", { path: dir });
    expect(listing.isError).toBeFalsy();
    expect(firstText(listing)).toContain("[FILE] notes.txt");
    const file = await manager.callTool("fs__read_text_file", { path: join(dir, "notes.txt") });
    expect(firstText(file)).toBe("remember the milk\n");
    // outside the allowed directory: a tool-level error, passed through
    const denied = await manager.callTool("fs__read_text_file", { path: "/etc/hostname" });
    expect(denied.isError).toBe(true);
    expect(firstText(denied)).toMatch(/denied|outside/i);
  });

  it.skipIf(!installed("memory"))("starts the cold @modelcontextprotocol/server-memory on first use and keeps a graph", async () => {
    expect(manager.status().find((s) => s.name === "memory")?.state).toBe("idle");
    expect(manager.getTool("memory__create_entities")?.annotations).toMatchObject({ readOnlyHint: false });
    const created = await manager.callTool("memory__create_entities", {
      entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }],
    });
    expect(created.isError).toBeFalsy();
    const graph = await manager.callTool("memory__read_graph", {});
    const structured = graph.structuredContent as { entities?: Array<{ name: string; observations: string[] }> } | undefined;
    const entities = structured?.entities ?? (JSON.parse(firstText(graph)) as { entities: Array<{ name: string; observations: string[] }> }).entities;
    expect(entities).toEqual([expect.objectContaining({ name: "Ada", observations: ["wrote the first program"] })]);
    expect(manager.status().find((s) => s.name === "memory")?.state).toBe("connected");
  });

  it.skipIf(!installed("everything"))("lists and calls @modelcontextprotocol/server-everything, with its deny list applied", async () => {
    const names = manager.listTools().filter((t) => t.server === "everything").map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "get-env"]));
    expect(names.some((n) => n.startsWith("toggle-") || n.startsWith("trigger-") || n.startsWith("simulate-"))).toBe(false);
    expect(firstText(await manager.callTool("everything__echo", { message: "hello" }))).toContain("hello");
    expect(firstText(await manager.callTool("everything__get-sum", { a: 2, b: 40 }))).toContain("42");
    // the child gets a minimal environment, not the gateway's
    const env = firstText(await manager.callTool("everything__get-env", {}));
    expect(env).toContain("PATH");
    expect(env).not.toContain("gateway-only-secret-value");
    expect((await manager.callTool("everything__toggle-simulated-logging", {}).catch((e: { code?: string }) => e)) as { code?: string }).toMatchObject({
      code: "TOOL_NOT_FOUND",
    });
  });
});
