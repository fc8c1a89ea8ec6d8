import type { TraceEvent, TraceSink } from "@afw/contracts";
import { createGatewayServer, startHttpTransport, type GatewayConfigInput, type GatewayParts, type GatewayServer, type HttpTransportHandle } from "@afw/server";

/**
 * Configuration for the suites: quiet logs, the fast hashing embedder, no rate limit (every client shares one loopback
 * address), no dashboard, stateless Streamable HTTP. `overrides` win, section by section.
 */
export function reliabilityConfig(overrides: GatewayConfigInput = {}): GatewayConfigInput {
  return {
    ...overrides,
    routing: { classifierEmbedder: "hashing", ...overrides.routing, health: { intervalMs: 0, timeoutMs: 2_000, ...overrides.routing?.health } },
    http: { ...overrides.http, rateLimit: { enabled: false, ...overrides.http?.rateLimit } },
    dashboard: { enabled: false, ...overrides.dashboard },
    logging: { level: "silent", ...overrides.logging },
    metrics: { defaultMetrics: false, ...overrides.metrics },
  };
}

/** Collects trace events. */
export interface TraceCollector extends TraceSink {
  /** Events of one type. */
  of<T extends TraceEvent["type"]>(type: T): Extract<TraceEvent, { type: T }>[];
}

/** A sink that keeps every event in memory. */
export function createTraceCollector(): TraceCollector {
  const events: TraceEvent[] = [];
  return {
    emit(event) {
      events.push(event);
    },
    of<T extends TraceEvent["type"]>(type: T) {
      return events.filter((e): e is Extract<TraceEvent, { type: T }> => e.type === type);
    },
  };
}

/** An in-process gateway served over Streamable HTTP on a free loopback port. */
export interface HttpGateway {
  gateway: GatewayServer;
  http: HttpTransportHandle;
  /** `http://127.0.0.1:<port>/mcp`. */
  url: string;
  traces: TraceCollector;
  close(): Promise<void>;
}

/** Creates a gateway from `config` (through {@link reliabilityConfig}) and `parts`, and serves it on HTTP. */
export async function startHttpGateway(config: GatewayConfigInput, parts: Omit<GatewayParts, "config"> = {}): Promise<HttpGateway> {
  const traces = createTraceCollector();
  const gateway = await createGatewayServer({ ...parts, config: reliabilityConfig(config), traceSinks: [...(parts.traceSinks ?? []), traces] });
  const http = await startHttpTransport(gateway, { port: 0 });
  return {
    gateway,
    http,
    url: http.url,
    traces,
    async close() {
      await http.close();
      await gateway.close();
    },
  };
}
