/**
 * Fault injection: one backend (the Flowise reproduction) fails 30% of its runs — 500s,
 * connection resets, hangs past its timeout, garbage bodies, streams cut mid-way and streams
 * that end without their end event — while a real gateway serves real MCP clients over
 * Streamable HTTP. Every query names the flaky backend with `allow_fallback: true`, so each one
 * meets the faults first and may then fall back.
 *
 * Asserts: >= 99.9% of the queries answered; every answer is exactly the complete answer of the
 * reproduction that gave it (so nothing truncated was served); every streamed answer's tokens
 * after the last restart equal the answer; fallbacks show in `_mcp_metadata`; afterwards every
 * cached entry is complete too.
 */
import type { UniversalQueryResult } from "@afw/contracts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectedAnswer, startBackends, type Backends } from "./harness/backends.js";
import { recordFigure, sized } from "./harness/figures.js";
import { startHttpGateway, type HttpGateway } from "./harness/gateway.js";
import { connectClient, runPool, universalQuery, type QueryReply } from "./harness/mcp.js";
import { summarize } from "./harness/stats.js";

const TOTAL = sized("RELIABILITY_FLAKY_QUERIES", 2_000, 2_000);
const CONCURRENCY = sized("RELIABILITY_FLAKY_CLIENTS", 20, 20);
const RESTART_MARKER = "\n[fallback: the answer restarts]\n";

/** 30% of run requests fail, 5% for each of six kinds (conditional probabilities, in order). */
function faults() {
  const kinds = [{ status: 500 }, { reset: true }, { hang: true }, { garbage: true }, { dropAfterTokens: 6 }, { endAfterTokens: 9 }];
  let left = 1;
  return kinds.map((kind) => {
    const probability = 0.05 / left;
    left -= 0.05;
    return { route: "run" as const, ...kind, probability };
  });
}

let backends: Backends;
let gateway: HttpGateway;
let clients: Client[] = [];

beforeAll(async () => {
  backends = await startBackends({ flowiseFaults: faults() });
  gateway = await startHttpGateway({
    backends: backends.configs({ flowise: { requestTimeoutMs: 1_000 } }),
    routing: { circuitBreaker: { failureThreshold: 5, cooldownMs: 2_000 } },
  });
  clients = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => connectClient(gateway.url, `flaky-${i}`)));
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await gateway?.close();
  await backends?.close();
});

const questionOf = (i: number) => `reliability question ${i}: what does item ${i} of the catalog do?`;

describe(`one backend failing 30% of its calls (${TOTAL} queries, ${CONCURRENCY} clients)`, () => {
  const replies: QueryReply[] = [];

  it("answers >= 99.9% of the queries, each one complete, with fallbacks in the metadata", async () => {
    const started = performance.now();
    await runPool(TOTAL, CONCURRENCY, async (i, worker) => {
      replies[i] = await universalQuery(clients[worker]!, { question: questionOf(i), backend: "flowise", allow_fallback: true }, { stream: true });
    });
    const seconds = (performance.now() - started) / 1000;

    const answers = replies.filter((r): r is Extract<QueryReply, { kind: "answer" }> => r.kind === "answer");
    const failures = replies.filter((r) => r.kind !== "answer");
    const successRate = answers.length / TOTAL;
    const flowiseCalls = gateway.traces.of("backend-call-end").filter((e) => e.backendId === "flowise");
    const flowiseFailed = flowiseCalls.filter((e) => e.outcome !== "success").length;
    const fallbacks = answers.filter((a) => a.result._mcp_metadata.fallback_used).length;

    recordFigure("flaky-backend", "queries", TOTAL);
    recordFigure("flaky-backend", "successRate", successRate);
    recordFigure("flaky-backend", "flakyBackendCallFailureRate", flowiseCalls.length ? flowiseFailed / flowiseCalls.length : 0);
    recordFigure("flaky-backend", "fallbacks", fallbacks);
    recordFigure("flaky-backend", "latency", summarize(answers.map((a) => a.latencyMs)));
    recordFigure("flaky-backend", "seconds", Math.round(seconds * 10) / 10);
    if (failures.length > 0) recordFigure("flaky-backend", "failureSamples", failures.slice(0, 5));

    expect(successRate).toBeGreaterThanOrEqual(0.999);
    // The faults really fired: about 30% of the flaky backend's calls failed.
    expect(flowiseFailed / flowiseCalls.length).toBeGreaterThan(0.15);

    replies.forEach((reply, i) => {
      if (reply.kind !== "answer") return;
      const meta = reply.result._mcp_metadata;
      const platform = meta.backend_used as "flowise" | "langflow";
      expect(reply.result.result).toBe(expectedAnswer(platform, questionOf(i)));
      if (meta.fallback_used) {
        expect(platform).toBe("langflow");
        expect(meta.backends_tried[0]).toBe("flowise");
        expect(meta.fallback_reason).toBeDefined();
      }
      // What the client saw streamed after the last restart is the whole answer.
      const streamed = reply.progress.join("");
      const restartAt = streamed.lastIndexOf(RESTART_MARKER);
      const tail = restartAt < 0 ? streamed : streamed.slice(restartAt + RESTART_MARKER.length);
      expect(tail).toBe(reply.result.result);
    });
    expect(fallbacks).toBeGreaterThan(0);
  });

  it("cached only complete answers, and never a fallback's answer under the named backend's key", async () => {
    let cached = 0;
    for (let i = 0; i < TOTAL; i++) {
      const reply = replies[i];
      const lookup = await gateway.gateway.stores.cache.get({ scope: "shared", flowId: "auto:flowise:auto", question: questionOf(i) });
      // The query named flowise: an answer another backend gave is not stored as flowise's answer.
      const answeredByChoice = reply?.kind === "answer" && !reply.result._mcp_metadata.fallback_used;
      expect(lookup.hit, `question ${i}`).toBe(answeredByChoice);
      if (!lookup.hit) continue;
      cached++;
      const result = lookup.entry.result as UniversalQueryResult;
      expect(result.result).toBe(expectedAnswer(result._mcp_metadata.backend_used as "flowise" | "langflow", questionOf(i)));
    }
    recordFigure("flaky-backend", "cachedAnswers", cached);
    expect(cached).toBeGreaterThan(0);
  });
});
