/**
 * The "done when" scenario of the analytics and learning loop, through the real gateway (MCP
 * client over in-memory transports, the `@afw/backends` adapters) against the local Flowise and
 * Langflow reproductions with fault injection. One flow is made slow and flaky; the test shows:
 * the analytics report it with the right numbers; the learned prior moves traffic away from it in
 * bounded steps and back when it recovers (an injected clock makes time pass, no sleeps); the A/B
 * split holds its share; exports parse; sync dry-run changes nothing and apply does what it said.
 */
import { createAbAssignment, createLearnedRoutingPrior, type LearnedRoutingPrior } from "@afw/analytics";
import { parseCsv } from "@afw/analytics/test";
import { startFlowiseServer, startLangflowServer, type MockFlowDefinition, type MockPlatformServer } from "@afw/backends/test/servers";
import { flowKey, type RoutingCandidate, type RoutingDecision, type UniversalQueryResult } from "@afw/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, startTestGateway } from "../test/helpers.js";
import type { GatewayConfigInput } from "./config-schema.js";

const MINUTE = 60_000;
const MAX_ADJUSTMENT = 0.15;
const MIN_SAMPLES = 10;
const HALF_LIFE_MS = 10 * MINUTE;
const FLAKY_DELAY_MS = 40;
const AB_SHARE = 0.3;

const id = (prefix: string, n: number) => `${prefix}0000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const FLAKY = id("f", 1);
const FLOWISE_CHAT = id("f", 2);
const DATA_CLEANER = id("f", 3);
const STEADY = id("a", 1);
const LANGFLOW_CHAT = id("a", 2);
const key = { flaky: flowKey("flowise", FLAKY), flowiseChat: flowKey("flowise", FLOWISE_CHAT), dataCleaner: flowKey("flowise", DATA_CLEANER), steady: flowKey("langflow", STEADY) };

const answer = (name: string) => (input: { question: string }) => `[${name}] ${input.question}`;
const flowiseFlows: MockFlowDefinition[] = [
  { id: FLAKY, name: "Code Reviewer", description: "Reviews code", tags: ["code"], streaming: false, answer: answer("Code Reviewer") },
  { id: FLOWISE_CHAT, name: "Support Chat", description: "Everyday conversation", tags: ["chat"], streaming: false, answer: answer("Support Chat") },
  // On the platform, not in the configured registry: sync_flow_registry proposes to add it.
  { id: DATA_CLEANER, name: "Data Cleaner", description: "Cleans CSV and JSON data with SQL", tags: ["data", "etl"], streaming: false, answer: answer("Data Cleaner") },
];
const langflowFlows: MockFlowDefinition[] = [
  { id: STEADY, name: "Engineering Helper", description: "Helps engineers", tags: ["helper"], streaming: false, answer: answer("Engineering Helper") },
  { id: LANGFLOW_CHAT, name: "Chat Lite", description: "Small talk", tags: ["chat"], streaming: false, answer: answer("Chat Lite") },
];

/** The flaky flow's faults: every run waits, half of them (seeded) then fail with a 503. */
const SLOW_AND_FLAKY = [
  { route: "run" as const, flowId: FLAKY, status: 503, message: "upstream overloaded", delayMs: FLAKY_DELAY_MS, probability: 0.5 },
  { route: "run" as const, flowId: FLAKY, delayMs: FLAKY_DELAY_MS },
];

type Answer = UniversalQueryResult & { _mcp_metadata: UniversalQueryResult["_mcp_metadata"] };
type Explanation = { decision: RoutingDecision };

let flowise: MockPlatformServer;
let langflow: MockPlatformServer;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let prior: LearnedRoutingPrior;
let clock = Date.now();
let config: GatewayConfigInput;

/** What the flaky phase observed, for the analytics assertions. */
const phase1 = { queries: 0, firstChoiceFlaky: 0, flakyAnswered: 0, fallbacks: 0, steadyAnswered: 0 };

beforeAll(async () => {
  flowise = await startFlowiseServer({ flows: flowiseFlows, seed: 7 });
  langflow = await startLangflowServer({ flows: langflowFlows });
  config = {
    backends: [
      { id: "flowise", kind: "flowise", baseURL: flowise.url, flows: [{ id: FLAKY, intents: ["technical-analysis"] }, { id: FLOWISE_CHAT, intents: ["conversation"] }] },
      // The steady flow serves technical questions only as its second intent (flow_match 0.7 against the flaky flow's 1).
      { id: "langflow", kind: "langflow", baseURL: langflow.url, flows: [{ id: STEADY, intents: ["structural-thinking", "technical-analysis"] }, { id: LANGFLOW_CHAT, intents: ["conversation"] }] },
    ],
    routing: { retries: 0, hedge: false, circuitBreaker: { failureThreshold: 1_000, cooldownMs: 1_000 } },
    analytics: {
      experiments: [{ id: "hedge-chat", intent: "conversation", share: AB_SHARE, variant: { strategy: "hedge", label: "hedged" } }],
    },
  };
  // The prior of the gateway's settings, on a clock the test moves (outcomes dated by it).
  prior = createLearnedRoutingPrior({ maxAdjustment: MAX_ADJUSTMENT, minSamples: MIN_SAMPLES, halfLifeMs: HALF_LIFE_MS, now: () => clock, eventTime: "clock" });
  gateway = await startTestGateway({ config, learnedPrior: prior });
  await gateway.gateway.warmUp();
});

afterAll(async () => {
  await gateway?.close();
  await prior?.close();
  await Promise.all([flowise?.close(), langflow?.close()]);
});

const ask = async (args: Record<string, unknown>) => {
  const result = await callTool<Answer>(gateway.client, "universal_query", args);
  expect(result.isError, result.text).toBe(false);
  return result.body._mcp_metadata;
};
const technical = (n: number) => ask({ question: `Review this function, attempt ${n}: why does it throw a null pointer?`, intent: "technical-analysis" });
const explainTechnical = async () => (await callTool<Explanation>(gateway.client, "explain_routing", { question: "Review this function: why does it throw?", intent: "technical-analysis" })).body.decision;
const candidate = (decision: RoutingDecision, flowId: string) => decision.candidates.find((c) => c.flowId === flowId)!;
/** A candidate's score without the learned adjustment (the weights times the original components). */
const unadjustedScore = (decision: RoutingDecision, c: RoutingCandidate) => {
  const original = c.adjustment?.original ?? c.breakdown;
  const w = decision.weights;
  return original.flow_match * w.flow_match + c.breakdown.health * w.health + original.performance * w.performance + c.breakdown.capability * w.capability;
};

describe("learning loop scenario (local Flowise + Langflow, one slow and flaky flow)", () => {
  it("starts on the flaky flow, then the learned prior moves traffic away in bounded steps", async () => {
    const first = await explainTechnical();
    expect(first.chosen?.flowId).toBe(key.flaky);
    expect(candidate(first, key.flaky).adjustment).toBeUndefined(); // nothing learned yet

    flowise.setFaults(SLOW_AND_FLAKY);
    const firstChoices: string[] = [];
    const adjustments: Array<{ flow_match: number; performance: number }> = [];
    for (let i = 0; i < 80; i++) {
      const meta = await technical(i);
      const choseFlaky = meta.flow_id === key.flaky || meta.fallback_used;
      firstChoices.push(choseFlaky ? key.flaky : meta.flow_id);
      phase1.queries++;
      if (choseFlaky) phase1.firstChoiceFlaky++;
      if (meta.flow_id === key.flaky) phase1.flakyAnswered++;
      if (meta.fallback_used) {
        phase1.fallbacks++;
        expect(meta.flow_id).toBe(key.steady);
        expect(meta.backends_tried).toEqual(["flowise", "langflow"]);
      }
      if (meta.flow_id === key.steady) phase1.steadyAnswered++;
      adjustments.push(prior.adjust("technical-analysis", key.flaky));
    }
    // The flaky flow was tried first at the start and failed about half the time.
    expect(firstChoices.slice(0, MIN_SAMPLES).every((flowId) => flowId === key.flaky)).toBe(true);
    expect(phase1.fallbacks).toBeGreaterThanOrEqual(3);
    // Moved away within a bounded number of queries, and stays away.
    const switchedAt = firstChoices.findIndex((flowId, i) => firstChoices.slice(i).every((later) => later === key.steady));
    expect(switchedAt).toBeGreaterThan(0);
    expect(switchedAt).toBeLessThanOrEqual(50);
    // Bounded: never beyond the configured bound, in small steps from one query to the next.
    for (const a of adjustments) {
      expect(Math.abs(a.flow_match)).toBeLessThanOrEqual(MAX_ADJUSTMENT);
      expect(Math.abs(a.performance)).toBeLessThanOrEqual(MAX_ADJUSTMENT);
    }
    for (let i = 1; i < adjustments.length; i++) {
      expect(Math.abs(adjustments[i]!.flow_match - adjustments[i - 1]!.flow_match)).toBeLessThanOrEqual(0.03);
      expect(Math.abs(adjustments[i]!.performance - adjustments[i - 1]!.performance)).toBeLessThanOrEqual(0.03);
    }
    expect(adjustments.at(-1)!.flow_match).toBeLessThan(-0.03);
    expect(adjustments.at(-1)!.performance).toBeLessThan(-0.05);

    // explain_routing shows the learned change: original and adjusted components, deltas, reason.
    const decision = await explainTechnical();
    expect(decision.chosen?.flowId).toBe(key.steady);
    const flaky = candidate(decision, key.flaky);
    const steady = candidate(decision, key.steady);
    expect(flaky.adjustment).toMatchObject({ source: "learned-prior", original: { flow_match: 1 } });
    expect(flaky.adjustment!.reason).toMatch(/^learned prior for technical-analysis on flowise:f0+-0000-4000-8000-0+1: success \d+\.\d% vs 100\.0% for its peers/);
    expect(flaky.adjustment!.delta.flow_match).toBeLessThan(0);
    expect(flaky.breakdown.flow_match).toBeCloseTo(1 + flaky.adjustment!.delta.flow_match, 6);
    expect(flaky.breakdown.performance).toBeCloseTo(flaky.adjustment!.original.performance + flaky.adjustment!.delta.performance, 6);
    expect(steady.adjustment!.delta.flow_match).toBeGreaterThan(0);
    // It is the learned prior that moved the traffic: without it the flaky flow would still win.
    expect(unadjustedScore(decision, flaky)).toBeGreaterThan(unadjustedScore(decision, steady));
    expect(flaky.score).toBeLessThan(steady.score);
    // ... and the answers carry the adjustment of the candidate that answered.
    const meta = await technical(1000);
    expect(meta.flow_id).toBe(key.steady);
    expect(meta.routing_adjustment).toMatchObject({ source: "learned-prior" });
    expect(meta.routing_breakdown.flow_match).toBeCloseTo(0.7 + meta.routing_adjustment!.delta.flow_match, 6);
    phase1.queries++;
    phase1.steadyAnswered++;
  });

  it("analytics report the flaky flow correctly (usage, failures, latency, fallbacks), cross-checked with the platform", async () => {
    const flakyRuns = flowise.requests.filter((r) => r.route === "run" && r.flowId === FLAKY).length;
    expect(flakyRuns).toBe(phase1.firstChoiceFlaky);
    const report = await callTool<{
      usage: { queries: number; answered: number; attempts: number; failures: number; successRate: number; firstChoice: number; latency: { count: number; p50Ms: number } ; errors: Record<string, number> };
      fallback: { asSource: { queries: number; share: number; topTargets: { flowId: string; count: number }[] } };
      recommendations: { severity: string; message?: string }[];
    }>(gateway.client, "analyze_flow", { flow_id: key.flaky, range: "1h" });
    expect(report.isError, report.text).toBe(false);
    const flaky = report.body;
    expect(flaky.usage).toMatchObject({ queries: phase1.firstChoiceFlaky, answered: phase1.flakyAnswered, attempts: phase1.firstChoiceFlaky, failures: phase1.fallbacks, firstChoice: phase1.firstChoiceFlaky });
    expect(flaky.usage.successRate).toBeCloseTo(phase1.flakyAnswered / phase1.firstChoiceFlaky, 3);
    expect(Object.values(flaky.usage.errors).reduce((a, b) => a + b, 0)).toBe(phase1.fallbacks);
    expect(flaky.usage.latency.count).toBe(phase1.firstChoiceFlaky);
    expect(flaky.usage.latency.p50Ms).toBeGreaterThanOrEqual(FLAKY_DELAY_MS); // every run waited that long
    expect(flaky.fallback.asSource.queries).toBe(phase1.fallbacks);
    expect(flaky.fallback.asSource.share).toBeCloseTo(phase1.fallbacks / phase1.firstChoiceFlaky, 3);
    expect(flaky.fallback.asSource.topTargets).toEqual([{ flowId: key.steady, count: phase1.fallbacks }]);
    expect(flaky.recommendations.length).toBeGreaterThan(0);

    const steady = await callTool<{ usage: { answered: number; failures: number; successRate: number }; fallback: { asTarget: { queries: number } } }>(gateway.client, "analyze_flow", {
      flow_id: key.steady,
      range: "1h",
    });
    expect(steady.body.usage).toMatchObject({ answered: phase1.steadyAnswered, failures: 0, successRate: 1 });
    expect(steady.body.fallback.asTarget.queries).toBe(phase1.fallbacks);

    const dashboard = await callTool<{
      totals: { queries: number; answered: number; failed: number; fallbackQueries: number; attempts: number; attemptFailures: number; successRate: number };
      intents: { intent: string; queries: number }[];
      topFlows: { flowId: string }[];
    }>(gateway.client, "analytics_dashboard", { range: "1h" });
    expect(dashboard.body.totals).toMatchObject({
      queries: phase1.queries,
      answered: phase1.queries,
      failed: 0,
      successRate: 1,
      fallbackQueries: phase1.fallbacks,
      attempts: phase1.queries + phase1.fallbacks,
      attemptFailures: phase1.fallbacks,
    });
    expect(dashboard.body.intents).toEqual([expect.objectContaining({ intent: "technical-analysis", queries: phase1.queries })]);
    expect(dashboard.body.topFlows.map((f) => f.flowId).sort()).toEqual([key.flaky, key.steady].sort());
  });

  it("exports parse as JSON and CSV with the same numbers", async () => {
    const json = await callTool<{ contentType: string; body: string }>(gateway.client, "export_metrics", { format: "json", group_by: "flow", range: "1h" });
    expect(json.body.contentType).toBe("application/json");
    const document = JSON.parse(json.body.body) as { columns: string[]; rows: Array<Record<string, unknown>> };
    const flakyRow = document.rows.find((row) => row["group"] === key.flaky)!;
    expect(flakyRow).toMatchObject({ attempts: phase1.firstChoiceFlaky, attempt_failures: phase1.fallbacks });

    const csv = await callTool<{ contentType: string; body: string }>(gateway.client, "export_metrics", { format: "csv", group_by: "flow", range: "1h" });
    expect(csv.body.contentType).toBe("text/csv");
    const [header, ...rows] = parseCsv(csv.body.body).filter((row) => row.length > 1);
    expect(header).toEqual(document.columns);
    const csvFlaky = rows.find((row) => row[0] === key.flaky)!;
    expect(Number(csvFlaky[header!.indexOf("attempts")])).toBe(phase1.firstChoiceFlaky);
    expect(Number(csvFlaky[header!.indexOf("attempt_failures")])).toBe(phase1.fallbacks);
    expect(rows.length).toBe(document.rows.length);

    const byIntent = await callTool<{ body: string }>(gateway.client, "export_metrics", { format: "csv", group_by: "intent", range: "1h" });
    const intentRows = parseCsv(byIntent.body.body).filter((row) => row.length > 1);
    expect(intentRows.slice(1).map((row) => row[0])).toEqual(["technical-analysis"]);
  });

  it("moves traffic back when the flow recovers and old evidence decays", async () => {
    flowise.clearFaults();
    clock += 6 * HALF_LIFE_MS; // an hour passes for the prior: what it learned fades
    expect(prior.adjust("technical-analysis", key.flaky)).toMatchObject({ flow_match: 0, performance: 0 });
    const decision = await explainTechnical();
    expect(decision.chosen?.flowId).toBe(key.flaky);
    expect(candidate(decision, key.flaky).adjustment?.delta).toEqual({ flow_match: 0, performance: 0 });
    const answered: string[] = [];
    for (let i = 0; i < 30; i++) {
      clock += 1_000;
      const meta = await technical(2000 + i);
      expect(meta.fallback_used).toBe(false);
      answered.push(meta.flow_id);
    }
    expect(answered.every((flowId) => flowId === key.flaky)).toBe(true);
    const learned = prior.adjust("technical-analysis", key.flaky);
    expect(learned.successRate).toBeGreaterThan(0.9);
    expect(learned.flow_match).toBeGreaterThanOrEqual(0);
    expect(learned.performance).toBeGreaterThanOrEqual(0);
    expect(Math.abs(learned.flow_match)).toBeLessThanOrEqual(MAX_ADJUSTMENT);
  });

  it("splits conversation traffic by session at the configured share and compares the arms", async () => {
    const expected = createAbAssignment({ experiments: config.analytics!.experiments! });
    const sessions = 120;
    const arms = new Map<string, string>();
    for (let i = 0; i < sessions; i++) {
      const sessionId = `ab-session-${i}`;
      const meta = await ask({ question: `Hello there, how is your day going? (${i})`, intent: "conversation", session_id: sessionId });
      expect(meta.routing_experiment?.experimentId).toBe("hedge-chat");
      const arm = meta.routing_experiment!.arm;
      // Deterministic: the arm is the hash bucket of the session.
      expect(arm).toBe(expected.bucketOf("hedge-chat", `s:${sessionId}`) < AB_SHARE ? "variant" : "control");
      if (arm === "variant") expect(meta.routing_reason).toMatch(/\[A\/B hedge-chat: variant 'hedged', strategy hedge\]/);
      else expect(meta.routing_reason).toMatch(/\[A\/B hedge-chat: control\]/);
      arms.set(sessionId, arm);
    }
    const variantSessions = [...arms.values()].filter((arm) => arm === "variant").length;
    // The configured share within three standard deviations of a binomial split.
    expect(Math.abs(variantSessions / sessions - AB_SHARE)).toBeLessThan(3 * Math.sqrt((AB_SHARE * (1 - AB_SHARE)) / sessions));
    // Sticky per session.
    for (let i = 0; i < 10; i++) {
      const meta = await ask({ question: `And what about tomorrow? (${i})`, intent: "conversation", session_id: `ab-session-${i}` });
      expect(meta.routing_experiment!.arm).toBe(arms.get(`ab-session-${i}`));
    }
    // Feedback per arm: variant sessions rate 5 stars, control sessions 2.
    const variantIds = [...arms].filter(([, arm]) => arm === "variant").map(([s]) => s).slice(0, 4);
    const controlIds = [...arms].filter(([, arm]) => arm === "control").map(([s]) => s).slice(0, 4);
    for (const sessionId of variantIds) expect((await callTool(gateway.client, "record_feedback", { session_id: sessionId, turn: 1, rating: 5 })).isError).toBe(false);
    for (const sessionId of controlIds) expect((await callTool(gateway.client, "record_feedback", { session_id: sessionId, turn: 1, rating: 2 })).isError).toBe(false);

    type Arm = { queries: number; answered: number; failed: number; successRate: number; latency: { count: number }; feedback: { count: number; mean: number } };
    const dashboard = await callTool<{ experiments: { experimentId: string; control: Arm; variant: Arm; variantShare: number; difference: { successRate: number; feedbackMean: number; p50Ms: number | null } }[] }>(
      gateway.client,
      "analytics_dashboard",
      { range: "1h" },
    );
    const experiment = dashboard.body.experiments.find((e) => e.experimentId === "hedge-chat")!;
    const variantQueries = variantSessions + [...Array(10).keys()].filter((i) => arms.get(`ab-session-${i}`) === "variant").length;
    const totalQueries = sessions + 10;
    expect(experiment.variant).toMatchObject({ queries: variantQueries, answered: variantQueries, failed: 0, successRate: 1, latency: { count: variantQueries }, feedback: { count: 4, mean: 1 } });
    expect(experiment.control).toMatchObject({ queries: totalQueries - variantQueries, answered: totalQueries - variantQueries, successRate: 1, feedback: { count: 4, mean: -0.5 } });
    expect(experiment.variantShare).toBeCloseTo(variantQueries / totalQueries, 3);
    expect(experiment.difference.successRate).toBe(0);
    expect(experiment.difference.feedbackMean).toBeCloseTo(1.5, 6);
    expect(typeof experiment.difference.p50Ms).toBe("number");

    // analyze_flow of a conversation flow reports the same experiment among its queries.
    const chat = await callTool<{ experiments: { experimentId: string; control: Arm; variant: Arm }[] }>(gateway.client, "analyze_flow", { flow_id: key.flowiseChat, range: "1h" });
    const touched = chat.body.experiments.find((e) => e.experimentId === "hedge-chat")!;
    expect(touched.control.queries + touched.variant.queries).toBeGreaterThan(0);
    expect(touched.variant.queries).toBeLessThanOrEqual(variantQueries);
  });

  it("sync_flow_registry: a dry run changes nothing, apply does what it proposed and invalidates the changed flows' cache; a reload takes the new registry", async () => {
    const question = { question: "What are your opening hours?", intent: "conversation", flow_id: key.flowiseChat };
    expect((await ask(question)).cache_hit).toBe(false);
    expect((await ask(question)).cache_hit).toBe(true);
    const registryBefore = JSON.stringify(gateway.gateway.config.backends);
    expect((await gateway.gateway.registry.flows()).find((f) => f.id === key.dataCleaner)?.source).not.toBe("merged");

    type Change = { action: string; flowId: string; entry?: Record<string, unknown> };
    type Sync = { applied: boolean; changes: Change[]; invalidateFlowIds: string[]; invalidated: number; registry: { backendId: string; flows: Array<Record<string, unknown>> }[] };
    const dry = await callTool<Sync>(gateway.client, "sync_flow_registry", {});
    expect(dry.isError, dry.text).toBe(false);
    expect(dry.body.applied).toBe(false);
    expect(dry.body.invalidateFlowIds).toEqual([]);
    const added = dry.body.changes.find((c) => c.flowId === key.dataCleaner)!;
    expect(added).toMatchObject({ action: "add", entry: { id: DATA_CLEANER, intents: expect.arrayContaining(["data-processing"]) } });
    const chatUpdate = dry.body.changes.find((c) => c.flowId === key.flowiseChat)!;
    expect(chatUpdate).toMatchObject({ action: "update", entry: { id: FLOWISE_CHAT, name: "Support Chat" } });
    // Nothing changed: configuration and cache.
    expect(JSON.stringify(gateway.gateway.config.backends)).toBe(registryBefore);
    expect((await ask(question)).cache_hit).toBe(true);

    const applied = await callTool<Sync>(gateway.client, "sync_flow_registry", { apply: true, flow_ids: [key.dataCleaner, key.flowiseChat] });
    expect(applied.body.applied).toBe(true);
    expect(applied.body.changes).toEqual(dry.body.changes.filter((c) => c.flowId === key.dataCleaner || c.flowId === key.flowiseChat));
    expect([...applied.body.invalidateFlowIds].sort()).toEqual([key.dataCleaner, key.flowiseChat].sort());
    const flowiseRegistry = applied.body.registry.find((r) => r.backendId === "flowise")!.flows;
    expect(flowiseRegistry.find((f) => f["id"] === DATA_CLEANER)).toEqual(added.entry);
    expect(flowiseRegistry.find((f) => f["id"] === FLOWISE_CHAT)).toEqual(chatUpdate.entry);
    expect(flowiseRegistry.find((f) => f["id"] === FLAKY)).toMatchObject({ id: FLAKY, intents: ["technical-analysis"] });
    // The changed flow's cached answer is gone.
    expect((await ask(question)).cache_hit).toBe(false);

    // Persisting the registry is the operator's step; a reload then applies it without a restart.
    const nextConfig: GatewayConfigInput = {
      ...config,
      backends: config.backends!.map((b) => (b.id === "flowise" ? { ...b, flows: flowiseRegistry as never } : b)),
    };
    const report = await gateway.gateway.reload(gatewayConfigLike(nextConfig));
    expect(report).toMatchObject({ intentPatterns: false, experiments: false, backends: ["flowise"], restartRequired: [] });
    expect([...report.invalidatedFlows].sort()).toEqual([key.dataCleaner, key.flowiseChat].sort());
    expect(gateway.gateway.config.backends.find((b) => b.id === "flowise")!.flows.map((f) => f.id)).toEqual(flowiseRegistry.map((f) => f["id"]));
    const flows = await gateway.gateway.registry.flows();
    expect(flows.find((f) => f.id === key.dataCleaner)).toMatchObject({ source: "merged", intents: added.entry!["intents"] });
    const data = await ask({ question: "Clean this CSV and dedupe the rows", intent: "data-processing" });
    expect(data.flow_id).toBe(key.dataCleaner);
  });
});

/** The scenario's configuration as the gateway was started with it (test defaults included). */
function gatewayConfigLike(input: GatewayConfigInput): GatewayConfigInput {
  const current = gateway.gateway.config;
  return { ...input, routing: { ...current.routing, ...input.routing }, tools: { ...current.tools, ...input.tools }, logging: current.logging, metrics: current.metrics };
}
