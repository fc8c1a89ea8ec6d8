import type { GatewayConfigInput } from "@afw/server";
import { startBackends, type Backends } from "./backends.js";
import { reliabilityConfig } from "./gateway.js";
import { startGatewayProcess, type GatewayProcess } from "./gateway-process.js";
import { startRoundRobinProxy, type RoundRobinProxy } from "./round-robin-proxy.js";

/** Gateway processes on one Redis, with the reproduced backends, behind a round-robin proxy. */
export interface GatewayFleet {
  readonly backends: Backends;
  readonly instances: GatewayProcess[];
  readonly proxy: RoundRobinProxy;
  /** Stops the proxy, the instances and the backends (not Redis). */
  close(): Promise<void>;
}

/**
 * Starts the backends, `count` `afw serve --http` processes sharing one configuration (the reliability defaults,
 * logging at `warn`, then `overrides`) and a round-robin proxy in front of them.
 */
export async function startGatewayFleet(count: number, overrides: GatewayConfigInput): Promise<GatewayFleet> {
  const backends = await startBackends();
  const config = reliabilityConfig({ backends: backends.configs(), logging: { level: "warn" }, ...overrides });
  const instances = await Promise.all(Array.from({ length: count }, () => startGatewayProcess(config)));
  const proxy = await startRoundRobinProxy(instances.map((instance) => instance.origin));
  return {
    backends,
    instances,
    proxy,
    async close() {
      await proxy.close();
      await Promise.all(instances.map((instance) => instance.stop()));
      await backends.close();
    },
  };
}
