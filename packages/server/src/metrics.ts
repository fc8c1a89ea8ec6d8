import type { TraceSink } from "@afw/contracts";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** Prometheus metrics of one gateway. */
export interface GatewayMetrics {
  /** The registry (own, not prom-client's global one), e.g. to add metrics. */
  readonly registry: Registry;
  /** Counts trace events: cache hits/misses, fallbacks, backend calls and errors, circuit openings. */
  readonly sink: TraceSink;
  /** Records one MCP tool call. */
  observeToolCall(tool: string, outcome: "success" | "error", seconds: number, code?: string): void;
  /** Records one HTTP request. `route` is a fixed label (`/mcp`, `/healthz`, …, `other`). */
  observeHttpRequest(route: string, method: string, status: number, seconds: number): void;
  /** Counts a request refused before reaching MCP (`unauthorized`, `rate_limited`, `too_large`, …). */
  countRejected(reason: string): void;
  /** Exposes downstream servers read at each scrape: `downstream_server_state` (1 for each server's current state, 0 for the others) and `downstream_restarts_total`. */
  trackDownstream(status: () => readonly { name: string; state: string; restarts: number }[]): void;
  /** The Prometheus text exposition. */
  render(): Promise<string>;
  /** Content type of {@link GatewayMetrics.render}'s output. */
  readonly contentType: string;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** Creates the gateway's metrics on a private prom-client registry: tool calls and their latency histogram, HTTP requests, rejected requests, cache hits and misses,
 * fallbacks, backend calls, backend errors and circuit openings (the last five fed from trace events through `sink`). @default true */
export function createGatewayMetrics(options: { defaultMetrics?: boolean; prefix?: string } = {}): GatewayMetrics {
  const registry = new Registry();
  const prefix = options.prefix ?? "afw_";
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix });
  const toolCalls = new Counter({
    name: `${prefix}tool_calls_total`,
    help: "MCP tool calls by tool, outcome and error code.",
    labelNames: ["tool", "outcome", "code"] as const,
    registers: [registry],
  });
  const toolLatency = new Histogram({
    name: `${prefix}tool_call_duration_seconds`,
    help: "Latency of MCP tool calls.",
    labelNames: ["tool"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const httpRequests = new Counter({
    name: `${prefix}http_requests_total`,
    help: "HTTP requests by route, method and status.",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const httpLatency = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: "Latency of HTTP requests.",
    labelNames: ["route"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const rejected = new Counter({
    name: `${prefix}http_rejected_total`,
    help: "HTTP requests refused before reaching MCP, by reason.",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  const cacheHits = new Counter({ name: `${prefix}cache_hits_total`, help: "Answers served from the cache.", labelNames: ["kind"] as const, registers: [registry] });
  const cacheMisses = new Counter({ name: `${prefix}cache_misses_total`, help: "Cache lookups without a usable answer.", labelNames: ["reason"] as const, registers: [registry] });
  const fallbacks = new Counter({ name: `${prefix}fallbacks_total`, help: "Moves to another candidate after a failure.", labelNames: ["from_backend", "to_backend"] as const, registers: [registry] });
  const backendCalls = new Counter({ name: `${prefix}backend_calls_total`, help: "Backend call attempts by backend and outcome.", labelNames: ["backend", "outcome"] as const, registers: [registry] });
  const backendErrors = new Counter({ name: `${prefix}backend_errors_total`, help: "Failed backend calls by backend and error code.", labelNames: ["backend", "code"] as const, registers: [registry] });
  const backendLatency = new Histogram({
    name: `${prefix}backend_call_duration_seconds`,
    help: "Latency of backend calls.",
    labelNames: ["backend"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const downstreamCalls = new Counter({
    name: `${prefix}downstream_tool_calls_total`,
    help: "Downstream tool call attempts by server and outcome (success, error, timeout, aborted).",
    labelNames: ["server", "outcome"] as const,
    registers: [registry],
  });
  const downstreamErrors = new Counter({
    name: `${prefix}downstream_tool_errors_total`,
    help: "Failed downstream tool call attempts by server and error code.",
    labelNames: ["server", "code"] as const,
    registers: [registry],
  });
  const circuitsOpened = new Counter({ name: `${prefix}circuits_opened_total`, help: "Circuit breaker openings by backend.", labelNames: ["backend"] as const, registers: [registry] });
  const sink: TraceSink = {
    emit(event) {
      switch (event.type) {
        case "cache-hit":
          cacheHits.inc({ kind: event.kind });
          break;
        case "cache-miss":
          cacheMisses.inc({ reason: event.reason });
          break;
        case "fallback-triggered":
          fallbacks.inc({ from_backend: event.fromBackendId, to_backend: event.toBackendId });
          break;
        case "backend-call-end":
          backendCalls.inc({ backend: event.backendId, outcome: event.outcome });
          backendLatency.observe({ backend: event.backendId }, event.latencyMs / 1000);
          if (event.outcome !== "success") backendErrors.inc({ backend: event.backendId, code: event.errorCode ?? event.outcome });
          break;
        case "tool-call-end":
          downstreamCalls.inc({ server: event.server, outcome: event.outcome });
          if (event.outcome !== "success") downstreamErrors.inc({ server: event.server, code: event.errorCode ?? event.outcome });
          break;
        case "circuit-opened":
          circuitsOpened.inc({ backend: event.backendId });
          break;
        default:
          break;
      }
    },
  };
  return {
    registry,
    sink,
    observeToolCall(tool, outcome, seconds, code) {
      toolCalls.inc({ tool, outcome, code: code ?? "" });
      toolLatency.observe({ tool }, seconds);
    },
    observeHttpRequest(route, method, status, seconds) {
      httpRequests.inc({ route, method, status: String(status) });
      httpLatency.observe({ route }, seconds);
    },
    countRejected(reason) {
      rejected.inc({ reason });
    },
    trackDownstream(status) {
      const states = ["idle", "connecting", "connected", "backing-off", "crashed", "stopped"];
      new Gauge({
        name: `${prefix}downstream_server_state`,
        help: "State of each downstream server: 1 for its current state, 0 for the others.",
        labelNames: ["server", "state"] as const,
        registers: [registry],
        collect() {
          this.reset();
          for (const server of status()) for (const state of states) this.set({ server: server.name, state }, server.state === state ? 1 : 0);
        },
      });
      new Counter({
        name: `${prefix}downstream_restarts_total`,
        help: "Restarts of each downstream server after a failure.",
        labelNames: ["server"] as const,
        registers: [registry],
        collect() {
          this.reset();
          for (const server of status()) this.inc({ server: server.name }, server.restarts);
        },
      });
    },
    render: () => registry.metrics(),
    get contentType() {
      return registry.contentType;
    },
  };
}
