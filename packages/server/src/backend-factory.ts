import type { ConnectPolicy, HostLookup } from "@afw/backends";
import type { FlowBackendV1 } from "@afw/contracts";
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
