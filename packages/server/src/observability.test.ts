import { createServer, type IncomingMessage } from "node:http";
import { Writable } from "node:stream";
import { emitTrace } from "@afw/contracts";
import { describe, expect, it } from "vitest";
import { parseGatewayConfig } from "./config-loader.js";
import { createBearerAuthenticator } from "./bearer-auth.js";
import { createGatewayLogger } from "./logger.js";
import { createOtlpTraceSink } from "./otlp-trace-sink.js";
import { createRateLimiter } from "./rate-limiter.js";
import { createRedactor } from "@afw/contracts";
import { configSecrets } from "./redactor.js";
import { newTraceContext } from "./trace-context.js";
import { createTraceRingBuffer } from "./trace-sinks.js";
import { createRedactingSink } from "./gateway-analytics.js";

describe("redactor", () => {
  it("redacts known secrets, their URL-encoded form and generic credential shapes", () => {
    const redactor = createRedactor(["sk-live/0123+abc", "short"]);
    expect(redactor.size).toBe(1); // "short" is too short
    expect(redactor.redact("key sk-live/0123+abc and sk-live%2F0123%2Babc")).toBe("key [REDACTED] and [REDACTED]");
    expect(redactor.redact('Authorization: Bearer abcdefghijklmnop "apiKey": "zzzzzzzzzz" redis://u:p4ssw0rd@host')).toBe(
      'Authorization: Bearer [REDACTED] "apiKey": "[REDACTED]" redis://u:[REDACTED]@host',
    );
    expect(redactor.redact("token: abcdefgh", { generic: false })).toBe("token: abcdefgh");
    redactor.addSecrets("added-later-secret");
    expect(redactor.redactValue({ a: ["added-later-secret"], n: 1, nested: { e: new Error("x added-later-secret") } })).toEqual({
      a: ["[REDACTED]"],
      n: 1,
      nested: { e: { name: "Error", message: "x [REDACTED]" } },
    });
  });

  it("collects every secret of a configuration", () => {
    const config = parseGatewayConfig(
      {
        backends: [{ id: "f", kind: "flowise", baseURL: "http://u:url-password-1@127.0.0.1", apiKey: "afw-test-secret-api-key-123456", headers: { "X-Api-Token": "afw-test-secret-hdr-token-123456", Accept: "application/json" } }],
        http: { authTokens: ["afw-test-secret-bearer-token-0123456789", { token: "afw-test-secret-object-token-0123456789" }] },
        redis: { url: "redis://:redis-pass-123@127.0.0.1:6379" },
        trace: { otlp: { endpoint: "http://127.0.0.1:4318", headers: { Authorization: "Basic b3Rscy1zZWNyZXQ=" } } },
      },
      { env: {} },
    );
    const secrets = configSecrets(config);
    for (const secret of ["afw-test-secret-api-key-123456", "url-password-1", "afw-test-secret-hdr-token-123456", "afw-test-secret-bearer-token-0123456789", "afw-test-secret-object-token-0123456789", "redis-pass-123", "Basic b3Rscy1zZWNyZXQ=", "b3Rscy1zZWNyZXQ="]) {
      expect(secrets).toContain(secret);
    }
    expect(secrets).not.toContain("application/json");
  });

  it("applies to every log line", async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    });
    const logger = createGatewayLogger({ level: "info", redactor: createRedactor(["the-api-key-42"]), destination });
    logger.info({ header: "x-api-key the-api-key-42", nested: { url: "http://h/?k=the-api-key-42" } }, "calling with the-api-key-42");
    logger.flush();
    expect(lines.join("")).not.toContain("the-api-key-42");
    expect(lines.join("")).toContain("[REDACTED]");
  });
});

describe("trace ring buffer", () => {
  it("keeps the last N events, queryable by trace id and type, and notifies subscribers", () => {
    const ring = createTraceRingBuffer({ capacity: 3 });
    const redacted = createRedactingSink(ring, createRedactor(["ring-secret-1"]));
    const seen: string[] = [];
    const unsubscribe = ring.subscribe((event) => seen.push(event.type));
    const a = newTraceContext(redacted, { traceId: "a" });
    const b = newTraceContext(redacted, { traceId: "b" });
    emitTrace(a, "cache-miss", { scope: "shared", reason: "absent" });
    emitTrace(b, "session-loaded", { turns: 1 });
    emitTrace(a, "query-failed", { code: "INTERNAL", message: "leaked ring-secret-1", durationMs: 1, attempts: 0 });
    emitTrace(b, "session-appended", { totalTurns: 2 });
    expect(ring.size).toBe(3);
    expect(ring.byTraceId("a").map((e) => e.type)).toEqual(["query-failed"]);
    expect(ring.byTraceId("b").map((e) => e.type)).toEqual(["session-loaded", "session-appended"]);
    expect(ring.recent({ limit: 2 }).map((e) => e.type)).toEqual(["query-failed", "session-appended"]);
    expect(ring.recent({ types: ["session-loaded"] })).toHaveLength(1);
    expect(JSON.stringify(ring.recent())).not.toContain("ring-secret-1");
    unsubscribe();
    emitTrace(a, "cache-miss", { scope: "shared", reason: "absent" });
    expect(seen).toEqual(["cache-miss", "session-loaded", "query-failed", "session-appended"]);
  });
});

describe("OTLP trace sink", () => {
  it("exports one span per trace with its events to <endpoint>/v1/traces, redacted", async () => {
    const received: { path: string; headers: IncomingMessage["headers"]; body: unknown }[] = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (c: Buffer) => chunks.push(c));
      request.on("end", () => {
        received.push({ path: request.url ?? "", headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const sink = createOtlpTraceSink({
        endpoint: `http://127.0.0.1:${port}/`,
        headers: { authorization: "Basic c2VjcmV0" },
        serviceName: "afw-test",
        redactor: createRedactor(["otlp-secret-value"]),
      });
      const trace = newTraceContext(sink, { sessionId: "s-1" });
      emitTrace(trace, "query-received", { tool: "universal_query", questionLength: 5 });
      emitTrace(trace, "cache-miss", { scope: "shared", reason: "absent" });
      emitTrace(trace, "query-failed", { code: "ALL_BACKENDS_FAILED", message: "with otlp-secret-value", durationMs: 12, attempts: 2 });
      const pending = newTraceContext(sink);
      emitTrace(pending, "health-checked", { backendId: "f", status: "healthy", latencyMs: 3 });
      await sink.close();
      expect(received).toHaveLength(1);
      expect(received[0]!.path).toBe("/v1/traces");
      expect(received[0]!.headers.authorization).toBe("Basic c2VjcmV0");
      const body = received[0]!.body as { resourceSpans: { resource: { attributes: { key: string; value: { stringValue: string } }[] }; scopeSpans: { spans: { traceId: string; name: string; status: { code: number }; events: { name: string }[]; attributes: { key: string }[] }[] }[] }[] };
      expect(body.resourceSpans[0]!.resource.attributes[0]).toEqual({ key: "service.name", value: { stringValue: "afw-test" } });
      const spans = body.resourceSpans[0]!.scopeSpans[0]!.spans;
      expect(spans).toHaveLength(2);
      const query = spans.find((s) => s.name === "universal_query")!;
      expect(query.traceId).toBe(trace.traceId);
      expect(query.status.code).toBe(2);
      expect(query.events.map((e) => e.name)).toEqual(["query-received", "cache-miss", "query-failed"]);
      expect(query.attributes.map((a) => a.key)).toContain("session.id");
      expect(JSON.stringify(body)).not.toContain("otlp-secret-value");
      expect(sink.stats.exported).toBe(2);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("counts failed exports without throwing", async () => {
    const errors: unknown[] = [];
    const sink = createOtlpTraceSink({ endpoint: "http://127.0.0.1:1", onError: (e) => errors.push(e) });
    emitTrace(newTraceContext(sink), "query-answered", { backendId: "b", flowId: "f", durationMs: 1, attempts: 1, fallbackUsed: false, cacheHit: false });
    await sink.close();
    expect(sink.stats).toMatchObject({ exported: 0, failed: 1, dropped: 1 });
    expect(errors).toHaveLength(1);
  });
});

describe("bearer auth and rate limiter", () => {
  it("accepts only configured tokens and names the client", () => {
    const auth = createBearerAuthenticator(["afw-test-secret-first-token-0123456789", { token: "afw-test-secret-second-token-0123456789", name: "ci", tenant: "acme", requestsPerMinute: 5 }]);
    expect(auth.enabled).toBe(true);
    expect(auth.authenticate("Bearer afw-test-secret-first-token-0123456789")).toEqual({ name: "token-1" });
    expect(auth.authenticate("bearer afw-test-secret-second-token-0123456789")).toEqual({ name: "ci", tenant: "acme", requestsPerMinute: 5 });
    expect(auth.authenticate("Bearer first-token-012345678")).toBeUndefined();
    expect(auth.authenticate("afw-test-secret-first-token-0123456789")).toBeUndefined();
    expect(auth.authenticate(undefined)).toBeUndefined();
    expect(createBearerAuthenticator([]).enabled).toBe(false);
  });

  it("allows a burst, then refills at the sustained rate", () => {
    let now = 0;
    const limiter = createRateLimiter({ requestsPerMinute: 60, burst: 2, now: () => now });
    expect(limiter.take("k").allowed).toBe(true);
    expect(limiter.take("k").allowed).toBe(true);
    const denied = limiter.take("k");
    expect(denied).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.take("other").allowed).toBe(true);
    now += 1_000;
    expect(limiter.take("k").allowed).toBe(true);
    expect(limiter.take("k").allowed).toBe(false);
    expect(limiter.take("slow", 6).retryAfterSeconds).toBe(0);
  });
});
