/**
 * The gateway on a real Redis Cluster (3 masters, 3 replicas, Debian's redis-server, started by
 * `scripts/redis-topology.mjs cluster`): two gateway processes in stateful Streamable HTTP mode
 * behind a round-robin proxy share the answer cache, session memory and MCP sessions, and every
 * multi-key operation and Lua script stays inside one slot (a CROSSSLOT error would show as a
 * Redis failure in the logs and as a lost turn or a cache miss here).
 *
 * Opt-in (it starts 6 redis-server processes): AFW_REDIS_CLUSTER=1.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectedAnswer, type Backends } from "./harness/backends.js";
import { recordFigure } from "./harness/figures.js";
import { startGatewayFleet, type GatewayFleet } from "./harness/gateway-fleet.js";
import type { GatewayProcess } from "./harness/gateway-process.js";
import { parseReply, universalQuery } from "./harness/mcp.js";
import { redisCli, startRedisTopology, type RedisTopology } from "./harness/redis-topology.js";
import type { RoundRobinProxy } from "./harness/round-robin-proxy.js";

const ENABLED = process.env["AFW_REDIS_CLUSTER"] === "1";
if (!ENABLED) {
  console.warn("[@afw/reliability] Redis Cluster suite skipped: set AFW_REDIS_CLUSTER=1 to run it (needs redis-server and redis-cli; it starts 3 masters + 3 replicas with scripts/redis-topology.mjs).");
}

const CONTEXT_TURNS = 6;
const PREFIX = "afw-cluster:";

describe.skipIf(!ENABLED)("two gateway instances on a Redis Cluster (3 masters, 3 replicas)", () => {
  let cluster: RedisTopology;
  let fleet: GatewayFleet | undefined;
  let backends: Backends;
  let instances: GatewayProcess[] = [];
  let proxy: RoundRobinProxy;
  let client: Client;
  let transport: StreamableHTTPClientTransport;

  beforeAll(async () => {
    cluster = await startRedisTopology("cluster");
    fleet = await startGatewayFleet(2, { redis: { url: cluster.url, keyPrefix: PREFIX }, http: { stateless: false }, sessions: { contextTurns: CONTEXT_TURNS } });
    ({ backends, instances, proxy } = fleet);
    transport = new StreamableHTTPClientTransport(new URL(`${proxy.origin}/mcp`));
    client = new Client({ name: "cluster", version: "1.0.0" });
    await client.connect(transport).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${instances.map((i, n) => `--- instance ${n} stderr:\n${i.stderr().slice(-2_000)}`).join("\n")}`);
    });
  }, 240_000);

  afterAll(async () => {
    await client?.close();
    await fleet?.close();
    await cluster?.stop();
  }, 60_000);

  it("continues a conversation across instances: every answer sees the whole history", async () => {
    const turns = 8;
    for (let turn = 1; turn <= turns; turn++) {
      const question = `cluster turn ${turn}: go on`;
      const reply = await universalQuery(client, { question, session_id: "cluster-roaming", backend: "flowise" });
      expect(reply.kind, JSON.stringify(reply)).toBe("answer");
      if (reply.kind === "answer") {
        // A flow with its own memory remembers every earlier turn (no history sent); otherwise the last CONTEXT_TURNS.
        const seen = reply.result._mcp_metadata.session_context?.platform_memory === true ? turn - 1 : Math.min(turn - 1, CONTEXT_TURNS);
        expect(reply.result.result).toBe(expectedAnswer("flowise", question, seen + 1));
      }
    }
    const session = parseReply<{ turns: number }>(await client.callTool({ name: "get_session", arguments: { session_id: "cluster-roaming" } }));
    expect(session.body.turns).toBe(turns);
    recordFigure("redis-cluster", "turnsKept", `${session.body.turns}/${turns}`);
  });

  it("finds the conversation's turns with search_history (a tenant's history keys share one slot)", async () => {
    const page = parseReply<{ count: number; hits: { session_id: string; question: string }[] }>(
      await client.callTool({ name: "search_history", arguments: { text: "cluster turn go on", session_id: "cluster-roaming", limit: 20 } }),
    );
    expect(page.body.count).toBe(8);
    expect(new Set(page.body.hits.map((hit) => hit.session_id))).toEqual(new Set(["cluster-roaming"]));
  });

  it("serves an answer cached by one instance from the other", async () => {
    const runsBefore = backends.flowise.runs.length;
    const replies = [];
    for (let i = 0; i < 4; i++) replies.push(await universalQuery(client, { question: "a question for the cluster", backend: "flowise" }));
    const hits = replies.filter((r) => r.kind === "answer" && r.result._mcp_metadata.cache_hit === true).length;
    recordFigure("redis-cluster", "cacheHitsOfRepeats", `${hits}/${replies.length - 1}`);
    expect(hits).toBe(replies.length - 1);
    expect(backends.flowise.runs.length - runsBefore).toBe(1);
  });

  it("lists sessions and clears the cache across the masters", async () => {
    const listed = parseReply<{ sessions: { session_id: string }[] }>(await client.callTool({ name: "list_sessions", arguments: { pattern: "cluster-*" } }));
    expect(listed.isError).toBe(false);
    expect(listed.body.sessions.map((s) => s.session_id)).toContain("cluster-roaming");
    const cleared = parseReply<{ removed: number }>(await client.callTool({ name: "clear_cache", arguments: { all: true } }));
    expect(cleared.isError, JSON.stringify(cleared.body)).toBe(false);
    expect(cleared.body.removed).toBeGreaterThan(0);
    const again = await universalQuery(client, { question: "a question for the cluster", backend: "flowise" });
    expect(again.kind === "answer" && again.result._mcp_metadata.cache_hit).toBe(false);
  });

  it("spreads the keys over the masters and logs no Cluster error", () => {
    const masters = cluster.nodes!.filter((n) => n.role === "master");
    const keysPerMaster = masters.map((m) => Number(redisCli(m.port, "DBSIZE")));
    recordFigure("redis-cluster", "keysPerMaster", keysPerMaster);
    expect(keysPerMaster.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    // Cluster errors (a key outside the script's slot, a stale slot map). A 100 ms bound that
    // trips on a loaded machine is logged too, and is not what this checks.
    for (const instance of instances) expect(instance.stderr()).not.toMatch(/CROSSSLOT|MOVED|ASK |ERR /);
  });

  it("serves the MCP session from both instances until it is deleted", async () => {
    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    for (const instance of instances) expect(proxy.forwarded.get(instance.origin) ?? 0).toBeGreaterThan(0);
    await transport.terminateSession();
    for (const instance of instances) {
      const response = await fetch(instance.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sessionId },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status).toBe(404);
      await response.arrayBuffer();
    }
  });
});
