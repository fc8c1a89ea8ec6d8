/** Pure view-model functions of the page (no DOM, no preact): formatting and the shapes the components render. */

const EMPTY = "—";
/** @type {(value: unknown) => value is number} */
const finite = (value) => typeof value === "number" && Number.isFinite(value);

/** `812 ms`, `1.6 s`, `12 s`, or `—`. */
export function formatMs(ms) {
  if (!finite(ms)) return EMPTY;
  if (ms >= 10_000) return `${(ms / 1000).toFixed(0)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms)} ms`;
}

/** A ratio 0..1 as `34.8%` (whole numbers at 0 and 100%), or `—`. */
export function formatPercent(ratio) {
  if (!finite(ratio)) return EMPTY;
  return `${(ratio * 100).toFixed(ratio >= 0.995 || ratio === 0 ? 0 : 1)}%`;
}

/** `+0.1000` / `-0.0912`, or `—`. */
export function formatSigned(value, digits = 4) {
  return finite(value) ? `${value > 0 ? "+" : ""}${value.toFixed(digits)}` : EMPTY;
}

/** Integers as they are, others with two decimals, or `—`. */
export function formatNumber(value) {
  return finite(value) ? (Number.isInteger(value) ? String(value) : value.toFixed(2)) : EMPTY;
}

/** Local `HH:MM:SS` of an ISO time or epoch milliseconds, or `—`. */
export function formatTime(value, withDate = false) {
  const date = new Date(value ?? NaN);
  if (Number.isNaN(date.getTime())) return EMPTY;
  return withDate
    ? date.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
    : date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
}

/** The ISO form of a time, or undefined. */
export function isoOf(value) {
  const date = new Date(value ?? NaN);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** `backend:flow` → `flow`. */
export function shortFlow(flowId) {
  const index = String(flowId).indexOf(":");
  return index >= 0 ? String(flowId).slice(index + 1) : String(flowId);
}

/** `backend / flow` of a flow reference. */
export const routeOf = (ref) => (ref ? `${ref.backendId} / ${shortFlow(ref.flowId)}` : EMPTY);

/** The router's first choice of a feed row, and the flow that answered it, as flow references. */
export const chosenOf = (summary) => (summary.chosenFlowId === undefined ? undefined : { backendId: summary.chosenBackendId, flowId: summary.chosenFlowId });
export const answeredOf = (summary) => (summary.answeredFlowId === undefined ? undefined : { backendId: summary.answeredBackendId, flowId: summary.answeredFlowId });

/** The question of a feed row, or what is known of it. */
export function questionText(summary) {
  if (summary.questionRedacted) return `[redacted] (${summary.questionLength ?? "?"} characters)`;
  if (typeof summary.question === "string") return summary.question;
  return summary.questionLength !== undefined ? `(question not recorded, ${summary.questionLength} characters)` : "(question not recorded)";
}

export const CACHE_LABELS = { exact: "cache hit", semantic: "semantic cache hit", miss: "cache miss", bypass: "cache bypassed", unknown: "cache —" };

/** The facts list of an expanded feed row, without empty ones. */
export function queryFacts(summary) {
  const intent = summary.intent ? `${summary.intent} (${formatPercent(summary.confidence)}${summary.method ? `, ${summary.method}` : ""})` : undefined;
  const error = summary.errorCode ? `${summary.errorCode}${summary.errorMessage ? `: ${summary.errorMessage}` : ""}` : undefined;
  const facts = [
    ["Trace id", summary.traceId],
    ["Session", summary.sessionId],
    ["Tool", summary.tool],
    ["Intent", intent],
    ["Strategy", summary.strategy],
    ["First choice", chosenOf(summary) && routeOf(chosenOf(summary))],
    ["Answered by", answeredOf(summary) && routeOf(answeredOf(summary))],
    ["Latency", summary.durationMs !== undefined ? formatMs(summary.durationMs) : undefined],
    ["Error", error],
  ];
  return facts.filter(([, value]) => value !== undefined && value !== "");
}

/**
 * The feed's hedge badge: `hedge won` when the answer came from the partner that ran in parallel
 * (the query's `fallback_used` with reason `hedge`), `hedged` when a partner ran but the first
 * choice answered, `undefined` when nothing was hedged.
 */
export function hedgeBadge(summary) {
  const hedged = (summary.attempts ?? []).filter((attempt) => attempt.hedged);
  if (hedged.length === 0) return undefined;
  const answered = answeredOf(summary);
  const won = hedged.some((attempt) => attempt.outcome === "success" && attempt.flowId === answered?.flowId && attempt.backendId === answered?.backendId);
  return won ? "hedge won" : "hedged";
}

/** One attempt as a line: `backend / flow (attempt 1): error CODE HTTP 503, 45 ms (hedged)`. */
export function attemptText(attempt) {
  return [
    `${routeOf(attempt)} (attempt ${attempt.attempt}): ${attempt.outcome}`,
    attempt.errorCode ? ` ${attempt.errorCode}` : "",
    attempt.statusCode ? ` HTTP ${attempt.statusCode}` : "",
    attempt.latencyMs !== undefined ? `, ${formatMs(attempt.latencyMs)}` : "",
    attempt.hedged ? " (hedged)" : "",
  ].join("");
}

/** A trace event's fields other than its ids, as `key=value` pairs. */
export function eventDetails(event) {
  const parts = [];
  for (const [key, value] of Object.entries(event)) {
    if (["type", "traceId", "requestId", "sessionId", "timestamp"].includes(key)) continue;
    if (key === "decision" && value && typeof value === "object") {
      parts.push(`intent=${value.intent}`, `confidence=${formatPercent(value.confidence)}`, `strategy=${value.strategy}`, `candidates=${(value.candidates ?? []).length}`);
      if (value.chosen) parts.push(`chosen=${value.chosen.flowId}`);
      if (value.reason) parts.push(`reason=${value.reason}`);
      continue;
    }
    parts.push(`${key}=${typeof value === "object" ? JSON.stringify(value) : String(value)}`);
  }
  return parts.join("  ");
}

/** Inserts or replaces `summary` in the feed rows, newest first, at most `max` rows. */
export function upsertRow(rows, summary, max = 100) {
  if (!summary || typeof summary.traceId !== "string") return rows;
  const others = rows.filter((row) => row.traceId !== summary.traceId);
  const started = (row) => Number(row.startedAt) || 0;
  return [...others, summary].sort((a, b) => started(b) - started(a)).slice(0, max);
}

/**
 * Geometry of a sparkline: polylines of the defined values (gaps split them), single points as
 * dots, and a description for assistive technology.
 *
 * @param {Array<number | undefined>} values
 * @param {{ label: string, format: (value: number) => string, min?: number, max?: number, width?: number, height?: number }} options
 */
export function sparkline(values, { label, format, min, max, width = 120, height = 32 }) {
  const pad = 3;
  const defined = values.filter(finite);
  const description = defined.length
    ? `${label}: latest ${format(defined.at(-1) ?? 0)}, lowest ${format(Math.min(...defined))}, highest ${format(Math.max(...defined))}`
    : `${label}: no data in the last hour`;
  const low = min ?? Math.min(...defined);
  const high = Math.max(max ?? Math.max(...defined), low + 1e-9);
  const step = values.length > 1 ? (width - 2 * pad) / (values.length - 1) : 0;
  const segments = /** @type {number[][][]} */ ([[]]);
  values.forEach((value, index) => {
    if (finite(value)) segments.at(-1)?.push([+(pad + index * step).toFixed(1), +(height - pad - ((value - low) / (high - low)) * (height - 2 * pad)).toFixed(1)]);
    else if (segments.at(-1)?.length) segments.push([]);
  });
  const drawn = segments.filter((segment) => segment.length > 0);
  return {
    width,
    height,
    description,
    lines: drawn.filter((segment) => segment.length > 1).map((segment) => segment.map((point) => point.join(",")).join(" ")),
    dots: drawn.filter((segment) => segment.length === 1).map(([point]) => point ?? [0, 0]),
  };
}

/** Headline numbers of the overview as `[term, value]`. */
export function overviewItems(overview, feedCount) {
  const totals = overview?.totals ?? {};
  const items = [];
  if (totals.backends !== undefined) items.push(["Healthy backends", `${totals.healthyBackends ?? 0} of ${totals.backends}`]);
  if (totals.openCircuits !== undefined) items.push(["Open circuits", String(totals.openCircuits)]);
  if (totals.cacheHitRate !== undefined) items.push(["Cache hit rate", formatPercent(totals.cacheHitRate)]);
  items.push(["Queries in feed", String(feedCount)]);
  return items;
}

/** `3 results, confidence 1.00, mode keyword` of a tool search. */
export function toolSearchStatus(search) {
  const count = (search.results ?? []).length;
  const facts = [`${count} ${count === 1 ? "result" : "results"}`];
  if (typeof search.confidence === "number") facts.push(`confidence ${search.confidence.toFixed(2)}`);
  if (search.mode) facts.push(`mode ${search.mode}`);
  if (search.fallback) facts.push("low confidence: safe set returned");
  return facts.join(", ");
}

/** The semantic cache panel's figures, or undefined when there is nothing to show. */
export function semanticCacheItems(stats) {
  if (!stats) return undefined;
  return [
    ["Status", stats.enabled ? "on" : "off", "enabled"],
    ["Hit rate", stats.lookups > 0 ? formatPercent(stats.hits / stats.lookups) : EMPTY, "hit-rate"],
    ["Hits / lookups", `${stats.hits} / ${stats.lookups}`, "hits"],
    ["Guard rejections", String(stats.guardRejections), "guard-rejections"],
    ["Threshold", formatNumber(stats.threshold), "threshold"],
  ];
}

/** The query string of a history search from the form's fields: empty fields dropped, local times as ISO. */
export function historyParams(fields) {
  const params = /** @type {Record<string, string>} */ ({});
  for (const [key, value] of Object.entries(fields)) {
    const text = String(value ?? "").trim();
    if (text === "") continue;
    params[key] = key === "from" || key === "to" ? (isoOf(text) ?? text) : text;
  }
  return params;
}

/** The totals of an analytics summary as `[term, value, key]`. */
export function analyticsKpis(summary) {
  const totals = summary.totals ?? {};
  const items = [
    ["Queries", String(totals.queries ?? 0), "queries"],
    ["Success rate", formatPercent(totals.successRate), "success"],
    ["Cache hit rate", formatPercent(totals.cacheHitRate), "cache-hit-rate"],
    ["Fallback rate", formatPercent(totals.fallbackRate), "fallback-rate"],
    ["Query latency p50 / p95", `${formatMs(summary.queryLatency?.p50Ms)} / ${formatMs(summary.queryLatency?.p95Ms)}`, "latency"],
  ];
  if (totals.feedback?.count > 0) items.push(["Feedback", feedbackText(totals.feedback), "feedback"]);
  return items;
}

/** `+0.50 (3)` of a feedback summary, or `—`. */
export const feedbackText = (feedback) => (feedback?.count > 0 ? `${formatSigned(feedback.mean, 2)} (${feedback.count})` : EMPTY);
