import { z } from "zod";
import {
  AfwError,
  BackendError,
  emitTrace,
  type TraceContext,
  BackendIdSchema,
  BackendKindSchema,
  formatZodError,
  type BackendHealth,
  type BackendKind,
  type FlowBackendV1,
  type UniversalFlow,
} from "@afw/contracts";
import { createFlowiseBackend, type FlowiseBackendSettings } from "./flowise-backend.js";
import { createLangflowBackend, type LangflowBackendSettings } from "./langflow-backend.js";

/**
 * Creates a backend of one kind from its config entry (without `kind`). Validates the rest of
 * the entry itself.
 */
export type BackendFactory = (settings: Record<string, unknown> & { id: string }) => FlowBackendV1;

/** Zod schema of {@link BackendConfig}: `kind`, `id`, `enabled`, and whatever the kind's factory accepts. */
export const BackendConfigSchema = z.looseObject({
  kind: BackendKindSchema,
  id: BackendIdSchema,
  enabled: z.boolean().default(true),
});

/**
 * One backend in a config file.
 *
 * @example
 * ```ts
 * const config: BackendConfig[] = [
 *   { kind: "flowise", id: "flowise-eu", baseURL: "http://flowise-eu:3000", apiKey: "..." },
 *   { kind: "flowise", id: "flowise-us", baseURL: "http://flowise-us:3000" },
 *   { kind: "langflow", id: "langflow", baseURL: "http://langflow:7860" },
 * ];
 * ```
 */
export type BackendConfig = z.input<typeof BackendConfigSchema> & Record<string, unknown>;

/** What {@link BackendRegistry.connectAll} found out about one backend. */
export interface BackendConnectionStatus {
  backendId: string;
  kind: BackendKind;
  /** Health probe result (status `down` when the probe failed). */
  health: BackendHealth;
  /** Number of flows discovered, when discovery ran and succeeded. */
  flowCount?: number;
  /** The flows discovered, when discovery ran and succeeded. */
  flows?: UniversalFlow[];
  /** Why discovery failed, secret-free. */
  error?: { code: string; message: string };
}

/** Options of {@link BackendRegistry.connectAll}. */
export interface ConnectOptions {
  /** Aborts every probe. */
  signal?: AbortSignal;
  /** Run flow discovery after a successful health check (default true). */
  discover?: boolean;
  /** Where to emit `health-checked` and `flows-discovered` trace events. */
  trace?: TraceContext;
}

/** A change to the registry, for listeners. */
export type BackendRegistryEvent = { type: "registered"; backend: FlowBackendV1 } | { type: "unregistered"; backend: FlowBackendV1 };

/** Options of {@link BackendRegistry}. */
export interface BackendRegistryOptions {
  /** Extra or replacement factories by kind (the built-in `flowise` and `langflow` are always there unless replaced). */
  factories?: Record<string, BackendFactory>;
}

const BUILT_IN_FACTORIES: Record<string, BackendFactory> = {
  flowise: (settings) => createFlowiseBackend(settings as unknown as FlowiseBackendSettings),
  langflow: (settings) => createLangflowBackend(settings as unknown as LangflowBackendSettings),
};

/**
 * The set of configured backends: register and unregister at run time, look up by id or kind,
 * build from environment variables or config entries through a pluggable factory per kind, and
 * probe them all at once.
 *
 * A third backend kind is one module exporting a factory plus
 * `registry.registerKind("mykind", createMyBackend)`.
 *
 * @example
 * ```ts
 * const registry = BackendRegistry.fromEnv(process.env);
 * const statuses = await registry.connectAll();
 * for (const s of statuses) console.log(s.backendId, s.health.status, s.flowCount);
 * ```
 */
export class BackendRegistry {
  private readonly backends = new Map<string, FlowBackendV1>();
  private readonly factories = new Map<string, BackendFactory>();
  private readonly listeners = new Set<(event: BackendRegistryEvent) => void>();

  constructor(options: BackendRegistryOptions = {}) {
    for (const [kind, factory] of Object.entries({ ...BUILT_IN_FACTORIES, ...options.factories })) this.registerKind(kind, factory);
  }

  /**
   * Builds a registry from environment variables: `FLOWISE_BASE_URL` (+ `FLOWISE_API_KEY`)
   * registers backend `flowise`, `LANGFLOW_BASE_URL` (+ `LANGFLOW_API_KEY`) registers `langflow`.
   *
   * @throws AfwError `CONFIG_INVALID` when a base URL is not a valid URL.
   */
  static fromEnv(env: Record<string, string | undefined>, options: BackendRegistryOptions = {}): BackendRegistry {
    return new BackendRegistry(options).loadEnv(env);
  }

  /**
   * Builds a registry from config entries (several of one kind allowed, ids unique).
   *
   * @throws AfwError `CONFIG_INVALID` for an unknown kind, a duplicate id or invalid settings.
   */
  static fromConfig(configs: readonly BackendConfig[], options: BackendRegistryOptions = {}): BackendRegistry {
    return new BackendRegistry(options).loadConfig(configs);
  }

  /**
   * Adds (or replaces) the factory of a backend kind.
   *
   * @throws AfwError `CONFIG_INVALID` when `kind` is not a lower-case identifier.
   */
  registerKind(kind: string, factory: BackendFactory): this {
    const parsed = BackendKindSchema.safeParse(kind);
    if (!parsed.success) throw new AfwError("CONFIG_INVALID", `invalid backend kind '${kind}': ${formatZodError(parsed.error)}`);
    this.factories.set(kind, factory);
    return this;
  }

  /** The kinds this registry can build. */
  get kinds(): string[] {
    return [...this.factories.keys()];
  }

  /** Registers the backends named by environment variables (see {@link BackendRegistry.fromEnv}). */
  loadEnv(env: Record<string, string | undefined>): this {
    const entries: BackendConfig[] = [];
    const flowise = env["FLOWISE_BASE_URL"]?.trim();
    if (flowise) entries.push({ kind: "flowise", id: "flowise", baseURL: flowise, ...(env["FLOWISE_API_KEY"]?.trim() ? { apiKey: env["FLOWISE_API_KEY"].trim() } : {}) });
    const langflow = env["LANGFLOW_BASE_URL"]?.trim();
    if (langflow) entries.push({ kind: "langflow", id: "langflow", baseURL: langflow, ...(env["LANGFLOW_API_KEY"]?.trim() ? { apiKey: env["LANGFLOW_API_KEY"].trim() } : {}) });
    return this.loadConfig(entries);
  }

  /** Builds and registers a backend per enabled config entry (see {@link BackendRegistry.fromConfig}). */
  loadConfig(configs: readonly BackendConfig[]): this {
    const built: FlowBackendV1[] = [];
    const ids = new Set<string>();
    for (const [index, entry] of configs.entries()) {
      const parsed = BackendConfigSchema.safeParse(entry);
      if (!parsed.success) throw new AfwError("CONFIG_INVALID", `backends[${index}]: ${formatZodError(parsed.error)}`);
      if (!parsed.data.enabled) continue;
      if (ids.has(parsed.data.id) || this.backends.has(parsed.data.id)) throw new AfwError("CONFIG_INVALID", `backends[${index}]: duplicate backend id '${parsed.data.id}'`);
      ids.add(parsed.data.id);
      built.push(this.create(entry));
    }
    for (const backend of built) this.register(backend);
    return this;
  }

  /**
   * Builds (without registering) a backend from one config entry with the factory of its kind.
   *
   * @throws AfwError `CONFIG_INVALID` for an unknown kind or invalid settings.
   */
  create(entry: BackendConfig): FlowBackendV1 {
    const parsed = BackendConfigSchema.safeParse(entry);
    if (!parsed.success) throw new AfwError("CONFIG_INVALID", `invalid backend config: ${formatZodError(parsed.error)}`);
    const factory = this.factories.get(parsed.data.kind);
    if (!factory) throw new AfwError("CONFIG_INVALID", `unknown backend kind '${parsed.data.kind}' (known: ${this.kinds.join(", ")})`);
    const { kind: _kind, enabled: _enabled, ...settings } = entry;
    const backend = factory(settings as Record<string, unknown> & { id: string });
    if (backend.specificationVersion !== "v1") throw new AfwError("CONFIG_INVALID", `backend '${parsed.data.id}' implements spec ${String(backend.specificationVersion)}, expected v1`);
    return backend;
  }

  /**
   * Adds a backend.
   *
   * @throws AfwError `CONFIG_INVALID` when a backend with the same id is registered (use `replace`).
   */
  register(backend: FlowBackendV1, options: { replace?: boolean } = {}): this {
    if (backend.specificationVersion !== "v1") throw new AfwError("CONFIG_INVALID", `backend '${backend.id}' does not implement spec v1`);
    const existing = this.backends.get(backend.id);
    if (existing && !options.replace) throw new AfwError("CONFIG_INVALID", `backend '${backend.id}' is already registered`);
    if (existing) this.notify({ type: "unregistered", backend: existing });
    this.backends.set(backend.id, backend);
    this.notify({ type: "registered", backend });
    return this;
  }

  /** Removes a backend and returns it (the caller may `close()` it), or undefined when unknown. */
  unregister(id: string): FlowBackendV1 | undefined {
    const backend = this.backends.get(id);
    if (!backend) return undefined;
    this.backends.delete(id);
    this.notify({ type: "unregistered", backend });
    return backend;
  }

  /** The backend with this id. */
  get(id: string): FlowBackendV1 | undefined {
    return this.backends.get(id);
  }

  /**
   * The backend with this id.
   *
   * @throws BackendError `BACKEND_UNAVAILABLE` (not retryable) when no such backend is registered.
   */
  require(id: string): FlowBackendV1 {
    const backend = this.backends.get(id);
    if (!backend) throw new BackendError("BACKEND_UNAVAILABLE", `no backend '${id}' is registered`, { backendId: id, isRetryable: false });
    return backend;
  }

  /** True when a backend with this id is registered. */
  has(id: string): boolean {
    return this.backends.has(id);
  }

  /** Every backend, in registration order. */
  list(): FlowBackendV1[] {
    return [...this.backends.values()];
  }

  /** The backends of one kind. */
  listByKind(kind: BackendKind): FlowBackendV1[] {
    return this.list().filter((backend) => backend.kind === kind);
  }

  /** Number of registered backends. */
  get size(): number {
    return this.backends.size;
  }

  /** Calls `listener` on every register/unregister; returns a function that stops it. */
  subscribe(listener: (event: BackendRegistryEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Probes every backend in parallel: health, then (unless `discover` is false or the backend
   * is down) flow discovery. Never throws: failures are reported per backend. With a `trace`
   * context, emits `health-checked` and `flows-discovered` events.
   *
   * @example
   * ```ts
   * const statuses = await registry.connectAll({ signal: AbortSignal.timeout(10_000) });
   * const usable = statuses.filter((s) => s.health.status !== "down" && s.flowCount);
   * ```
   */
  async connectAll(options: ConnectOptions = {}): Promise<BackendConnectionStatus[]> {
    return Promise.all(this.list().map((backend) => this.connect(backend, options)));
  }

  /** Unregisters and closes every backend. */
  async close(): Promise<void> {
    const backends = this.list();
    for (const backend of backends) this.unregister(backend.id);
    await Promise.allSettled(backends.map((backend) => backend.close?.()));
  }

  private async connect(backend: FlowBackendV1, options: ConnectOptions): Promise<BackendConnectionStatus> {
    let health: BackendHealth;
    try {
      health = await backend.checkHealth(options.signal);
    } catch (error) {
      health = {
        backendId: backend.id,
        kind: backend.kind,
        status: "down",
        latencyMs: 0,
        checkedAt: new Date().toISOString(),
        message: AfwError.isInstance(error) ? error.message : "health check failed",
        errorCode: AfwError.isInstance(error) ? error.code : "INTERNAL",
      };
    }
    emitTrace(options.trace, "health-checked", { backendId: backend.id, status: health.status, latencyMs: health.latencyMs });
    const status: BackendConnectionStatus = { backendId: backend.id, kind: backend.kind, health };
    if (options.discover === false || health.status === "down") return status;
    try {
      const flows = await backend.discoverFlows(options.signal);
      emitTrace(options.trace, "flows-discovered", { backendId: backend.id, count: flows.length, stale: false });
      return { ...status, flows, flowCount: flows.length };
    } catch (error) {
      return { ...status, error: { code: AfwError.isInstance(error) ? error.code : "INTERNAL", message: AfwError.isInstance(error) ? error.message : "flow discovery failed" } };
    }
  }

  private notify(event: BackendRegistryEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // listeners must not break registration
      }
    }
  }
}
