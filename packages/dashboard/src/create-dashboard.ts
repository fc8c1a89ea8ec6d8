import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { AfwError, SessionIdSchema, parseOrThrow, type TraceEvent } from "@afw/contracts";
import type { DashboardSource, GatewayInfo, QuerySummary } from "./dashboard-source.js";
import { EventStreamHub } from "./event-stream.js";
import { renderHtmlShell } from "./html-shell.js";
import { DashboardHttpError, readJsonBody, sendError, sendJson, setSecurityHeaders } from "./http-responses.js";
import { createPageAssets } from "./static-assets.js";
import { toCsv } from "@afw/analytics";
import { renderIntentPatternsYaml } from "./analytics-format.js";
import { presentPatternAnalysis, presentQuery, presentSession, presentTraceEvent, presentTurn, type PresentationOptions } from "./presentation.js";
import {
  AnalyticsRangeParametersSchema,
  AnalyticsSummaryParametersSchema,
  ClearCacheBodySchema,
  FlowIdParameterSchema,
  HistoryParametersSchema,
  LearnedPriorParametersSchema,
  MetricsExportParametersSchema,
  NoParametersSchema,
  QueriesParametersSchema,
  SessionsParametersSchema,
  ToolSearchParametersSchema,
  TraceIdSchema,
  parseRequest,
  searchParamsToObject,
} from "./request-schemas.js";

/** Largest accepted request body (clear cache), bytes. */
const MAX_BODY_BYTES = 16 * 1024;

const PathSchema = z
  .string()
  .regex(/^(\/[A-Za-z0-9._~-]+)+\/?$/, "must be an absolute path such as /dashboard (letters, digits, . _ ~ -)")
  .transform((path) => path.replace(/\/+$/, ""));

const DashboardSettingsSchema = z.object({
  basePath: PathSchema.default("/dashboard"),
  apiPath: PathSchema.default("/api"),
  redact: z.boolean().default(false),
});

/** Options of {@link createDashboard}; the defaults are those of the README's options table. */
export interface DashboardOptions {
  /** Where the data comes from (implemented by the gateway). */
  source: DashboardSource;
  /** Path of the page and its assets. @default "/dashboard" */
  basePath?: string;
  /** Path of the JSON endpoints and the live feed (absolute, not relative to `basePath`). @default "/api" */
  apiPath?: string;
  /** Hide user text: questions (only their length is shown), session turns and tool-search queries. @default false */
  redact?: boolean;
  /** Receives every error the source throws (the client sees a generic 500), for logging. */
  onError?: (error: unknown, context: { path: string; operation: string }) => void;
}

/** A mounted dashboard: a `node:http` handler plus lifecycle. */
export interface Dashboard {
  /**
   * Serves a request under `basePath` or `apiPath` and resolves `true`; resolves `false` (without
   * touching `res`) for any other path. Authentication is the caller's job; `GET {apiPath}/history`
   * searches within `scope.tenant` (every other endpoint spans all tenants).
   */
  handle(req: IncomingMessage, res: ServerResponse, scope?: { tenant?: string | undefined }): Promise<boolean>;
  /** True for the paths that carry no data (the page shell, its modules and style), which may be served without a token. */
  isPublicPath(pathname: string): boolean;
  /** The normalised base path, e.g. `/dashboard`. */
  readonly basePath: string;
  /** The normalised API path, e.g. `/api`. */
  readonly apiPath: string;
  /** Pages currently connected to the live feed. */
  readonly liveClientCount: number;
  /** Ends every live-feed connection (call before closing the HTTP server). */
  close(): void;
}

/** Which source method each section of {@link DashboardOverview.sections} needs. */
const SECTION_METHODS = {
  backends: "backends",
  flows: "flows",
  queries: "recentQueries",
  liveFeed: "subscribe",
  cache: "cache",
  clearCache: "clearCache",
  sessions: "sessions",
  toolServers: "toolServers",
  toolSearch: "searchTools",
  history: "searchHistory",
  semanticCache: "semanticCacheStats",
  analytics: "analyticsSummary",
  flowAnalysis: "flowAnalysis",
  patterns: "patternAnalysis",
  learnedPrior: "learnedPrior",
  metricsExport: "exportMetrics",
} as const satisfies Record<string, keyof DashboardSource>;

/** JSON body of `GET {apiPath}/overview`. */
export interface DashboardOverview {
  info?: GatewayInfo | undefined;
  /** Whether user text is hidden. */
  redacted: boolean;
  /** Which parts the source implements. */
  sections: Record<keyof typeof SECTION_METHODS, boolean>;
  /** Headline numbers, when the source provides backends and cache. */
  totals: { backends?: number; healthyBackends?: number; openCircuits?: number; cacheHitRate?: number };
}

function isUnder(pathname: string, prefix: string): boolean {
  return pathname === prefix || pathname.startsWith(`${prefix}/`);
}

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const mediaType = header.split(";")[0]?.trim().toLowerCase();
  return mediaType === "application/json";
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Creates the operator dashboard: a `node:http` handler that serves the page (`basePath`), its
 * JSON endpoints and the live feed (`apiPath`; the endpoints are listed in the README). Mount it
 * in the gateway's HTTP listener behind the same bearer auth as `/mcp`.
 *
 * @throws AfwError `CONFIG_INVALID` when an option is invalid.
 * @example
 * ```ts
 * const dashboard = createDashboard({ source: createSampleDashboardSource() });
 * createServer(async (req, res) => {
 *   if (!(await dashboard.handle(req, res))) res.writeHead(404).end();
 * }).listen(8788, "127.0.0.1");
 * ```
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  const { source, onError: reportError, ...rest } = options;
  if (!source || typeof source !== "object") throw new AfwError("CONFIG_INVALID", "createDashboard: `source` is required");
  const settings = parseOrThrow(DashboardSettingsSchema, rest, "CONFIG_INVALID", "dashboard options");
  if (settings.basePath === settings.apiPath) throw new AfwError("CONFIG_INVALID", "invalid dashboard options: basePath and apiPath must differ");
  const { basePath, apiPath } = settings;
  const presentation: PresentationOptions = { redact: settings.redact };
  const onError = (error: unknown, path: string, operation: string): void => {
    try {
      reportError?.(error, { path, operation });
    } catch {
      // the error reporter must not break the response
    }
  };
  const hub = new EventStreamHub(
    source,
    {
      redacted: settings.redact,
      query: (summary: QuerySummary) => presentQuery(summary, presentation),
      event: (event: TraceEvent) => presentTraceEvent(event, presentation),
    },
    (error, where) => onError(error, `${apiPath}/events`, where),
  );
  const page = createPageAssets({
    basePath,
    html: renderHtmlShell({ basePath, apiPath, redacted: settings.redact }),
  });

  const notFound = (): DashboardHttpError => new DashboardHttpError(404, "NOT_FOUND", "no such dashboard endpoint");
  const methodNotAllowed = (allow: string): DashboardHttpError =>
    new DashboardHttpError(405, "METHOD_NOT_ALLOWED", `method not allowed (allowed: ${allow})`, { headers: { allow } });

  async function handlePage(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowed("GET, HEAD");
    if (!(await page.serve(req, res, pathname.slice(basePath.length)))) throw notFound();
  }

  function assertSameOrigin(req: IncomingMessage): void {
    const fetchSite = req.headers["sec-fetch-site"];
    if (typeof fetchSite === "string" && fetchSite !== "same-origin" && fetchSite !== "none") {
      throw new DashboardHttpError(403, "FORBIDDEN", "cross-site requests may not change state");
    }
    const origin = req.headers.origin;
    if (typeof origin === "string" && origin !== "null") {
      const originHost = hostOf(origin);
      const host = req.headers.host?.toLowerCase();
      if (!originHost || originHost !== host) {
        throw new DashboardHttpError(403, "FORBIDDEN", "cross-origin requests may not change state");
      }
    } else if (origin === "null") {
      throw new DashboardHttpError(403, "FORBIDDEN", "cross-origin requests may not change state");
    }
  }

  async function overview(): Promise<DashboardOverview> {
    const body: DashboardOverview = {
      redacted: settings.redact,
      sections: Object.fromEntries(Object.entries(SECTION_METHODS).map(([section, method]) => [section, !!source[method]])) as DashboardOverview["sections"],
      totals: {},
    };
    const [info, backends, cache] = await Promise.all([
      source.info?.().catch((error: unknown) => onError(error, `${apiPath}/overview`, "info")),
      source.backends?.().catch((error: unknown) => onError(error, `${apiPath}/overview`, "backends")),
      source.cache?.().catch((error: unknown) => onError(error, `${apiPath}/overview`, "cache")),
    ]);
    if (info) body.info = { name: info.name, version: info.version, startedAt: info.startedAt };
    if (backends) {
      body.totals.backends = backends.length;
      body.totals.healthyBackends = backends.filter((backend) => backend.health === "healthy").length;
      body.totals.openCircuits = backends.filter((backend) => backend.circuit === "open").length;
    }
    if (cache?.stats) body.totals.cacheHitRate = cache.stats.hitRate;
    return body;
  }

  /** Reads the query parameters with `schema`, then `{ ...body }` of the source's data, or `undefined` (not configured). */
  const data =
    <S extends z.ZodType>(schema: S, load: (params: z.infer<S>, scope: { tenant?: string | undefined }) => Promise<object | undefined>) =>
    async (parameters: Record<string, string>, scope: { tenant?: string | undefined }): Promise<object | undefined> =>
      load(parseRequest(schema, parameters, "query parameters"), scope);
  const present = <T>(value: T | undefined, body: (value: T) => object): object | undefined => (value == null ? undefined : body(value));
  /** The read-only endpoints that answer `{ configured: true, … }` or `{ configured: false }`. */
  const dataRoutes: Partial<Record<string, ReturnType<typeof data>>> = {
    backends: data(NoParametersSchema, async () => present(await source.backends?.(), (backends) => ({ backends }))),
    flows: data(NoParametersSchema, async () => present(await source.flows?.(), (flows) => ({ flows }))),
    queries: data(QueriesParametersSchema, async ({ limit }) =>
      present(await source.recentQueries?.({ limit }), (queries) => ({ queries: queries.slice(0, limit).map((summary) => presentQuery(summary, presentation)) })),
    ),
    cache: data(NoParametersSchema, async () => present(await source.cache?.(), (cache) => ({ cache }))),
    "cache/semantic": data(NoParametersSchema, async () => present(await source.semanticCacheStats?.(), (stats) => ({ stats }))),
    sessions: data(SessionsParametersSchema, async ({ limit, pattern }) => present(await source.sessions?.({ limit, pattern }), (sessions) => ({ sessions: sessions.slice(0, limit) }))),
    "tools/servers": data(NoParametersSchema, async () => present(await source.toolServers?.(), (servers) => ({ servers }))),
    "tools/search": data(ToolSearchParametersSchema, async ({ q, limit }) =>
      present(await source.searchTools?.(q, { limit }), (search) => ({ search: { ...search, results: search.results.slice(0, limit) } })),
    ),
    history: data(HistoryParametersSchema, async (historyQuery, { tenant }) =>
      present(await source.searchHistory?.(historyQuery, { tenant }), (page) => ({
        hits: page.hits.map((hit) => ({ ...hit, turn: presentTurn(hit.turn, presentation) })),
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      })),
    ),
    "analytics/summary": data(AnalyticsSummaryParametersSchema, async ({ range, top }) =>
      present(await source.analyticsSummary?.({ range, top }), (summary) => ({ rangeName: range, summary: { ...summary, topFlows: summary.topFlows.slice(0, top) } })),
    ),
    "analytics/patterns": data(AnalyticsRangeParametersSchema, async ({ range }) =>
      present(await source.patternAnalysis?.({ range }), (patterns) => {
        const intentPatternsYaml = renderIntentPatternsYaml(patterns.proposals, { label: `the last ${range}` });
        return { rangeName: range, patterns: presentPatternAnalysis(patterns, presentation), ...(intentPatternsYaml ? { intentPatternsYaml } : {}) };
      }),
    ),
    "analytics/learned": data(LearnedPriorParametersSchema, async ({ intent }) => present(await source.learnedPrior?.({ intent }), (learned) => ({ learned }))),
  };

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, scope: { tenant?: string | undefined }): Promise<void> {
    const pathname = url.pathname;
    let segments: string[];
    try {
      segments = pathname
        .slice(apiPath.length)
        .split("/")
        .filter((segment) => segment !== "")
        .map((segment) => decodeURIComponent(segment));
    } catch {
      throw new DashboardHttpError(400, "INVALID_INPUT", "malformed percent-encoding in the path");
    }
    const method = req.method ?? "GET";
    const query = (): Record<string, string> => searchParamsToObject(url.searchParams);
    const route = segments.join("/");
    const expect = (allowed: "GET" | "POST"): void => {
      if (method !== allowed) throw methodNotAllowed(allowed);
    };
    const ok = (body: unknown): void => sendJson(res, 200, body);

    const read = Object.hasOwn(dataRoutes, route) ? dataRoutes[route] : undefined;
    if (read) {
      expect("GET");
      const body = await read(query(), scope);
      return ok(body ? { configured: true, ...body } : { configured: false });
    }
    switch (route) {
      case "overview":
        expect("GET");
        parseRequest(NoParametersSchema, query(), "query parameters");
        ok(await overview());
        return;
      case "cache/clear": {
        expect("POST");
        parseRequest(NoParametersSchema, query(), "query parameters");
        if (!isJsonContentType(req.headers["content-type"])) {
          throw new DashboardHttpError(415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json");
        }
        assertSameOrigin(req);
        const selector = parseRequest(ClearCacheBodySchema, await readJsonBody(req, MAX_BODY_BYTES), "request body");
        if (!source.clearCache) throw new DashboardHttpError(501, "NOT_CONFIGURED", "clearing the cache is not configured");
        const removed = await source.clearCache(selector);
        ok({ removed, selector });
        return;
      }
      case "analytics/export": {
        expect("GET");
        const { range, format, groupBy } = parseRequest(MetricsExportParametersSchema, query(), "query parameters");
        if (!source.exportMetrics) throw new DashboardHttpError(501, "NOT_CONFIGURED", "exporting metrics is not configured");
        const metrics = await source.exportMetrics({ range, groupBy });
        if (!metrics) throw new DashboardHttpError(501, "NOT_CONFIGURED", "exporting metrics is not configured");
        const filename = `afw-metrics-${groupBy}-${range}.${format}`;
        const disposition = { "content-disposition": `attachment; filename="${filename}"` };
        if (format === "json") {
          sendJson(res, 200, { range: metrics.range, rangeName: range, groupBy: metrics.groupBy, columns: metrics.columns, rows: metrics.rows }, disposition);
          return;
        }
        const csv = toCsv(metrics.columns, metrics.rows);
        setSecurityHeaders(res);
        res.writeHead(200, { "content-type": "text/csv; charset=utf-8", "cache-control": "no-store", "content-length": Buffer.byteLength(csv), ...disposition });
        res.end(csv);
        return;
      }
      case "events":
        expect("GET");
        parseRequest(NoParametersSchema, query(), "query parameters");
        await hub.connect(req, res);
        return;
      default:
        break;
    }

    /** A lookup by id: `{ configured: false }` without the source method, 404 when it finds nothing. */
    const byId = async <T>(lookup: ((id: string) => Promise<T | undefined>) | undefined, id: string, missing: string, body: (value: T) => object) => {
      if (!lookup) return ok({ configured: false });
      const value = await lookup.call(source, id);
      if (!value) throw new DashboardHttpError(404, "NOT_FOUND", missing);
      return ok({ configured: true, ...body(value) });
    };
    const [head, id, tail, ...extra] = segments;
    if (head === "queries" && id !== undefined && extra.length === 0 && (tail === undefined || tail === "events")) {
      expect("GET");
      parseRequest(NoParametersSchema, query(), "query parameters");
      const traceId = parseRequest(TraceIdSchema, id, "trace id");
      if (tail === undefined) return byId(source.query, traceId, "no query with this trace id", (summary) => ({ query: presentQuery(summary, presentation) }));
      return byId(source.queryEvents, traceId, "no query with this trace id", (events) => ({ events: events.map((event) => presentTraceEvent(event, presentation)) }));
    }
    if (head === "analytics" && id === "flows" && tail !== undefined && extra.length === 0) {
      expect("GET");
      const { range } = parseRequest(AnalyticsRangeParametersSchema, query(), "query parameters");
      const flowId = parseRequest(FlowIdParameterSchema, tail, "flow id");
      const analyse = source.flowAnalysis && ((flowId: string) => source.flowAnalysis!(flowId, { range }));
      return byId(analyse, flowId, "no analysis for this flow", (analysis) => ({ rangeName: range, analysis }));
    }
    if (head === "sessions" && id !== undefined && tail === undefined) {
      expect("GET");
      parseRequest(NoParametersSchema, query(), "query parameters");
      const sessionId = parseRequest(SessionIdSchema, id, "session id");
      return byId(source.session, sessionId, "no session with this id", (session) => ({ session: presentSession(session, presentation) }));
    }
    throw notFound();
  }

  return {
    basePath,
    apiPath,
    get liveClientCount() {
      return hub.clientCount;
    },
    isPublicPath(pathname: string): boolean {
      return !isUnder(pathname, apiPath) && isUnder(pathname, basePath) && page.isPublic(pathname.slice(basePath.length));
    },
    close(): void {
      hub.close();
    },
    async handle(req: IncomingMessage, res: ServerResponse, scope = {}): Promise<boolean> {
      let url: URL;
      try {
        url = new URL(req.url ?? "/", "http://dashboard.invalid");
      } catch {
        return false;
      }
      const pathname = url.pathname;
      const isApi = isUnder(pathname, apiPath);
      if (!isApi && !isUnder(pathname, basePath)) return false;
      try {
        if (isApi) await handleApi(req, res, url, scope);
        else await handlePage(req, res, pathname);
      } catch (error) {
        if (res.headersSent) {
          onError(error, pathname, "response");
          res.end();
          return true;
        }
        if (error instanceof DashboardHttpError) {
          sendError(res, error);
        } else {
          onError(error, pathname, "source");
          sendError(res, new DashboardHttpError(500, "INTERNAL", "the dashboard could not load this data"));
        }
      }
      return true;
    },
  };
}
