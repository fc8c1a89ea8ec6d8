/**
 * Session turns answered while Redis is killed (private redis-server, AOF on) are kept: written,
 * or buffered and replayed in order after the restart, or flagged `session_saved: false` with a
 * `session-save-failed` trace event when the write-behind buffer is full. Nothing is lost silently,
 * and the log says "Redis unavailable" once instead of once per failed operation.
 */
import type { TraceEvent, UniversalQueryResult } from "@afw/contracts";
import { startRedisServer, type RedisServerHandle } from "@afw/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { callTool, startTestGateway } from "../test/helpers.js";

let redis: RedisServerHandle;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
const logLines: string[] = [];
const events: TraceEvent[] = [];
const BUFFER_TURNS = 6;

beforeAll(async () => {
  redis = await startRedisServer({ appendOnly: true });
  gateway = await startTestGateway({
    backends: [createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] })],
    config: {
      redis: { url: redis.url, keyPrefix: "outage:", sessionBuffer: { maxTurns: BUFFER_TURNS } },
      logging: { level: "info" },
    },
    logDestination: { write: (line: string) => void logLines.push(line) },
    traceSinks: [{ emit: (event) => void events.push(event) }],
  });
  // Cold start (classifier, flow discovery) is slow on a loaded machine and not what this measures.
  await gateway.gateway.warmUp();
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await redis?.dispose();
});

const ask = async (question: string, sessionId?: string) => {
  const reply = await callTool<UniversalQueryResult>(gateway.client, "universal_query", { question, ...(sessionId ? { session_id: sessionId } : {}) });
  expect(reply.isError, reply.text).toBe(false);
  return reply.body;
};
const warnings = () => logLines.filter((line) => (JSON.parse(line) as { level: number }).level >= 40);

describe("a Redis outage under a gateway with sessions", () => {
  it("keeps every answered turn or flags it, replays in order after the restart, and logs the outage once", { timeout: 60_000 }, async () => {
    const kept: string[] = [];
    const flagged: string[] = [];
    const record = (question: string, answer: UniversalQueryResult) => {
      expect(answer._mcp_metadata.session_saved, question).toBeTypeOf("boolean");
      (answer._mcp_metadata.session_saved ? kept : flagged).push(question);
    };
    for (let i = 0; i < 3; i++) {
      const answer = await ask(`before the outage, turn ${i}`, "conv");
      expect(answer._mcp_metadata).toMatchObject({ session_saved: true });
      expect(answer._mcp_metadata.session_buffered).toBeUndefined();
      record(`before the outage, turn ${i}`, answer);
    }

    await redis.stop({ kill: true });
    const warningsBefore = warnings().length;
    for (let i = 0; i < BUFFER_TURNS + 4; i++) {
      const question = `during the outage, turn ${i}`;
      const answer = await ask(question, "conv");
      record(question, answer);
      if (i < BUFFER_TURNS) expect(answer._mcp_metadata).toMatchObject({ session_saved: true, session_buffered: true });
      else expect(answer._mcp_metadata.session_saved).toBe(false);
      await ask(`a shared question ${i % 3} while Redis is away`);
    }
    // Read-your-writes on this instance: the buffered turns are part of the session now.
    const during = await callTool<{ history: { question: string }[] }>(gateway.client, "get_session", { session_id: "conv" });
    expect(during.body.history.map((t) => t.question)).toEqual(kept.slice(3));
    expect(flagged).toHaveLength(4);
    expect(events.filter((event) => event.type === "session-save-failed")).toHaveLength(4);
    // 20 queries, each with several failed Redis operations: one "unavailable" line.
    expect(warnings().length - warningsBefore).toBeLessThanOrEqual(2);

    await redis.restart();
    let history: string[] = [];
    for (let attempt = 0; attempt < 200 && history.length < kept.length; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50)); // polling interval, not synchronisation
      const reply = await callTool<{ history: { question: string }[] }>(gateway.client, "get_session", { session_id: "conv" });
      history = reply.isError ? [] : reply.body.history.map((t) => t.question);
    }
    // Every turn the gateway said it kept is in the session, in the order it was answered.
    expect(history).toEqual(kept);
    expect(logLines.some((line) => line.includes("Redis recovered"))).toBe(true);
  });
});
