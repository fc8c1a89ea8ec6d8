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

/** Creates the gateway's metrics on a private prom-client registry: tool calls, HTTP requests and rejections, and (from trace events through `sink`)
 * cache hits and misses, fallbacks, backend calls, errors and latency, downstream tool calls and circuit openings. */
export function createGatewayMetrics(options: { defaultMetrics?: boolean } = {}): GatewayMetrics {
  const registry = new Registry();
  const prefix = "afw_";
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Counter({ name: prefix + name, help, labelNames, registers: [registry] });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Histogram({ name: prefix + name, help, labelNames, buckets: LATENCY_BUCKETS, registers: [registry] });
  const toolCalls = counter("tool_calls_total", "MCP tool calls by tool, outcome and error code.", ["tool", "outcome", "code"]);
  const toolLatency = histogram("tool_call_duration_seconds", "Latency of MCP tool calls.", ["tool"]);
  const httpRequests = counter("http_requests_total", "HTTP requests by route, method and status.", ["route", "method", "status"]);
  const httpLatency = histogram("http_request_duration_seconds", "Latency of HTTP requests.", ["route"]);
  const rejected = counter("http_rejected_total", "HTTP requests refused before reaching MCP, by reason.", ["reason"]);
  const cacheHits = counter("cache_hits_total", "Answers served from the cache.", ["kind"]);
  const cacheMisses = counter("cache_misses_total", "Cache lookups without a usable answer.", ["reason"]);
  const fallbacks = counter("fallbacks_total", "Moves to another candidate after a failure.", ["from_backend", "to_backend"]);
  const backendCalls = counter("backend_calls_total", "Backend call attempts by backend and outcome.", ["backend", "outcome"]);
  const backendErrors = counter("backend_errors_total", "Failed backend calls by backend and error code.", ["backend", "code"]);
  const backendLatency = histogram("backend_call_duration_seconds", "Latency of backend calls.", ["backend"]);
  const downstreamCalls = counter("downstream_tool_calls_total", "Downstream tool call attempts by server and outcome (success, error, timeout, aborted).", ["server", "outcome"]);
  const downstreamErrors = counter("downstream_tool_errors_total", "Failed downstream tool call attempts by server and error code.", ["server", "code"]);
  const circuitsOpened = counter("circuits_opened_total", "Circuit breaker openings by backend.", ["backend"]);
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
