import { z } from "zod";
import { GlobPatternSchema, IntentSchema, SessionIdSchema, SessionTagsSchema, type HistoryQuery } from "@afw/contracts";
import { DashboardHttpError, type DashboardValidationIssue } from "./http-responses.js";

const limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

/** Printable ASCII without spaces, as trace ids and glob patterns are. */
const PRINTABLE = /^[\x21-\x7e]+$/;

/** Query of endpoints that take no parameters. */
export const NoParametersSchema = z.strictObject({});

/** Query of `GET {apiPath}/queries`: `limit` 1..500 (default 50). */
export const QueriesParametersSchema = z.strictObject({ limit: limit(500, 50) });

/** Query of `GET {apiPath}/sessions`: `limit` 1..200 (default 20) and an optional glob `pattern`. */
export const SessionsParametersSchema = z.strictObject({
  limit: limit(200, 20),
  pattern: GlobPatternSchema.regex(PRINTABLE, "pattern must be printable characters without spaces").optional(),
});

/** Query of `GET {apiPath}/tools/search`: `q` (1..500 characters) and `limit` 1..50 (default 10). */
export const ToolSearchParametersSchema = z.strictObject({
  q: z.string().trim().min(1, "q must not be empty").max(500),
  limit: limit(50, 10),
});

const range = z.enum(["1h", "24h", "7d"], "range must be one of 1h, 24h, 7d").default("24h");

/** Query of `GET {apiPath}/analytics/summary`: `range` `1h`/`24h`/`7d` (default `24h`) and `top` 1..50 flows (default 10). */
export const AnalyticsSummaryParametersSchema = z.strictObject({ range, top: limit(50, 10) });

/** Query of `GET {apiPath}/analytics/flows/:flowId` and `analytics/patterns`: `range` (default `24h`). */
export const AnalyticsRangeParametersSchema = z.strictObject({ range });

/** Query of `GET {apiPath}/analytics/learned`: an optional `intent`. */
export const LearnedPriorParametersSchema = z.strictObject({ intent: IntentSchema.optional() });

/**
 * Query of `GET {apiPath}/analytics/export`: `range` (default `24h`), `format` `json`/`csv`
 * (default `json`) and `groupBy` `backend`/`flow`/`intent` (default `flow`).
 */
export const MetricsExportParametersSchema = z.strictObject({
  range,
  format: z.enum(["json", "csv"], "format must be json or csv").default("json"),
  groupBy: z.enum(["backend", "flow", "intent"], "groupBy must be backend, flow or intent").default("flow"),
});

/** A gateway-wide flow id in a path: 1..200 characters without control characters (as `analyze_flow` takes). */
export const FlowIdParameterSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\u0000-\u001f\u007f]+$/, "flow id must not contain control characters");

const isoTime = z.iso.datetime({ offset: true, message: "must be an ISO 8601 time such as 2026-01-31T09:00:00Z" }).transform((time) => Date.parse(time));

/**
 * Query of `GET {apiPath}/history` (the `search_history` criteria): `q` keywords, `tag`, `session`,
 * `backend`, `flow`, `from`/`to` (ISO 8601), `cursor`, `limit` 1..100 (default 20).
 */
export const HistoryParametersSchema = z
  .strictObject({
    q: z.string().trim().min(1, "q must not be empty").max(1000).optional(),
    tag: SessionTagsSchema.element.optional(),
    session: SessionIdSchema.optional(),
    backend: z.string().min(1).max(64).regex(PRINTABLE, "backend must be printable characters without spaces").optional(),
    flow: FlowIdParameterSchema.optional(),
    from: isoTime.optional(),
    to: isoTime.optional(),
    cursor: z.string().min(1).max(64).regex(PRINTABLE, "cursor must be printable characters without spaces").optional(),
    limit: limit(100, 20),
  })
  .transform(({ q, tag, session, backend, flow, from, to, cursor, limit }): HistoryQuery => {
    const query: HistoryQuery = { text: q, tag, sessionId: session, backendId: backend, flowId: flow, from, to, cursor, limit };
    for (const key of Object.keys(query) as (keyof HistoryQuery)[]) if (query[key] === undefined) delete query[key];
    return query;
  });

/** A trace id in a path: 1..200 printable characters without spaces. */
export const TraceIdSchema = z.string().min(1).max(200).regex(PRINTABLE, "trace id must be printable characters without spaces");

/**
 * Body of `POST {apiPath}/cache/clear`: exactly one of `{ "flowId": "…" }`,
 * `{ "sessionId": "…" }` or `{ "all": true }`.
 */
export const ClearCacheBodySchema = z.union([
  z.strictObject({ flowId: z.string().min(1).max(300) }),
  z.strictObject({ sessionId: SessionIdSchema }),
  z.strictObject({ all: z.literal(true) }),
]);

const SAFE_KEY = /^[A-Za-z0-9_.-]{1,40}$/;

function toIssues(error: z.ZodError): DashboardValidationIssue[] {
  const issues: DashboardValidationIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      // Name unknown keys only when they are harmless identifiers; never echo anything else.
      const named = issue.keys.filter((key) => SAFE_KEY.test(key));
      issues.push({ path: issue.path.map(String), message: named.length ? `unknown parameter(s): ${named.join(", ")}` : "unknown parameter(s)" });
      continue;
    }
    if (issue.code === "invalid_union") {
      issues.push({ path: issue.path.map(String), message: "expected exactly one of { flowId }, { sessionId } or { all: true }" });
      continue;
    }
    issues.push({ path: issue.path.map(String), message: issue.message });
  }
  return issues;
}

/**
 * Parses `input` with `schema`.
 *
 * @throws DashboardHttpError 400 `INVALID_INPUT` with the issues (which never echo the input).
 */
export function parseRequest<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new DashboardHttpError(400, "INVALID_INPUT", `invalid ${what}`, { issues: toIssues(result.error) });
  return result.data;
}

/**
 * The query string as a plain object.
 *
 * @throws DashboardHttpError 400 `INVALID_INPUT` when a parameter is repeated.
 */
export function searchParamsToObject(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of params) {
    if (Object.prototype.hasOwnProperty.call(out, key)) {
      const path = SAFE_KEY.test(key) ? [key] : [];
      throw new DashboardHttpError(400, "INVALID_INPUT", "invalid query parameters", { issues: [{ path, message: "parameter given more than once" }] });
    }
    out[key] = value;
  }
  return out;
}
