import {
  AfwError,
  emitTrace,
  toAfwError,
  type FlowBackendV1,
  type TraceContext,
  type TraceSink,
  type UniversalFlow,
} from "@afw/contracts";
import { applyConfiguredFlows } from "@afw/backends";
import { configuredFlows } from "./backend-factory.js";
import type { BackendConfig } from "./config-schema.js";
import { newTraceContext } from "./trace-context.js";

/** A backend known to the gateway, with where it came from. */
export interface RegisteredBackend {
  readonly backend: FlowBackendV1;
  /** Its configuration, when it came from the config file or `backend_connect`. */
  readonly config: BackendConfig | undefined;
  /** `config` (file), `parts` (passed in code) or `runtime` (`backend_connect`). */
  readonly source: "config" | "parts" | "runtime";
  /** Epoch milliseconds. */
  readonly addedAt: number;
}

/** A failed flow discovery. */
export interface DiscoveryProblem {
  backendId: string;
  code: string;
  /** Secret-free message. */
  message: string;
  /** Epoch milliseconds. */
  at: number;
}

/** Options of {@link createBackendRegistry}: the sink of background `flows-discovered` events, the timeout of one discovery (5 s), and the
 * longest wait after a replace or remove for the calls still leased on the old adapter before it is closed anyway (60 s). */
export interface BackendRegistryOptions {
  sink?: TraceSink;
  discoveryTimeoutMs?: number;
  now?: () => number;
  drainTimeoutMs?: number;
}

/** Backends lent to one call; see {@link BackendRegistry.lease}. */
export interface BackendLease {
  /** The backends as they were when the lease was taken. */
  readonly backends: FlowBackendV1[];
  /** Ends the lease (idempotent): an adapter replaced meanwhile is closed once its last lease ends. */
  release(): void;
}

/** The gateway's live set of backends and their flows. */
export interface BackendRegistry {
  /** Every known flow; `refresh` forces rediscovery. */
  flows(options?: { refresh?: boolean; signal?: AbortSignal; trace?: TraceContext }): Promise<UniversalFlow[]>;
  /** Every backend, in registration order. */
  list(): FlowBackendV1[];
  /** Increases on every add and remove (lets a router rebuild its view). */
  readonly revision: number;
  /** Every registration with its metadata. */
  entries(): RegisteredBackend[];
  /** A backend by id. */
  get(id: string): RegisteredBackend | undefined;
  /** Adds a backend. @throws AfwError `INVALID_INPUT` when the id is taken or the spec version is not `v1`. */
  add(backend: FlowBackendV1, options?: { config?: BackendConfig; source?: RegisteredBackend["source"] }): void;
  /** Replaces the backend with the same id (e.g. rebuilt because its configured flows changed) without a moment where the id is missing: the new adapter is registered at once (the previous flow list is served until its first discovery, which starts
   * immediately), and the old adapter is closed once the calls leased before the swap have settled, or after `drainTimeoutMs`. @throws AfwError `INVALID_INPUT` when no backend has that id or the spec version is not `v1`. */
  replace(backend: FlowBackendV1, options?: { config?: BackendConfig; source?: RegisteredBackend["source"] }): Promise<{ drained: Promise<void> }>;
  /** Removes (and closes) a backend; resolves true when it existed. */
  remove(id: string): Promise<boolean>;
  /** The current backends for one call (execution with fallback). */
  lease(): BackendLease;
  /** One backend's flows (discovered with the TTL and merged with its configured flow registry); a stale list is served while a
   * background refresh runs. @throws AfwError `NO_BACKENDS_AVAILABLE` when no backend has that id. */
  backendFlows(id: string, options?: { refresh?: boolean; signal?: AbortSignal; trace?: TraceContext }): Promise<UniversalFlow[]>;
  /** One backend's current flow list without waiting (undefined before its first discovery); starts a background refresh when stale. */
  peekFlows(id: string): UniversalFlow[] | undefined;
  /** Problems of the latest discovery per backend (empty when all succeeded). */
  discoveryProblems(): DiscoveryProblem[];
  /** Closes every backend. */
  close(): Promise<void>;
}

function withTimeout<T>(run: (signal: AbortSignal) => Promise<T>, timeoutMs: number, outer?: AbortSignal): Promise<T> {
  const signal = AbortSignal.any([...(outer ? [outer] : []), AbortSignal.timeout(timeoutMs)]);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(outer?.aborted ? toAfwError(outer.reason, "BACKEND_TIMEOUT") : new AfwError("BACKEND_TIMEOUT", `no answer within ${timeoutMs} ms`));
    signal.addEventListener("abort", onAbort, { once: true });
    run(signal).then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Discovered flow lists are reused this long. */
const DISCOVERY_TTL_MS = 300_000;

/** Creates the registry of live backends: flow discovery with a TTL (a failed rediscovery keeps serving the previous list; the router reads the
 * lists from here), merging of each backend's configured flow registry, and run-time additions (`backend_connect`). Health is the router's. */
export function createBackendRegistry(options: BackendRegistryOptions = {}): BackendRegistry {
  const now = options.now ?? Date.now;
  const discoveryTimeoutMs = options.discoveryTimeoutMs ?? 5_000;
  const drainTimeoutMs = options.drainTimeoutMs ?? 60_000;
  const registrations = new Map<string, RegisteredBackend>();
  /** `loaded`: `flows` may be served (a discovery ended, or the list was carried over by `replace`). */
  type Discovery = { flows: UniversalFlow[]; fetchedAt: number; loaded: boolean; inflight?: Promise<UniversalFlow[]> | undefined; problem?: DiscoveryProblem | undefined };
  const discoveries = new Map<string, Discovery>();
  let revision = 0;
  /** Open leases per registration (an old registration stays here until its calls settle). */
  const leases = new Map<RegisteredBackend, number>();
  /** Resolvers of retired registrations waiting for their last lease. */
  const drainers = new Map<RegisteredBackend, () => void>();
  const retiring = new Set<Promise<void>>();
  /** Closes a registration that left the registry once its leased calls settled (or after the bound). */
  const retire = (entry: RegisteredBackend): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const settled = new Promise<void>((resolve) => {
      if (!leases.get(entry)) return resolve();
      drainers.set(entry, resolve);
      timer = setTimeout(resolve, drainTimeoutMs);
      timer.unref();
    });
    const done = settled.then(async () => {
      clearTimeout(timer);
      drainers.delete(entry);
      leases.delete(entry);
      await entry.backend.close?.().catch(() => undefined);
    });
    retiring.add(done);
    void done.finally(() => retiring.delete(done));
    return done;
  };
  const checkVersion = (backend: FlowBackendV1) => {
    if (backend.specificationVersion !== "v1") {
      throw new AfwError("INVALID_INPUT", `backend '${backend.id}' implements specification '${String(backend.specificationVersion)}', expected 'v1'`);
    }
  };
  /** The served list of a registration, starting a background refresh when it is stale. */
  const served = (entry: RegisteredBackend): UniversalFlow[] | undefined => {
    const state = discoveries.get(entry.backend.id);
    if (!state?.loaded) return undefined;
    if (!state.inflight && (state.fetchedAt === 0 || now() - state.fetchedAt >= DISCOVERY_TTL_MS)) void discover(entry, undefined);
    return state.flows;
  };
  const flowsOf = (entry: RegisteredBackend, flowOptions: { refresh?: boolean; signal?: AbortSignal; trace?: TraceContext }): Promise<UniversalFlow[]> | UniversalFlow[] => {
    const state = discoveries.get(entry.backend.id);
    if (flowOptions.refresh || !state || state.fetchedAt === 0) return discover(entry, flowOptions.trace, flowOptions.signal);
    return served(entry) ?? discover(entry, flowOptions.trace, flowOptions.signal);
  };
  const backgroundTrace = (trace?: TraceContext) => trace ?? (options.sink ? newTraceContext(options.sink) : undefined);
  const discover = (entry: RegisteredBackend, trace: TraceContext | undefined, signal?: AbortSignal): Promise<UniversalFlow[]> => {
    const id = entry.backend.id;
    const state: Discovery = discoveries.get(id) ?? { flows: [], fetchedAt: 0, loaded: false };
    discoveries.set(id, state);
    if (state.inflight) return state.inflight;
    // The one merge of `@afw/backends`: a no-op for flows the adapter already merged (the built-in ones), applied for custom adapters.
    const registry = entry.config ? configuredFlows(entry.config) : {};
    const shouldDiscover = entry.config?.discoverFlows ?? true;
    const run = async (): Promise<UniversalFlow[]> => {
      try {
        const discovered = shouldDiscover ? await withTimeout((s) => entry.backend.discoverFlows(s), discoveryTimeoutMs, signal) : [];
        const flows = applyConfiguredFlows(entry.backend, discovered, registry);
        state.flows = flows;
        state.fetchedAt = now();
        state.loaded = true;
        state.problem = undefined;
        emitTrace(backgroundTrace(trace), "flows-discovered", { backendId: id, count: flows.length, stale: false });
        return flows;
      } catch (error) {
        const afw = toAfwError(error, "BACKEND_UNAVAILABLE");
        state.problem = { backendId: id, code: afw.code, message: afw.message, at: now() };
        // Keep serving the previous list; with none yet, the configured flows alone.
        if (!state.loaded) state.flows = applyConfiguredFlows(entry.backend, [], registry);
        state.loaded = true;
        state.fetchedAt = now() - DISCOVERY_TTL_MS + 5_000; // retry in 5 s
        emitTrace(backgroundTrace(trace), "flows-discovered", { backendId: id, count: state.flows.length, stale: true });
        return state.flows;
      } finally {
        state.inflight = undefined;
      }
    };
    state.inflight = run();
    return state.inflight;
  };
  return {
    list: () => [...registrations.values()].map((entry) => entry.backend),
    get revision() {
      return revision;
    },
    entries: () => [...registrations.values()],
    get: (id) => registrations.get(id),
    add(backend, addOptions = {}) {
      checkVersion(backend);
      if (registrations.has(backend.id)) throw new AfwError("INVALID_INPUT", `a backend with id '${backend.id}' already exists`);
      registrations.set(backend.id, { backend, config: addOptions.config, source: addOptions.source ?? "parts", addedAt: now() });
      revision++;
    },
    async replace(backend, replaceOptions = {}) {
      checkVersion(backend);
      const previous = registrations.get(backend.id);
      if (!previous) throw new AfwError("INVALID_INPUT", `no backend with id '${backend.id}' to replace`);
      const entry: RegisteredBackend = { backend, config: replaceOptions.config ?? previous.config, source: replaceOptions.source ?? previous.source, addedAt: now() };
      // One synchronous step: the id never goes missing.
      const carried = discoveries.get(backend.id);
      discoveries.set(backend.id, { flows: carried?.loaded ? carried.flows : [], fetchedAt: 0, loaded: carried?.loaded ?? false });
      registrations.set(backend.id, entry);
      revision++;
      const drained = retire(previous);
      await discover(entry, undefined);
      return { drained };
    },
    async remove(id) {
      const entry = registrations.get(id);
      if (!entry) return false;
      registrations.delete(id);
      discoveries.delete(id);
      revision++;
      await retire(entry);
      return true;
    },
    lease() {
      const held = [...registrations.values()];
      for (const entry of held) leases.set(entry, (leases.get(entry) ?? 0) + 1);
      let released = false;
      return {
        backends: held.map((entry) => entry.backend),
        release() {
          if (released) return;
          released = true;
          for (const entry of held) {
            const open = (leases.get(entry) ?? 1) - 1;
            if (open > 0) leases.set(entry, open);
            else {
              leases.delete(entry);
              drainers.get(entry)?.();
            }
          }
        },
      };
    },
    async flows(flowOptions = {}) {
      const lists = await Promise.all([...registrations.values()].map((entry) => flowsOf(entry, flowOptions)));
      return lists.flat();
    },
    async backendFlows(id, flowOptions = {}) {
      const entry = registrations.get(id);
      if (!entry) throw new AfwError("NO_BACKENDS_AVAILABLE", `no backend with id '${id}'`);
      return flowsOf(entry, flowOptions);
    },
    peekFlows(id) {
      const entry = registrations.get(id);
      return entry ? served(entry) : undefined;
    },
    discoveryProblems: () => [...discoveries.values()].flatMap((state) => (state.problem ? [state.problem] : [])),
    async close() {
      // Replaced adapters still draining are closed now too.
      for (const resolve of [...drainers.values()]) resolve();
      await Promise.all([...retiring, ...[...registrations.values()].map((entry) => entry.backend.close?.().catch(() => undefined))]);
    },
  };
}
