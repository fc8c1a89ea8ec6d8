import { createFlowiseBackend, createLangflowBackend, type ConfiguredFlowInput, type ConnectPolicy, type HostLookup } from "@afw/backends";
import { AfwError, toAfwError, type FlowBackendV1 } from "@afw/contracts";
import type { BackendConfig } from "./config-schema.js";

/** What the gateway asks of a backend it creates, beyond its configuration. */
export interface BackendFactoryOptions {
  /** Must be applied to every connection the backend opens (the built-in adapters take it as their `connectPolicy` setting). */
  connectPolicy?: ConnectPolicy | undefined;
  /** Host-name resolver for those connections (tests inject one). @default `dns.lookup` */
  lookup?: HostLookup | undefined;
}

/**
 * Creates a backend from its configuration (for `backends` in the config file and for
 * `backend_connect`). Return a {@link FlowBackendV1}; throw an `AfwError` (`CONFIG_INVALID`)
 * for a kind it cannot build. Backends added by `backend_connect` come with `options.connectPolicy`,
 * which the backend must apply to its connections (see {@link BackendFactoryOptions}).
 *
 * @example
 * ```ts
 * const factory: BackendFactory = (config) =>
 *   config.kind === "flowise" ? createFlowiseBackend(config) : createLangflowBackend(config);
 * ```
 */
export type BackendFactory = (config: BackendConfig, options?: BackendFactoryOptions) => FlowBackendV1 | Promise<FlowBackendV1>;

/** A backend's configured flow registry in the form of `@afw/backends` (`applyConfiguredFlows`, the adapters' `flows`): keyed by the
 * platform's flow id, empty lists left out (what they would hold is inferred then). */
export function configuredFlows(config: Pick<BackendConfig, "flows">): Record<string, ConfiguredFlowInput> {
  return Object.fromEntries(
    config.flows.map(({ id, ...flow }) => [id, Object.fromEntries(Object.entries(flow).filter(([, value]) => value !== undefined && !(Array.isArray(value) && value.length === 0)))]),
  );
}

/** The adapter settings (`@afw/backends`) of a configured backend: base URL, key, headers, request timeout, flow registry (by platform flow id),
 * discovery mode and capabilities, and the connection policy and resolver from the factory options (`backend_connect`). */
export function adapterSettings(config: BackendConfig, options: BackendFactoryOptions = {}) {
  return {
    id: config.id,
    baseURL: config.baseURL,
    ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
    headers: config.headers,
    timeouts: { requestTimeoutMs: config.requestTimeoutMs },
    flows: configuredFlows(config),
    discovery: config.discoverFlows ? ("auto" as const) : ("configured-only" as const),
    ...(config.capabilities === undefined ? {} : { capabilities: config.capabilities }),
    ...(config.defaultParameterMapping === undefined ? {} : { defaultParameterMapping: config.defaultParameterMapping }),
    ...(options.connectPolicy === undefined ? {} : { connectPolicy: options.connectPolicy }),
    ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
  };
}

const ADAPTERS: Readonly<Record<string, (settings: ReturnType<typeof adapterSettings>) => FlowBackendV1>> = { flowise: createFlowiseBackend, langflow: createLangflowBackend };

/** The default {@link BackendFactory}: `flowise` and `langflow` through the `@afw/backends` adapters. @throws AfwError `CONFIG_INVALID` for another kind. */
export const defaultBackendFactory: BackendFactory = (config, options) => {
  const create = ADAPTERS[config.kind];
  if (!create) {
    throw new AfwError("CONFIG_INVALID", `no adapter for backend kind '${config.kind}' (backend '${config.id}'); known kinds: flowise, langflow`, {
      details: { backendId: config.id, kind: config.kind },
    });
  }
  try {
    return create(adapterSettings(config, options));
  } catch (error) {
    throw toAfwError(error, "CONFIG_INVALID");
  }
};
