import type { BackendHealth, UniversalFlow } from "@afw/contracts";
import type { DiscoveryProblem } from "./backend-registry.js";
import type { GatewayServer } from "./gateway-types.js";

/** What a backend looks like from the gateway: usable, or why not. */
export type BackendSetupState = "ready" | "no-flows" | "unreachable" | "unauthorized";

/** One backend's line of the {@link SetupReport}. */
export interface BackendSetupStatus {
  id: string;
  kind: string;
  state: BackendSetupState;
  /** Flows found (discovered plus configured). */
  flows: number;
  /** One secret-free sentence: what was found, or what is wrong and what to change. */
  message: string;
  /** The latest health status (probed now when none is fresh), absent when the probe failed. */
  health?: BackendHealth["status"] | undefined;
}

/** Whether the gateway has something to route to, per backend, with what to configure if not. */
export interface SetupReport {
  backends: BackendSetupStatus[];
  /** Set when no backend is usable: what to configure and how. */
  hint?: string;
}

const NONE_CONFIGURED =
  "no backend is configured: set FLOWISE_BASE_URL (e.g. http://localhost:3000) and/or LANGFLOW_BASE_URL (e.g. http://localhost:7860), " +
  "or run `afw serve --config examples/afw.yaml` with your backends in it";

const envPrefix = (kind: string) => (kind === "flowise" || kind === "langflow" ? kind.toUpperCase() : undefined);

function classify(id: string, kind: string, health: BackendHealth | undefined, problem: DiscoveryProblem | undefined, flows: readonly UniversalFlow[]): BackendSetupStatus {
  const prefix = envPrefix(kind);
  const where = prefix ? `${prefix}_BASE_URL or backends[].baseURL` : "backends[].baseURL";
  const key = prefix ? `${prefix}_API_KEY or backends[].apiKey` : "backends[].apiKey";
  if (health?.errorCode === "BACKEND_AUTH_FAILED" || problem?.code === "BACKEND_AUTH_FAILED") {
    return { id, kind, state: "unauthorized", flows: flows.length, message: `reachable, but its API key was refused (401/403): set ${key}` };
  }
  if (health?.status === "down" || (problem && flows.length === 0)) {
    const why = health?.message ?? problem?.message ?? "no answer";
    return { id, kind, state: "unreachable", flows: flows.length, message: `unreachable (${why}): start it, or fix ${where}` };
  }
  if (flows.length === 0) {
    return { id, kind, state: "no-flows", flows: 0, message: "reachable, but it has no flows: create one on the platform, or list its flows under backends[].flows" };
  }
  return { id, kind, state: "ready", flows: flows.length, message: `reachable, authenticated, ${flows.length} flow${flows.length === 1 ? "" : "s"} found` };
}

/** Probes every registered backend of a gateway (health and flow discovery) and says, per backend, whether it can be
 * routed to — reachable, authenticated, flows found — or what to configure. */
export async function describeSetup({ registry, router }: Pick<GatewayServer, "registry" | "router">, options: { signal?: AbortSignal } = {}): Promise<SetupReport> {
  const entries = registry.entries();
  if (entries.length === 0) return { backends: [], hint: NONE_CONFIGURED };
  const backends = await Promise.all(
    entries.map(async ({ backend }) => {
      const [flows, health] = await Promise.all([
        registry.backendFlows(backend.id, options.signal ? { signal: options.signal } : {}).catch(() => registry.peekFlows(backend.id) ?? []),
        router
          .latestHealth(backend.id)
          .then(async (latest) => latest ?? (await router.checkHealth(backend.id))[0])
          .catch(() => undefined),
      ]);
      const problem = registry.discoveryProblems().find((p) => p.backendId === backend.id);
      return { ...classify(backend.id, backend.kind, health, problem, flows), ...(health ? { health: health.status } : {}) };
    }),
  );
  if (backends.some((b) => b.state === "ready")) return { backends };
  return { backends, hint: `no backend can answer: ${backends.map((b) => `${b.id} ${b.message}`).join("; ")}` };
}

/** The hint to add to a "nothing to route to" answer, or undefined when some backend is usable. */
export async function routingSetupHint(gateway: Pick<GatewayServer, "registry" | "router">): Promise<string | undefined> {
  if (gateway.registry.entries().length === 0) return NONE_CONFIGURED;
  return (await describeSetup(gateway, { signal: AbortSignal.timeout(2_000) })).hint;
}
