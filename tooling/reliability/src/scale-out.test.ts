/**
 * Scale-out: 2 and 3 gateway instances (separate `afw serve --http` processes, stateless
 * Streamable HTTP) on one Redis, behind a tiny round-robin proxy. Real MCP clients talk to the
 * proxy only, so consecutive requests land on different instances.
 *
 * Asserts: a conversation continues across instances (each answer sees the whole history);
 * an answer cached by one instance is a hit on the others; a circuit opened by one instance keeps
 * the others away from the failing backend; killing one instance (SIGKILL) mid-run loses no
 * acknowledged session turn, and only requests in flight on it at that moment fail. In stateful
 * mode (`http.stateless: false`), one MCP session (`Mcp-Session-Id`) is served by every instance
 * through the Redis session registry until it is deleted.
 */
import { startRedisServer, type RedisServerHandle } from "@afw/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectedAnswer, type Backends } from "./harness/backends.js";
import { recordFigure, sized } from "./harness/figures.js";
import { startGatewayFleet, type GatewayFleet } from "./harness/gateway-fleet.js";
import type { GatewayProcess } from "./harness/gateway-process.js";
import { connectClient, parseReply, universalQuery } from "./harness/mcp.js";
import type { RoundRobinProxy } from "./harness/round-robin-proxy.js";

const CONTEXT_TURNS = 6;
const KILL_RUN_CLIENTS = 6;
const KILL_RUN_TURNS = sized("RELIABILITY_SCALE_TURNS", 12, 40);

describe.each([2, 3])("%i gateway instances on one Redis behind a round-robin proxy", (count) => {
  let redis: RedisServerHandle;
  let fleet: GatewayFleet | undefined;
  let backends: Backends;
  let instances: GatewayProcess[] = [];
  let proxy: RoundRobinProxy;
  let client: Client;

  beforeAll(async () => {
    redis = await startRedisServer();
    fleet = await startGatewayFleet(count, {
      redis: { url: redis.url, keyPrefix: "afw-scale:" },
      routing: { circuitBreaker: { failureThreshold: 3, cooldownMs: 120_000 } },
      sessions: { contextTurns: CONTEXT_TURNS },
    });
    ({ backends, instances, proxy } = fleet);
    // Each instance probes the backends once (healthy), as it would at start.
    await Promise.all(
      instances.map(async (instance, i) => {
        const direct = await connectClient(instance.url, `warm-${i}`);
        await universalQuery(direct, { question: `warm-up ${i}`, backend: "flowise" });
        await direct.close();
      }),
    );
    client = await connectClient(`${proxy.origin}/mcp`, "scale-out");
  });

  afterAll(async () => {
    await client?.close();
    await fleet?.close();
    await redis?.dispose();
  });

  it("continues a conversation across instances", async () => {
    const before = new Map(proxy.forwarded);
    const turns = count * 3;
    for (let turn = 1; turn <= turns; turn++) {
      const question = `roaming turn ${turn}: go on`;
      const reply = await universalQuery(client, { question, session_id: `roaming-${count}`, backend: "flowise" });
      expect(reply.kind).toBe("answer");
      // The backend saw the history of every earlier turn, whichever instance stored it.
      if (reply.kind === "answer") {
        // A flow with its own memory gets the session id and remembers every earlier turn itself
        // (the gateway sends no history then); otherwise the gateway sends the last CONTEXT_TURNS.
        const seen = reply.result._mcp_metadata.session_context?.platform_memory === true ? turn - 1 : Math.min(turn - 1, CONTEXT_TURNS);
        expect(reply.result.result, `routing metadata: ${JSON.stringify(reply.result._mcp_metadata)}`).toBe(expectedAnswer("flowise", question, seen + 1));
      }
    }
    for (const instance of instances) expect((proxy.forwarded.get(instance.origin) ?? 0) - (before.get(instance.origin) ?? 0)).toBeGreaterThan(0);
    const session = parseReply<{ turns: number }>(await client.callTool({ name: "get_session", arguments: { session_id: `roaming-${count}` } }));
    expect(session.body.turns).toBe(turns);
  });

  it("serves an answer cached by one instance from the others", async () => {
    const question = `a question for every instance (${count})`;
    const runsBefore = backends.flowise.runs.length;
    const replies = [];
    for (let i = 0; i < count * 2; i++) replies.push(await universalQuery(client, { question, backend: "flowise" }));
    const hits = replies.filter((r) => r.kind === "answer" && r.result._mcp_metadata.cache_hit === true).length;
    recordFigure(`scale-out-${count}`, "cacheHitsOfRepeats", `${hits}/${replies.length - 1}`);
    expect(replies[0]!.kind === "answer" && replies[0]!.result._mcp_metadata.cache_hit).toBe(false);
    expect(hits).toBe(replies.length - 1);
    expect(backends.flowise.runs.length - runsBefore).toBe(1);
  });

  it("shares circuit state: a circuit opened through one instance keeps the others away", async () => {
    backends.flowise.setFaults([{ route: "run", status: 500 }]);
    const first = await connectClient(instances[0]!.url, "circuit-opener");
    try {
      // Through instance 0 only, until its failures open the circuit (each query falls back).
      for (let i = 0; i < 3; i++) {
        const reply = await universalQuery(first, { question: `opening ${i}`, backend: "flowise", allow_fallback: true });
        expect(reply).toMatchObject({ kind: "answer", result: { _mcp_metadata: { backend_used: "langflow" } } });
      }
    } finally {
      await first.close();
    }
    const runsBefore = backends.flowise.requests.filter((r) => r.route === "run").length;
    // Every other instance now skips the failing backend without calling it.
    for (const instance of instances.slice(1)) {
      const direct = await connectClient(instance.url, "circuit-reader");
      try {
        for (let i = 0; i < 3; i++) {
          const reply = await universalQuery(direct, { question: `after opening ${i} on ${instance.origin}`, backend: "flowise", allow_fallback: true });
          expect(reply).toMatchObject({ kind: "answer", result: { _mcp_metadata: { backend_used: "langflow", fallback_used: true, fallback_reason: "CIRCUIT_OPEN", backends_tried: ["flowise", "langflow"] } } });
        }
      } finally {
        await direct.close();
      }
    }
    expect(backends.flowise.requests.filter((r) => r.route === "run").length).toBe(runsBefore);
    backends.flowise.clearFaults();
  });

  it("loses no acknowledged session turn when an instance is killed mid-run", async () => {
    const victim = instances[0]!;
    const clients = await Promise.all(Array.from({ length: KILL_RUN_CLIENTS }, (_, i) => connectClient(`${proxy.origin}/mcp`, `kill-run-${i}`)));
    const acknowledged = new Map<string, string[]>();
    let failed = 0;
    let answered = 0;
    let killed: Promise<void> | undefined;
    await Promise.all(
      clients.map(async (c, w) => {
        const sessionId = `kill-run-${count}-${w}`;
        for (let turn = 1; turn <= KILL_RUN_TURNS; ) {
          const question = `client ${w} turn ${turn}: continue`;
          const reply = await universalQuery(c, { question, session_id: sessionId, backend: "langflow" }, { timeoutMs: 20_000 });
          if (reply.kind !== "answer") {
            failed++; // not acknowledged: ask the same turn again, as a client would
            continue;
          }
          acknowledged.set(sessionId, [...(acknowledged.get(sessionId) ?? []), question]);
          answered++;
          turn++;
          // Kill one instance a third of the way through, with requests in flight.
          if (!killed && answered >= (KILL_RUN_CLIENTS * KILL_RUN_TURNS) / 3) killed = victim.kill();
        }
      }),
    );
    await killed;
    await Promise.all(clients.map((c) => c.close()));

    let lost = 0;
    for (const [sessionId, questions] of acknowledged) {
      const session = parseReply<{ history: { question: string }[] }>(await client.callTool({ name: "get_session", arguments: { session_id: sessionId } }));
      const stored = new Set(session.body.history.map((t) => t.question));
      lost += questions.filter((q) => !stored.has(q)).length;
    }
    recordFigure(`scale-out-${count}`, "killRun", { acknowledged: answered, failedInFlight: failed, lost });
    expect(victim.child.signalCode).toBe("SIGKILL");
    expect(answered).toBe(KILL_RUN_CLIENTS * KILL_RUN_TURNS);
    expect(lost).toBe(0);
    // Only requests in flight on the killed instance failed (at most one per client).
    expect(failed).toBeLessThanOrEqual(KILL_RUN_CLIENTS);
  });
});

describe("stateful Streamable HTTP (MCP sessions) on 2 instances behind a round-robin proxy", () => {
  let redis: RedisServerHandle;
  let fleet: GatewayFleet | undefined;
  let instances: GatewayProcess[] = [];
  let proxy: RoundRobinProxy;

  beforeAll(async () => {
    redis = await startRedisServer();
    fleet = await startGatewayFleet(2, { redis: { url: redis.url, keyPrefix: "afw-stateful:" }, http: { stateless: false } });
    ({ instances, proxy } = fleet);
  });

  afterAll(async () => {
    await fleet?.close();
    await redis?.dispose();
  });

  it("serves one MCP session from every instance (shared session registry) until it is deleted", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${proxy.origin}/mcp`));
    const client = new Client({ name: "stateful-scale-out", version: "1.0.0" });
    await client.connect(transport).catch((error: unknown) => {
      // The instances' logs say why (e.g. a registry write that failed at initialize).
      throw new Error(`${String(error)}\n${instances.map((i, n) => `--- instance ${n} stderr:\n${i.stderr().slice(-2_000)}`).join("\n")}`);
    });
    const sessionId = transport.sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const before = new Map(proxy.forwarded);
    for (let i = 0; i < 6; i++) {
      const reply = await universalQuery(client, { question: `stateful question ${i}`, backend: "flowise" });
      expect(reply.kind).toBe("answer");
    }
    for (const instance of instances) expect((proxy.forwarded.get(instance.origin) ?? 0) - (before.get(instance.origin) ?? 0)).toBeGreaterThan(0);
    await transport.terminateSession();
    await client.close();
    // Deleted through one instance: refused by both.
    for (const instance of instances) {
      const response = await fetch(instance.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sessionId! },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status).toBe(404);
      await response.arrayBuffer();
    }
  });
});
