/**
 * `@afw/router`: intent classification, backend/flow scoring and execution with retry, fallback,
 * circuit breaking and hedging. Works on any `FlowBackendV1` from `@afw/contracts`.
 *
 * @packageDocumentation
 */
export { createIntentClassifier, type IntentClassifier, type IntentClassifierOptions } from "./intent-classifier.js";
export {
  CascadeCombinationSchema,
  DEFAULT_CASCADE_THRESHOLD,
  DEFAULT_CASCADE_TIMEOUT_MS,
  IntentCascadeSettingsSchema,
  type IntentCascadeOptions,
  type IntentCascadeSettings,
} from "./intent-cascade.js";
export { loadIntentPatterns, mergeIntentPatterns, IntentPatternRulesSchema, type IntentPatternRules } from "./intent-patterns.js";
export { DEFAULT_INTENT_PATTERNS } from "./default-intent-patterns.js";
export { type BackendFlowSource } from "./flow-discovery-cache.js";
export { executeStream } from "./execute-stream.js";
export {
  executeWithFallback,
  type ExecuteOptions,
  type ExecutionAttempt,
  type ExecutionOutcome,
  type ExecutionRequest,
  type ExecutionStreamChunk,
} from "./execute.js";
export { Router, createRouter } from "./router.js";
export { type RouterOptions } from "./router-options.js";
