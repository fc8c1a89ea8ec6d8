/**
 * `@afw/router`: intent classification, backend/flow scoring and execution with retry, fallback,
 * circuit breaking and hedging. Works on any `FlowBackendV1` from `@afw/contracts`.
 *
 * @packageDocumentation
 */
export { createIntentClassifier, type IntentClassifier } from "./intent-classifier.js";
export { loadIntentPatterns, mergeIntentPatterns, IntentPatternRulesSchema, type IntentPatternRules } from "./intent-patterns.js";
export { DEFAULT_INTENT_PATTERNS } from "./default-intent-patterns.js";

export { DEFAULT_INTENT_LEXICON } from "./intent-lexicon.js";

export { type BackendFlowSource } from "./flow-discovery-cache.js";

export { executeWithFallback, executeStream, type ExecuteOptions, type ExecutionAttempt, type ExecutionOutcome, type ExecutionRequest } from "./execute.js";
export { Router, createRouter, type RouterOptions } from "./router.js";
// Types (and schemas) of the signatures above.
export { type CircuitBreaker, type CircuitBreakerOptions } from "./circuit-breaker.js";
export { type ExecutionStreamChunk, type RetryOptions } from "./execute.js";
export { type FlowDiscoveryCache } from "./flow-discovery-cache.js";
export { type HealthCache } from "./health-cache.js";
export { type ClassifyContext, type ConfidenceThresholds, type IntentClassificationResult, type IntentClassifierOptions } from "./intent-classifier.js";
export { type IntentLexiconConcept } from "./intent-lexicon.js";
export { type IntentPatternConfig, type IntentPatternMatcher } from "./intent-patterns.js";
export { type PerformanceTracker } from "./performance-tracker.js";
export { type RouteInput, type RouterExecuteInput, type RouterExecution, type RouterExplanation } from "./router.js";
export { type CapabilityTable, type PerformanceScoringOptions } from "./scoring.js";
export { type StreamRestartChunk } from "./execute.js";
export { type IntentExemplar, type IntentModel } from "./intent-model.js";
export { IntentPatternConfigSchema, type PatternMatch, type PatternScores } from "./intent-patterns.js";
export { type PerformanceSummary } from "./scoring.js";
