import { describe, expect, it } from "vitest";
import { AfwError } from "@afw/contracts";
import { createLearnedRoutingPrior, createMemoryAuditLog, createMemoryFeedbackStore, type FeedbackStore } from "./index.js";
import { normalizeRating } from "./feedback.js";
import { recordFeedback } from "./record-feedback.js";
import { createTrafficGenerator } from "./test.js";

function setup() {
  let clock = Date.UTC(2025, 4, 1);
  const auditLog = createMemoryAuditLog({ now: () => clock });
  const feedbackStore = createMemoryFeedbackStore();
  const traffic = createTrafficGenerator({
    flows: [
      { flowId: "flowise:docs", intents: ["rag-retrieval"] },
      { flowId: "langflow:chat", intents: ["conversation"] },
    ],
    start: clock,
    sink: auditLog,
  });
  const first = traffic.query({ intent: "rag-retrieval", sessionId: "s-1" });
  const second = traffic.query({ intent: "conversation", sessionId: "s-1" });
  const other = traffic.query({ intent: "conversation", sessionId: "s-2" });
  clock = traffic.now() + 5000;
  return { auditLog, feedbackStore, first, second, other, now: () => clock };
}

describe("recordFeedback", () => {
  it("links a rating by trace id to the flow, backend and intent that answered", async () => {
    const { auditLog, feedbackStore, first, now } = setup();
    const result = await recordFeedback({ session_id: "s-1", trace_id: first.traceId, rating: 4, comment: "good sources" }, { feedbackStore, auditLog, now });
    expect(result).toMatchObject({ stored: true, linked: true });
    expect(result.record).toEqual({
      id: `s-1#${first.traceId}`,
      sessionId: "s-1",
      traceId: first.traceId,
      rating: 4,
      scale: "stars",
      score: 0.5,
      comment: "good sources",
      flowId: "flowise:docs",
      backendId: "flowise",
      intent: "rag-retrieval",
      createdAt: now(),
      linked: true,
    });
    expect(await feedbackStore.list()).toEqual([result.record]);
  });

  it("finds the n-th turn of a session in the audit log, or through resolveTurn", async () => {
    const { auditLog, feedbackStore, first, second, now } = setup();
    const byLog = await recordFeedback({ session_id: "s-1", turn: 2, rating: -1 }, { feedbackStore, auditLog, now });
    expect(byLog.record).toMatchObject({ traceId: second.traceId, flowId: "langflow:chat", intent: "conversation", turn: 2, score: -1, linked: true });
    const resolved: Array<[string, number]> = [];
    const byResolver = await recordFeedback(
      { session_id: "s-1", turn: 7, rating: 1 },
      {
        feedbackStore,
        auditLog,
        now,
        resolveTurn: (sessionId, turn) => {
          resolved.push([sessionId, turn]);
          return first.traceId;
        },
      },
    );
    expect(resolved).toEqual([["s-1", 7]]);
    expect(byResolver.record).toMatchObject({ traceId: first.traceId, flowId: "flowise:docs" });
    const unknown = await recordFeedback({ session_id: "s-1", turn: 9, rating: 0 }, { feedbackStore, auditLog, now });
    expect(unknown).toMatchObject({ linked: false, record: { id: "s-1#turn:9", turn: 9 } });
    expect(unknown.record.flowId).toBeUndefined();
  });

  it("replaces an earlier rating of the same turn", async () => {
    const { auditLog, feedbackStore, first, now } = setup();
    await recordFeedback({ session_id: "s-1", trace_id: first.traceId, rating: 1 }, { feedbackStore, auditLog, now });
    await recordFeedback({ session_id: "s-1", turn: 1, rating: -0.5 }, { feedbackStore, auditLog, now });
    const list = await feedbackStore.list();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ score: -0.5, turn: 1 });
  });

  it("refuses to rate another session's trace and invalid input", async () => {
    const { auditLog, feedbackStore, other, now } = setup();
    await expect(recordFeedback({ session_id: "s-1", trace_id: other.traceId, rating: 1 }, { feedbackStore, auditLog, now })).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
    await expect(recordFeedback({ session_id: "s-1", rating: 1 }, { feedbackStore, auditLog, now })).rejects.toThrow(/turn or trace_id/);
    await expect(recordFeedback({ session_id: "s 1", turn: 1, rating: 1 }, { feedbackStore })).rejects.toSatisfy(AfwError.isInstance);
    await expect(recordFeedback({ session_id: "s-1", turn: 1, rating: 7 }, { feedbackStore })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    expect(await feedbackStore.list()).toEqual([]);
  });

  it("teaches the learned prior and survives a failing store", async () => {
    const { auditLog, first, now } = setup();
    const prior = createLearnedRoutingPrior({ now });
    const failing: FeedbackStore = { ...createMemoryFeedbackStore(), put: async () => false };
    const result = await recordFeedback({ session_id: "s-1", trace_id: first.traceId, rating: -1 }, { feedbackStore: failing, auditLog, prior, now });
    expect(result.stored).toBe(false);
    const learned = prior.snapshot("rag-retrieval");
    expect(learned).toHaveLength(1);
    expect(learned[0]).toMatchObject({ flowId: "flowise:docs", stats: { fn: 1, f: -1, n: 0 } });
  });
});

describe("normalizeRating", () => {
  it("maps unit and star ratings to -1..1", () => {
    expect(normalizeRating(-1)).toEqual({ score: -1, scale: "unit" });
    expect(normalizeRating(1)).toEqual({ score: 1, scale: "unit" });
    expect(normalizeRating(0.25)).toEqual({ score: 0.25, scale: "unit" });
    expect(normalizeRating(5)).toEqual({ score: 1, scale: "stars" });
    expect(normalizeRating(2)).toEqual({ score: -0.5, scale: "stars" });
    expect(normalizeRating(1, "stars")).toEqual({ score: -1, scale: "stars" });
    expect(() => normalizeRating(0, "stars")).toThrow(/between 1 and 5/);
    expect(() => normalizeRating(3, "unit")).toThrow(/between -1 and 1/);
    expect(() => normalizeRating(Number.NaN)).toThrow(/finite/);
    expect(() => normalizeRating(-3)).toThrow();
  });
});
