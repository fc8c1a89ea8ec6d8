import { AfwError, type FlowBackendV1 } from "@afw/contracts";
import type { BackendConfig } from "./config-schema.js";

/**
 * Creates a backend from its configuration (for `backends` in the config file and for
 * `backend_connect`). Return a {@link FlowBackendV1}; throw an `AfwError` (`CONFIG_INVALID`)
 * for a kind it cannot build.
 *
 * @example
 * ```ts
 * const factory: BackendFactory = (config) =>
 *   config.kind === "flowise" ? createFlowiseBackend(config) : createLangflowBackend(config);
 * ```
 */
export type BackendFactory = (config: BackendConfig) => FlowBackendV1 | Promise<FlowBackendV1>;

/**
 * Combines per-kind factories into one {@link BackendFactory}.
 *
 * @example
 * ```ts
 * const factory = backendFactoryByKind({ flowise: createFlowiseBackend, langflow: createLangflowBackend });
 * ```
 * @throws AfwError `CONFIG_INVALID` (from the returned factory) for a kind with no entry.
 */
export function backendFactoryByKind(factories: Readonly<Record<string, BackendFactory>>): BackendFactory {
  return (config) => {
    const factory = factories[config.kind];
    if (!factory) {
      throw new AfwError("CONFIG_INVALID", `no adapter for backend kind '${config.kind}' (backend '${config.id}'); known kinds: ${Object.keys(factories).join(", ") || "none"}`, {
        details: { backendId: config.id, kind: config.kind },
      });
    }
    return factory(config);
  };
}
