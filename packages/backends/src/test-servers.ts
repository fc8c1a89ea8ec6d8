/**
 * `@afw/backends/test/servers`: local reproductions of Flowise and Langflow on 127.0.0.1, with recorded requests and
 * fault injection. Does not import vitest.
 * @packageDocumentation
 */
export { startFlowiseServer, type FlowiseServerOptions } from "./testing/flowise-server.js";
export { startLangflowServer, type LangflowServerOptions } from "./testing/langflow-server.js";
export { demoFlows } from "./testing/demo-flows.js";
export {
  type MockAnswer,
  type MockFault,
  type MockFlowDefinition,
  type MockFlowNode,
  type MockPlatformServer,
  type MockRoute,
  type MockRunInput,
  type MockRunRecord,
  type MockServerOptions,
  type MockSource,
  type RecordedRequest,
} from "./testing/mock-server.js";
