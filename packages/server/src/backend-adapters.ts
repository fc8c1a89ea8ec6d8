import { createFlowiseBackend, createLangflowBackend, type ConfiguredFlowInput } from "@afw/backends";
import { AfwError, toAfwError, type FlowBackendV1 } from "@afw/contracts";
import type { BackendFactory, BackendFactoryOptions } from "./backend-factory.js";
import type { BackendConfig } from "./config-schema.js";

/** The adapter settings (`@afw/backends`) of a configured backend: base URL, key, headers, request timeout, flow registry (by platform flow id),
 * discovery mode and capabilities, and the connection policy and resolver from the factory options (`backend_connect`). */
export function adapterSettings(config: BackendConfig, options: BackendFactoryOptions = {}) {
  const flows: Record<string, ConfiguredFlowInput> = {};
  for (const flow of config.flows) {
    flows[flow.id] = {
      ...(flow.name === undefined ? {} : { name: flow.name }),
      ...(flow.description === undefined ? {} : { description: flow.description }),
      ...(flow.intents.length > 0 ? { intents: flow.intents } : {}),
      ...(flow.keywords.length > 0 ? { keywords: flow.keywords } : {}),
      ...(flow.tags.length > 0 ? { tags: flow.tags } : {}),
      ...(flow.capabilities.length > 0 ? { capabilities: flow.capabilities } : {}),
      generalPurpose: flow.generalPurpose,
      cacheable: flow.cacheable,
      ...(flow.cacheClass === undefined ? {} : { cacheClass: flow.cacheClass }),
      ...(flow.streaming === undefined ? {} : { streaming: flow.streaming }),
      ...(flow.parameterMapping === undefined ? {} : { parameterMapping: flow.parameterMapping }),
    };
  }
  return {
    id: config.id,
    baseURL: config.baseURL,
    ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
    headers: config.headers,
    timeouts: { requestTimeoutMs: config.requestTimeoutMs },
    flows,
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
