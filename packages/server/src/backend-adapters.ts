import { createFlowiseBackend, createLangflowBackend, type ConfiguredFlowInput } from "@afw/backends";
import { toAfwError } from "@afw/contracts";
import { backendFactoryByKind, type BackendFactory, type BackendFactoryOptions } from "./backend-factory.js";
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
    timeouts: { requestTimeoutMs: config.requestTimeoutMs, ...(config.streamFirstByteTimeoutMs === undefined ? {} : { streamFirstByteTimeoutMs: config.streamFirstByteTimeoutMs }) },
    flows,
    discovery: config.discoverFlows ? ("auto" as const) : ("configured-only" as const),
    ...(config.capabilities === undefined ? {} : { capabilities: config.capabilities }),
    ...(config.defaultParameterMapping === undefined ? {} : { defaultParameterMapping: config.defaultParameterMapping }),
    ...(options.connectPolicy === undefined ? {} : { connectPolicy: options.connectPolicy }),
    ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
  };
}

const wrap =
  (create: (settings: ReturnType<typeof adapterSettings>) => ReturnType<BackendFactory>): BackendFactory =>
  (config, options) => {
    try {
      return create(adapterSettings(config, options));
    } catch (error) {
      throw toAfwError(error, "CONFIG_INVALID");
    }
  };

/** The default {@link BackendFactory}: `flowise` and `langflow` through the `@afw/backends` adapters. */
export const builtInBackendFactories: Readonly<Record<string, BackendFactory>> = Object.freeze({
  flowise: wrap((settings) => createFlowiseBackend(settings)),
  langflow: wrap((settings) => createLangflowBackend(settings)),
});

/** {@link builtInBackendFactories} as one factory. */
export const defaultBackendFactory: BackendFactory = backendFactoryByKind(builtInBackendFactories);
