import type { SessionTurn, TraceContext, TraceEvent, UniversalQueryResult } from "@afw/contracts";

/** A valid `universal_query` result with `text` as the answer. */
export function answer(text: string, flowId = "flowise:faq"): UniversalQueryResult {
  return {
    result: text,
    _mcp_metadata: {
      backend_used: "flowise",
      flow_id: flowId,
      flow_name: "FAQ",
      routing_score: 0.8,
      routing_breakdown: { flow_match: 1, health: 1, performance: 0.5, capability: 0.5 },
      intent_classified: "technical-analysis",
      intent_confidence: 0.9,
      execution_time_ms: 120,
      fallback_used: false,
      attempt: 1,
      backends_tried: ["flowise"],
      cache_hit: false,
      trace_id: "trace-1",
    },
  };
}

/** Turn number `n` of a session. */
export function turn(n: number, label = "q"): SessionTurn {
  return { question: `${label}-${n}`, answer: `answer ${n}`, flowId: "flowise:faq", backendId: "flowise", askedAt: 1_000 + n, answeredAt: 2_000 + n };
}

/** Polls `condition` until it holds or `timeoutMs` passes (then throws). */
export async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs = 5000, intervalMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A trace context that records every event. */
export function recordingTrace(): { trace: TraceContext; events: TraceEvent[] } {
  const events: TraceEvent[] = [];
  return { trace: { traceId: "t-1", requestId: "r-1", sink: { emit: (event) => events.push(event) } }, events };
}

/** A controllable clock. */
export function manualClock(start = 1_700_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

/** Redis Cluster hash slot of a key (CRC16/XMODEM of the hash tag or key, mod 16384). */
export function hashSlot(key: string): number {
  const open = key.indexOf("{");
  let hashed = key;
  if (open !== -1) {
    const close = key.indexOf("}", open + 1);
    if (close > open + 1) hashed = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(hashed, "utf8")) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16_384;
}

/** A deterministic embedder of a few made-up concepts (words of one group share a dimension): search by meaning without a model. */
export function conceptEmbedder(): import("@afw/contracts").Embedder {
  const groups = [
    ["deploy", "deploying", "deployment", "ship", "release", "rollout", "version"],
    ["password", "credentials", "login", "forgot", "sign"],
    ["lunch", "food", "canteen", "eat", "meal"],
  ];
  return {
    id: "concepts-test",
    dimensions: groups.length,
    async embed(texts) {
      return texts.map((text) => {
        const vector = new Float32Array(groups.length);
        for (const word of text.toLowerCase().split(/[^a-z]+/)) groups.forEach((group, i) => group.includes(word) && (vector[i]! += 1));
        return vector;
      });
    },
  };
}
