import { describe, expect, it } from "vitest";
import type { TraceEvent } from "@afw/contracts";
import { presentQuery, presentSession, presentTraceEvent, REDACTED_TEXT, truncateText } from "./presentation.js";
import type { QuerySummary } from "./dashboard-source.js";

const open = { redact: false };
const hidden = { ...open, redact: true };

const summary = (question?: string): QuerySummary => ({
  traceId: "t",
  requestId: "r",
  startedAt: Date.parse("2026-01-01T00:00:00.000Z"),
  alternatives: [],
  candidates: [],
  attempts: [],
  fallbacks: [],
  cache: "miss",
  outcome: "answered",
  fallbackUsed: false,
  cacheHit: false,
  ...(question === undefined ? {} : { question }),
});

describe("truncateText", () => {
  it("keeps short text and cuts long text with an ellipsis", () => {
    expect(truncateText("short", 10)).toEqual({ text: "short", truncated: false });
    expect(truncateText("exactly-10", 10)).toEqual({ text: "exactly-10", truncated: false });
    expect(truncateText("hello world", 6)).toEqual({ text: "hello…", truncated: true });
  });

  it("never splits a surrogate pair", () => {
    const { text } = truncateText("abcd😀efgh", 6);
    expect(text).toBe("abcd…");
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});

describe("presentQuery", () => {
  it("truncates the question and records its full length", () => {
    const shown = presentQuery(summary("What is the meaning of life? ".repeat(10)), open);
    expect(shown).toMatchObject({ questionTruncated: true, questionLength: 290 });
    expect(shown.question).toHaveLength(200);
    expect(shown.question!.endsWith("…")).toBe(true);
    expect(presentQuery(summary("What is the meaning of life?"), open)).toMatchObject({ question: "What is the meaning of life?" });
  });

  it("hides the question when redacting", () => {
    const shown = presentQuery(summary("secret plans"), hidden);
    expect(shown.question).toBeUndefined();
    expect(shown).toMatchObject({ questionRedacted: true, questionLength: 12 });
    expect(JSON.stringify(shown)).not.toContain("secret");
  });

  it("leaves a summary without a question alone and does not mutate its input", () => {
    const input = summary("What is the meaning of life?");
    presentQuery(input, hidden);
    expect(input.question).toBe("What is the meaning of life?");
    expect(presentQuery(summary(), hidden)).toEqual(summary());
  });
});

describe("presentSession", () => {
  const record = {
    sessionId: "s",
    turns: 1,
    createdAt: 0,
    updatedAt: 0,
    turnsList: [{ question: "q".repeat(250), answer: "a".repeat(450), askedAt: 0, answeredAt: 1 }],
  };
  it("truncates turns, or redacts them", () => {
    expect(presentSession(record, open).turnsList[0]).toMatchObject({ question: `${"q".repeat(199)}…`, answer: `${"a".repeat(399)}…` });
    expect(presentSession(record, hidden).turnsList[0]).toMatchObject({ question: REDACTED_TEXT, answer: REDACTED_TEXT });
  });
});

describe("presentTraceEvent", () => {
  const base = { traceId: "t", requestId: "r", timestamp: "2026-01-01T00:00:00.000Z" };
  it("redacts searched text only in redacted mode", () => {
    const search: TraceEvent = { ...base, type: "tool-search-performed", target: "tools", query: "my query", mode: "hybrid", results: [], confidence: 0.5 };
    const listing: TraceEvent = { ...base, type: "tool-list-requested", mode: "routed", context: "user context" };
    expect(presentTraceEvent(search, open)).toBe(search);
    expect(presentTraceEvent(search, hidden)).toMatchObject({ query: REDACTED_TEXT });
    expect(presentTraceEvent(listing, hidden)).toMatchObject({ context: REDACTED_TEXT });
    const miss: TraceEvent = { ...base, type: "cache-miss", scope: "shared", reason: "absent" };
    expect(presentTraceEvent(miss, hidden)).toBe(miss);
  });
});
