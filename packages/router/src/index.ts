/**
 * `@afw/router`: intent classification, backend/flow scoring and execution with retry, fallback,
 * circuit breaking and hedging. Works on any `FlowBackendV1` from `@afw/contracts`.
 *
 * @packageDocumentation
 */
export { createIntentClassifier, type IntentClassifier, type IntentClassifierOptions, type IntentClassificationResult, type ClassifyContext, type ConfidenceThresholds } from "./intent-classifier.js";
export { loadIntentPatterns, mergeIntentPatterns, IntentPatternRulesSchema, type IntentPatternConfig, type IntentPatternConfigInput, type IntentPatternRules, type IntentPatternMatcher, type PatternMatch, type PatternScores } from "./intent-patterns.js";
export { DEFAULT_INTENT_PATTERNS } from "./default-intent-patterns.js";
export { type IntentModel, type IntentExemplar, type IntentFeatureSettings, type IntentModelEvaluation, type CalibrationBucket } from "./intent-model.js";
export { DEFAULT_INTENT_LEXICON, type IntentLexiconConcept } from "./intent-lexicon.js";
export { type SoftmaxWeights, type SoftmaxTrainingOptions } from "./softmax-regression.js";
export { type FlowRegistry } from "./flow-profiles.js";
export { type CapabilityTable, type PerformanceSummary, type PerformanceScoringOptions } from "./scoring.js";
export { type HealthCache } from "./health-cache.js";
export { type BackendFlowSource, type FlowDiscoveryCache } from "./flow-discovery-cache.js";
export { type PerformanceTracker } from "./performance-tracker.js";
export { type CircuitBreaker, type CircuitBreakerOptions } from "./circuit-breaker.js";
export {
  executeWithFallback,
  executeStream,
  type ExecuteOptions,
  type ExecutionAttempt,
  type ExecutionOutcome,
  type ExecutionRequest,
  type ExecutionStreamChunk,
  type StreamRestartChunk,
  type RetryOptions,
} from "./execute.js";
export {
  Router,
  createRouter,
  type RouterOptions,
  type RouteInput,
  type RouterExecuteInput,
  type RouterExecution,
  type RouterExplanation,
} from "./router.js";
