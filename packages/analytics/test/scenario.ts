import type { Intent } from "@afw/contracts";
import { createMemoryAuditLog, createMemoryFeedbackStore, type AuditLog, type FeedbackRecord, type FeedbackStore } from "../src/index.js";
import { recordFeedback } from "../src/record-feedback.js";
import { createTrafficGenerator, type SyntheticFlow, type SyntheticQueryResult, type TrafficGenerator } from "../src/test.js";

/** Start of the scenario's traffic. */
export const T0 = Date.UTC(2025, 5, 1, 12);

/**
 * Flows of the scenario:
 * - `flowise:flaky` (technical-analysis, ranked first): slow — 2000..11000 ms in 1000 ms steps —
 *   and times out on every 4th call.
 * - `flowise:fast` (technical-analysis): 100..140 ms, never fails; the fallback of flaky.
 * - `flowise:docs` (rag-retrieval): 300 ms.
 * - `flowise:shadow` (rag-retrieval, poor health): always a matching candidate, never chosen.
 * - `langflow:primary` (data-processing, ranked first): 200 ms, fails every other call.
 * - `langflow:backup` (data-processing): 8000/9000 ms, the fallback target of primary.
 */
export const SCENARIO_FLOWS: SyntheticFlow[] = [
  {
    flowId: "flowise:flaky",
    intents: ["technical-analysis"],
    performance: 0.9,
    behaviour: ({ index }) =>
      index % 4 === 3 ? { ok: false, outcome: "timeout", latencyMs: 2000 + (index % 10) * 1000 } : { ok: true, latencyMs: 2000 + (index % 10) * 1000 },
  },
  { flowId: "flowise:fast", intents: ["technical-analysis"], behaviour: ({ index }) => ({ ok: true, latencyMs: 100 + (index % 5) * 10 }) },
  { flowId: "flowise:docs", intents: ["rag-retrieval"], behaviour: () => ({ ok: true, latencyMs: 300 }) },
  { flowId: "flowise:shadow", intents: ["rag-retrieval"], health: 0.2 },
  {
    flowId: "langflow:primary",
    backendKind: "langflow",
    intents: ["data-processing"],
    performance: 0.9,
    behaviour: ({ index }) => (index % 2 === 1 ? { ok: false, latencyMs: 200, errorCode: "BACKEND_UNAVAILABLE" } : { ok: true, latencyMs: 200 }),
  },
  { flowId: "langflow:backup", backendKind: "langflow", intents: ["data-processing"], behaviour: ({ index }) => ({ ok: true, latencyMs: 8000 + (index % 2) * 1000 }) },
];

/** The 91 queries of the scenario, in order. */
export function scenarioQuery(i: number): { intent: Intent; cacheHit?: boolean; route?: string[]; confidence?: number; sessionId: string; question: string } {
  // 40 technical, 20 rag, 20 data, 6 unroutable low-confidence conversation, 5 cache hits
  if (i < 40) return { intent: "technical-analysis", sessionId: `s-tech-${i % 4}`, question: `Why does build ${i} fail with a TypeScript error?` };
  if (i < 60) return { intent: "rag-retrieval", sessionId: "s-rag", question: `What does the handbook say about leave policy ${i}?` };
  if (i < 80) return { intent: "data-processing", sessionId: "s-data", question: `Convert CSV export ${i} to JSON` };
  if (i < 86) return { intent: "conversation", confidence: 0.2, sessionId: "s-chat", question: `hmm whatever ${i}` };
  return { intent: "technical-analysis", cacheHit: true, route: ["flowise:fast"], sessionId: "s-cache", question: `Why does build ${i} fail with a TypeScript error?` };
}

/** A scenario run: its traffic, audit log and feedback. */
export interface Scenario {
  traffic: TrafficGenerator;
  results: SyntheticQueryResult[];
  auditLog: AuditLog;
  feedbackStore: FeedbackStore;
  feedback: FeedbackRecord[];
  /** A time after the traffic, for `now`. */
  end: number;
}

/**
 * Runs the scenario into an in-memory audit log and rates four answers of flowise:flaky
 * (-1, -0.5 on the unit scale; 1 and 3 stars, i.e. -1 and 0) and two of flowise:docs (5 stars).
 */
export async function runScenario(): Promise<Scenario> {
  let clock = T0;
  const auditLog = createMemoryAuditLog({ capacity: 100_000, now: () => clock });
  const feedbackStore = createMemoryFeedbackStore();
  const traffic = createTrafficGenerator({ flows: SCENARIO_FLOWS, start: T0, intervalMs: 1000, sink: auditLog });
  const results = traffic.run(91, scenarioQuery);
  clock = traffic.now() + 60_000;
  const flakyAnswered = results.filter((r) => r.answeredFlowId === "flowise:flaky").slice(0, 4);
  const ratings: Array<{ rating: number; scale?: "unit" | "stars" }> = [{ rating: -1 }, { rating: -0.5 }, { rating: 1, scale: "stars" }, { rating: 3 }];
  for (const [index, result] of flakyAnswered.entries()) {
    await recordFeedback({ session_id: result.sessionId!, trace_id: result.traceId, ...ratings[index]! }, { feedbackStore, auditLog, now: () => clock });
  }
  for (const result of results.filter((r) => r.answeredFlowId === "flowise:docs").slice(0, 2)) {
    await recordFeedback({ session_id: result.sessionId!, trace_id: result.traceId, rating: 5 }, { feedbackStore, auditLog, now: () => clock });
  }
  return { traffic, results, auditLog, feedbackStore, feedback: await feedbackStore.list(), end: clock };
}
