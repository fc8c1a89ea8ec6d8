import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { AfwError } from "@afw/contracts";
import { fetchJson, useDashboardServer, type DashboardServer } from "../test/harness.js";
import { createDashboard, type DashboardSource } from "./index.js";
import { DASHBOARD_CONTENT_SECURITY_POLICY } from "./http-responses.js";
import { buildQueryTrace, createInMemoryDashboardSource, createSampleDashboardSource } from "./testing.js";

const HOSTILE = `<img src=x onerror=alert(1)>`;

const start = useDashboardServer();
const getJson = fetchJson;

function postClear(server: DashboardServer, body: string, headers: Record<string, string> = { "content-type": "application/json" }) {
  return getJson(server, "/api/cache/clear", { method: "POST", body, headers });
}

/** Sends a raw request (to set headers fetch forbids, such as Sec-Fetch-Site and Origin). */
function rawRequest(server: DashboardServer, options: { method: string; path: string; headers: Record<string, string>; body?: string }): Promise<{ status: number; body: any }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: options.method, path: options.path, headers: options.headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

describe("createDashboard options", () => {
  it("rejects invalid paths and identical base and API paths with CONFIG_INVALID", () => {
    const source = createInMemoryDashboardSource();
    for (const basePath of ["dashboard", "/dash board", "/<x>", "/"]) {
      expect(() => createDashboard({ source, basePath })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    }
    expect(() => createDashboard({ source, basePath: "/x", apiPath: "/x/" })).toThrow(/must differ/);
    expect(() => createDashboard({ source: undefined as unknown as DashboardSource })).toThrow(/source/);
  });

  it("normalises trailing slashes and exposes the paths", () => {
    const dashboard = createDashboard({ source: {}, basePath: "/ops/dash/", apiPath: "/ops/dash/api" });
    expect(dashboard.basePath).toBe("/ops/dash");
    expect(dashboard.apiPath).toBe("/ops/dash/api");
    expect(dashboard.isPublicPath("/ops/dash")).toBe(true);
    expect(dashboard.isPublicPath("/ops/dash/assets/dashboard.js")).toBe(true);
    expect(dashboard.isPublicPath("/ops/dash/assets/other.js")).toBe(false);
    expect(dashboard.isPublicPath("/ops/dash/api/overview")).toBe(false);
    expect(dashboard.isPublicPath("/ops/dashboard")).toBe(false);
    expect(dashboard.isPublicPath("/mcp")).toBe(false);
  });
});

describe("routing", () => {
  it("returns false for paths it does not own and leaves the response alone", async () => {
    const server = await start({ source: createSampleDashboardSource() });
    for (const path of ["/", "/mcp", "/dashboards", "/apix", "/healthz?x=/dashboard"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(await response.text()).toBe("outside");
    }
    expect(server.unhandled).toEqual(["/", "/mcp", "/dashboards", "/apix", "/healthz?x=/dashboard"]);
  });

  it("answers 404 JSON for unknown endpoints under the API path without echoing the path", async () => {
    const server = await start({ source: createSampleDashboardSource() });
    const { status, body, text } = await getJson(server, `/api/${encodeURIComponent(HOSTILE)}`);
    expect(status).toBe(404);
    expect(body.error.code).toBe("NOT_FOUND");
    expect(text).not.toContain("img");
    const page = await fetch(`${server.url}/dashboard/nothing-here`);
    expect(page.status).toBe(404);
    // names of Object.prototype are no endpoints
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) expect((await getJson(server, `/api/${name}?x=1`)).status, name).toBe(404);
  });

  it("answers 405 with Allow for the wrong method", async () => {
    const server = await start({ source: createSampleDashboardSource() });
    const post = await getJson(server, "/api/backends", { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    expect(post.body.error.code).toBe("METHOD_NOT_ALLOWED");
    const get = await getJson(server, "/api/cache/clear");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const page = await fetch(`${server.url}/dashboard`, { method: "DELETE" });
    expect(page.status).toBe(405);
  });

  it("rejects malformed percent-encoding in path segments", async () => {
    const server = await start({ source: createSampleDashboardSource() });
    const { status, body } = await getJson(server, "/api/queries/%E0%A4%A/events");
    expect(status).toBe(400);
    expect(body.error.code).toBe("INVALID_INPUT");
  });
});

describe("page shell and assets", () => {
  it("serves the shell with a strict CSP, no inline script or style, and escaped settings", async () => {
    const server = await start({ source: {}, basePath: "/ops", apiPath: "/ops/api" });
    const response = await fetch(`${server.url}/ops/`);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toBe(DASHBOARD_CONTENT_SECURITY_POLICY);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    // every script is external, there is no <style> element and no inline handler or style attribute
    expect(html.match(/<script[^>]*>/g)).toEqual([`<script type="module" src="/ops/assets/dashboard.js">`]);
    expect(html).not.toMatch(/<script[^>]*>[^<]+<\/script>/);
    expect(html).not.toMatch(/<style/);
    expect(html).not.toMatch(/<[^>]*\son[a-z]+=/i);
    expect(html).not.toMatch(/<[^>]*\sstyle=/i);
    expect(html).toContain(`<meta name="afw-api-path" content="/ops/api">`);
    expect(html).toContain("<title>Agentic Flywheel — dashboard</title>");
    // the entry module renders the page (landmarks, live region: see test/browser.test.ts)
    expect(html).toContain('<link rel="stylesheet" href="/ops/assets/dashboard.css">');
  });

  it("serves the script and the style with their types, ETags and 304s", async () => {
    const server = await start({ source: {} });
    const script = await fetch(`${server.url}/dashboard/assets/dashboard.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const source = await script.text();
    expect(source).not.toMatch(/\.innerHTML\s*=|insertAdjacentHTML|document\.write|dangerouslySetInnerHTML/);
    // bare imports point at preact and htm served from their packages
    expect(source).toContain('from "/dashboard/assets/vendor/preact.js"');
    expect(source).not.toMatch(/from\s*["'](preact|htm)/);
    const hooks = await fetch(`${server.url}/dashboard/assets/vendor/hooks.js`);
    expect(hooks.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await hooks.text()).toContain('from"/dashboard/assets/vendor/preact.js"');
    for (const module of ["vendor/preact.js", "vendor/htm.js", "ui.js", "format.js"]) expect((await fetch(`${server.url}/dashboard/assets/${module}`)).status).toBe(200);
    expect(server.dashboard.isPublicPath("/dashboard/assets/vendor/preact.js")).toBe(true);
    const etag = script.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const cached = await fetch(`${server.url}/dashboard/assets/dashboard.js`, { headers: { "if-none-match": etag ?? "" } });
    expect(cached.status).toBe(304);
    const style = await fetch(`${server.url}/dashboard/assets/dashboard.css`);
    expect(style.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await style.text()).toContain(":focus-visible");
    const head = await fetch(`${server.url}/dashboard`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect((await fetch(`${server.url}/dashboard/assets/../package.json`)).status).not.toBe(200);
    expect((await fetch(`${server.url}/dashboard/assets/evil.js`)).status).toBe(404);
  });

});

describe("JSON endpoints", () => {
  it("serves every section of a full source", async () => {
    const source = createSampleDashboardSource();
    const server = await start({ source });
    const overview = await getJson(server, "/api/overview");
    expect(overview.status).toBe(200);
    expect(overview.headers.get("cache-control")).toBe("no-store");
    expect(overview.body.sections).toEqual({
      backends: true,
      flows: true,
      queries: true,
      liveFeed: true,
      cache: true,
      clearCache: true,
      sessions: true,
      toolServers: true,
      toolSearch: true,
      history: true,
      semanticCache: true,
      analytics: true,
      flowAnalysis: true,
      patterns: true,
      learnedPrior: true,
      metricsExport: true,
    });
    expect(overview.body.totals).toMatchObject({ backends: 2, healthyBackends: 1, openCircuits: 0 });
    expect(overview.body.totals.cacheHitRate).toBeCloseTo(31 / 89);

    const backends = await getJson(server, "/api/backends");
    expect(backends.body.backends.map((backend: { id: string }) => backend.id)).toEqual(["flowise-local", "langflow-local"]);
    expect(backends.body.backends[1]).toMatchObject({ health: "slow", circuit: "half-open" });
    expect(backends.body.backends[0].series).toHaveLength(30);

    const flows = await getJson(server, "/api/flows");
    expect(flows.body.flows.find((flow: { id: string }) => flow.id === "langflow-local:chat").intents).toEqual(["conversation", "creative-orientation"]);

    const queries = await getJson(server, "/api/queries?limit=2");
    expect(queries.body.queries.map((query: { traceId: string }) => query.traceId)).toEqual(["sample-fallback", "sample-cached"]);
    const fallback = queries.body.queries[0];
    expect(fallback.fallbacks).toEqual([
      { fromBackendId: "langflow-local", fromFlowId: "langflow-local:architect", toBackendId: "flowise-local", toFlowId: "flowise-local:code-helper", reason: "BACKEND_TIMEOUT" },
    ]);
    expect(fallback.question).toBe("Design a queue-based architecture for our ingestion pipeline");
    expect(fallback.candidates[0].breakdown).toHaveProperty("flow_match");

    const one = await getJson(server, "/api/queries/sample-cached");
    expect(one.body.query).toMatchObject({ traceId: "sample-cached", cache: "exact", outcome: "answered", sessionId: "ops-review-42" });

    const events = await getJson(server, "/api/queries/sample-fallback/events");
    expect(events.body.events.map((event: { type: string }) => event.type)).toContain("fallback-triggered");

    const cache = await getJson(server, "/api/cache");
    expect(cache.body.cache.byFlow.find((flow: { flowId: string }) => flow.flowId === "flowise-local:code-helper")).toMatchObject({ entries: 2, hits: 18 });
    expect(cache.body.cache.hitRateSeries).toHaveLength(30);

    const sessions = await getJson(server, "/api/sessions?limit=1");
    expect(sessions.body.sessions).toEqual([expect.objectContaining({ sessionId: "ops-review-42", turns: 2 })]);
    const pattern = await getJson(server, "/api/sessions?pattern=design-*");
    expect(pattern.body.sessions.map((session: { sessionId: string }) => session.sessionId)).toEqual(["design-sync"]);
    const session = await getJson(server, "/api/sessions/ops-review-42");
    expect(session.body.session.turnsList).toHaveLength(2);

    const servers = await getJson(server, "/api/tools/servers");
    expect(servers.body.servers.map((entry: { name: string; mode: string }) => `${entry.name}:${entry.mode}`)).toEqual(["filesystem:hot", "memory:cold", "github:hot"]);

    const search = await getJson(server, "/api/tools/search?q=read%20a%20file&limit=2");
    expect(search.body.search.results).toHaveLength(2);
    expect(search.body.search.results[0]).toMatchObject({ id: "filesystem/read_text_file" });
    expect(search.body.search.results[0].score).toBeGreaterThan(search.body.search.results[1].score);
    expect(source.searchCalls).toEqual(["read a file"]);
  });

  it("reports configured: false for every section a source lacks, and 501 for clearing", async () => {
    const server = await start({ source: {} });
    for (const path of [
      "/api/backends",
      "/api/flows",
      "/api/queries",
      "/api/queries/t1",
      "/api/queries/t1/events",
      "/api/cache",
      "/api/sessions",
      "/api/sessions/s1",
      "/api/tools/servers",
      "/api/tools/search?q=files",
    ]) {
      const { status, body } = await getJson(server, path);
      expect([path, status, body]).toEqual([path, 200, { configured: false }]);
    }
    const overview = await getJson(server, "/api/overview");
    expect(Object.values(overview.body.sections).every((value) => value === false)).toBe(true);
    expect(overview.body.totals).toEqual({});
    const clear = await postClear(server, JSON.stringify({ all: true }));
    expect(clear.status).toBe(501);
    expect(clear.body.error.code).toBe("NOT_CONFIGURED");
    const events = await getJson(server, "/api/events");
    expect(events.status).toBe(501);
  });

  it("treats a method that resolves undefined as not configured", async () => {
    const server = await start({ source: { backends: async () => undefined, cache: async () => undefined } });
    expect((await getJson(server, "/api/backends")).body).toEqual({ configured: false });
    expect((await getJson(server, "/api/cache")).body).toEqual({ configured: false });
  });

  it("answers 404 for unknown trace and session ids", async () => {
    const server = await start({ source: createSampleDashboardSource() });
    for (const path of ["/api/queries/nope", "/api/queries/nope/events", "/api/sessions/nope"]) {
      const { status, body } = await getJson(server, path);
      expect([path, status, body.error.code]).toEqual([path, 404, "NOT_FOUND"]);
    }
  });

  it("validates every query parameter and path id with typed 400 errors", async () => {
    const server = await start({ source: createSampleDashboardSource() });
    const cases: Array<[string, string[]]> = [
      ["/api/queries?limit=0", ["limit"]],
      ["/api/queries?limit=501", ["limit"]],
      ["/api/queries?limit=abc", ["limit"]],
      ["/api/queries?limit=1.5", ["limit"]],
      ["/api/queries?limit=1&limit=2", ["limit"]],
      ["/api/queries?verbose=1", []],
      ["/api/backends?x=1", []],
      ["/api/overview?x=1", []],
      ["/api/sessions?limit=201", ["limit"]],
      ["/api/sessions?pattern=a%20b", ["pattern"]],
      ["/api/tools/search", ["q"]],
      ["/api/tools/search?q=%20%20", ["q"]],
      [`/api/tools/search?q=${"x".repeat(501)}`, ["q"]],
      ["/api/tools/search?q=files&limit=51", ["limit"]],
      ["/api/queries/a%20b/events", []],
      [`/api/queries/${"t".repeat(201)}`, []],
      ["/api/sessions/bad%20id", []],
      ["/api/events?since=1", []],
    ];
    for (const [path, issuePath] of cases) {
      const { status, body, headers } = await getJson(server, path);
      expect([path, status, body.error.code]).toEqual([path, 400, "INVALID_INPUT"]);
      expect(headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(body.error.issues.length).toBeGreaterThan(0);
      expect(body.error.issues[0].path).toEqual(issuePath);
    }
  });

  it("never echoes hostile parameter names or values in validation errors", async () => {
    const server = await start({ source: createSampleDashboardSource() });
    const hostile = encodeURIComponent(HOSTILE);
    for (const path of [`/api/queries?${hostile}=1`, `/api/queries?limit=${hostile}`, `/api/sessions?pattern=${hostile}`, `/api/queries/${hostile}`]) {
      const { status, text } = await getJson(server, path);
      expect(status).toBe(400);
      expect(text).not.toContain("<");
      expect(text).not.toContain("img");
    }
  });

  it("returns hostile strings from the source as JSON-escaped text, never as markup", async () => {
    const source = createInMemoryDashboardSource({
      backends: [{ id: "b1", kind: "flowise", health: "down", healthMessage: HOSTILE, circuit: "open", requestCount: 0, series: [], flows: [] }],
    });
    source.recordQuery(HOSTILE, buildQueryTrace({ traceId: "hostile", attempts: [{ backendId: "b1", flowId: "b1:f" }] }));
    const server = await start({ source });
    for (const path of ["/api/queries", "/api/queries/hostile", "/api/backends"]) {
      const { text, body, headers } = await getJson(server, path);
      expect(headers.get("x-content-type-options")).toBe("nosniff");
      expect(text).not.toContain("<img");
      expect(text).toContain("\\u003cimg src=x onerror=alert(1)\\u003e");
      expect(JSON.stringify(body)).toContain(HOSTILE);
    }
    expect((await getJson(server, "/api/queries/hostile")).body.query.question).toBe(HOSTILE);
  });

  it("truncates long questions to the preview length", async () => {
    const source = createSampleDashboardSource({ withoutQueries: true });
    const long = "why ".repeat(100).trim();
    source.recordQuery(long, buildQueryTrace({ traceId: "long", questionLength: long.length, attempts: [{ backendId: "flowise-local", flowId: "flowise-local:code-helper" }] }));
    const server = await start({ source });
    const query = (await getJson(server, "/api/queries/long")).body.query;
    expect(query.question).toHaveLength(200);
    expect(query.question.endsWith("…")).toBe(true);
    expect(query.questionTruncated).toBe(true);
    expect(query.questionLength).toBe(long.length);
  });

  it("hides user text in redacted mode", async () => {
    const source = createSampleDashboardSource();
    source.emit({
      type: "tool-search-performed",
      traceId: "sample-direct",
      requestId: "r",
      timestamp: new Date().toISOString(),
      target: "tools",
      query: "secret project codename",
      mode: "hybrid",
      results: [],
      confidence: 0.2,
    });
    const server = await start({ source, redact: true });
    const { body } = await getJson(server, "/api/queries/sample-direct");
    expect(body.query.question).toBeUndefined();
    expect(body.query.questionRedacted).toBe(true);
    expect(body.query.questionLength).toBeGreaterThan(10);
    const list = await getJson(server, "/api/queries");
    expect(list.text).not.toContain("TypeError");
    const events = await getJson(server, "/api/queries/sample-direct/events");
    expect(events.text).not.toContain("codename");
    expect(events.body.events.at(-1).query).toBe("[redacted]");
    const session = await getJson(server, "/api/sessions/ops-review-42");
    expect(session.body.session.turnsList.map((turn: { question: string; answer: string }) => [turn.question, turn.answer])).toEqual([
      ["[redacted]", "[redacted]"],
      ["[redacted]", "[redacted]"],
    ]);
    const overview = await getJson(server, "/api/overview");
    expect(overview.body.redacted).toBe(true);
    const page = await (await fetch(`${server.url}/dashboard`)).text();
    expect(page).toContain(`<meta name="afw-redacted" content="true">`);
  });

  it("answers 500 with a generic message when the source throws, and reports the error", async () => {
    const errors: Array<{ error: unknown; context: { path: string; operation: string } }> = [];
    const server = await start({
      source: {
        backends: async () => {
          throw new Error("connect ECONNREFUSED redis://:hunter2@10.0.0.1");
        },
        info: async () => {
          throw new Error("info broke");
        },
      },
      onError: (error, context) => errors.push({ error, context }),
    });
    const { status, body, text } = await getJson(server, "/api/backends");
    expect(status).toBe(500);
    expect(body.error.code).toBe("INTERNAL");
    expect(text).not.toContain("hunter2");
    expect(errors[0]?.context).toEqual({ path: "/api/backends", operation: "source" });
    expect((errors[0]?.error as Error).message).toContain("ECONNREFUSED");
    // the overview degrades instead of failing
    const overview = await getJson(server, "/api/overview");
    expect(overview.status).toBe(200);
    expect(overview.body.totals).toEqual({});
    expect(errors.map((entry) => entry.context.operation)).toEqual(expect.arrayContaining(["info", "backends"]));
  });
});

describe("POST cache/clear", () => {
  it("clears by flow, by session and everything, and reports the removed count", async () => {
    const source = createSampleDashboardSource();
    const server = await start({ source });
    const byFlow = await postClear(server, JSON.stringify({ flowId: "flowise-local:code-helper" }));
    expect(byFlow).toMatchObject({ status: 200, body: { removed: 2, selector: { flowId: "flowise-local:code-helper" } } });
    const bySession = await postClear(server, JSON.stringify({ sessionId: "ops-review-42" }), { "content-type": "Application/JSON; charset=utf-8" });
    expect(bySession.body.removed).toBe(1);
    const all = await postClear(server, JSON.stringify({ all: true }));
    expect(all.body.removed).toBe(1);
    expect(source.clearCacheCalls).toEqual([{ flowId: "flowise-local:code-helper" }, { sessionId: "ops-review-42" }, { all: true }]);
  });

  it("requires Content-Type application/json so a cross-site form cannot trigger it", async () => {
    const source = createSampleDashboardSource();
    const server = await start({ source });
    const contentTypes: Array<Record<string, string>> = [
      {},
      { "content-type": "text/plain" },
      { "content-type": "application/x-www-form-urlencoded" },
      { "content-type": "multipart/form-data; boundary=x" },
      { "content-type": "application/jsonp" },
    ];
    for (const headers of contentTypes) {
      const { status, body } = await postClear(server, JSON.stringify({ all: true }), headers);
      expect(status).toBe(415);
      expect(body.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    }
    // no Content-Type at all (fetch would add text/plain for a string body)
    const bare = await rawRequest(server, { method: "POST", path: "/api/cache/clear", headers: { "content-length": "13" }, body: JSON.stringify({ all: true }) });
    expect(bare.status).toBe(415);
    expect(source.clearCacheCalls).toEqual([]);
  });

  it("refuses cross-site and cross-origin requests even with a JSON content type", async () => {
    const source = createSampleDashboardSource();
    const server = await start({ source });
    const host = new URL(server.url).host;
    const body = JSON.stringify({ all: true });
    const base = { "content-type": "application/json", "content-length": String(body.length) };
    const refused = [
      { ...base, "sec-fetch-site": "cross-site" },
      { ...base, "sec-fetch-site": "same-site" },
      { ...base, origin: "https://evil.example" },
      { ...base, origin: "null" },
    ];
    for (const headers of refused) {
      const response = await rawRequest(server, { method: "POST", path: "/api/cache/clear", headers, body });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe("FORBIDDEN");
    }
    expect(source.clearCacheCalls).toEqual([]);
    for (const headers of [
      { ...base, origin: `http://${host}`, "sec-fetch-site": "same-origin" },
    ]) {
      const response = await rawRequest(server, { method: "POST", path: "/api/cache/clear", headers, body });
      expect(response.status).toBe(200);
    }
    expect(source.clearCacheCalls).toHaveLength(1);
  });

  it("validates the body: JSON, exactly one selector, bounded size", async () => {
    const source = createSampleDashboardSource();
    const server = await start({ source });
    const invalid = ["not json", "{}", "[]", "null", JSON.stringify({ all: false }), JSON.stringify({ flowId: "a", sessionId: "b" }), JSON.stringify({ flowId: "" }), JSON.stringify({ sessionId: "has space" }), JSON.stringify({ all: true, extra: 1 })];
    for (const body of invalid) {
      const response = await postClear(server, body);
      expect([body, response.status, response.body.error.code]).toEqual([body, 400, "INVALID_INPUT"]);
    }
    const tooLarge = await postClear(server, JSON.stringify({ flowId: "x".repeat(17_000) }));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    // a body streamed without a declared length is cut off too
    const url = new URL(server.url);
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, method: "POST", path: "/api/cache/clear", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.write(`{"flowId":"${"y".repeat(17_000)}`);
      req.end(`"}`);
    });
    expect(chunked).toBe(413);
    expect(source.clearCacheCalls).toEqual([]);
  });
});
