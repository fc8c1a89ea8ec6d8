import type { ConnectPolicy, HostLookup } from "@afw/backends";
import { AfwError, type FlowBackendV1 } from "@afw/contracts";
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

/** Combines per-kind factories into one {@link BackendFactory}. @throws AfwError `CONFIG_INVALID` (from the returned factory) for a kind with no entry. */
export function backendFactoryByKind(factories: Readonly<Record<string, BackendFactory>>): BackendFactory {
  return (config, options) => {
    const factory = factories[config.kind];
    if (!factory) {
      throw new AfwError("CONFIG_INVALID", `no adapter for backend kind '${config.kind}' (backend '${config.id}'); known kinds: ${Object.keys(factories).join(", ") || "none"}`, {
        details: { backendId: config.id, kind: config.kind },
      });
    }
    return factory(config, options);
  };
}
