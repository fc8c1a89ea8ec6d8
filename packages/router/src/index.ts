/**
 * `@afw/router`: intent classification, backend/flow scoring and execution with retry, fallback,
 * circuit breaking and hedging. Works on any `FlowBackendV1` from `@afw/contracts`.
 *
 * @packageDocumentation
 */
export {
  createIntentClassifier,
  confidenceLevel,
  DEFAULT_CONFIDENCE_THRESHOLDS,
  type IntentClassifier,
  type IntentClassifierOptions,
  type IntentClassificationResult,
  type ClassifyContext,
  type ConfidenceThresholds,
} from "./intent-classifier.js";
export {
  compileIntentPatterns,
  parseIntentPatterns,
  loadIntentPatterns,
  mergeIntentPatterns,
  IntentPatternConfigSchema,
  IntentPatternRulesSchema,
  type IntentPatternConfig,
  type IntentPatternConfigInput,
  type IntentPatternRules,
  type IntentPatternMatcher,
  type PatternMatch,
  type PatternScores,
} from "./intent-patterns.js";
export { DEFAULT_INTENT_PATTERNS } from "./default-intent-patterns.js";
export {
  trainIntentModel,
  serializeIntentModel,
  deserializeIntentModel,
  loadBundledIntentModel,
  parseIntentExemplars,
  hashIntentExemplars,
  hashIntentPatterns,
  buildIntentFeatureRow,
  intentModelText,
  buildCalibrationTable,
  IntentExemplarFileSchema,
  BUNDLED_INTENT_MODEL_URL,
  BUNDLED_INTENT_EXEMPLARS_URL,
  DEFAULT_INTENT_FEATURE_SETTINGS,
  type IntentModel,
  type IntentExemplar,
  type IntentFeatureSettings,
  type IntentModelEvaluation,
  type CalibrationBucket,
  type TrainIntentModelOptions,
} from "./intent-model.js";
export { lexicalFeatures, type SparseVector, type LexicalFeatureOptions } from "./lexical-features.js";
export {
  DEFAULT_INTENT_LEXICON,
  compileIntentLexicon,
  type IntentLexicon,
  type IntentLexiconConcept,
  type LexiconMatch,
} from "./intent-lexicon.js";
export {
  trainSoftmaxRegression,
  softmaxLogits,
  softmaxInPlace,
  type SoftmaxWeights,
  type SoftmaxTrainingOptions,
  type FeatureRow,
} from "./softmax-regression.js";
export { foldText, splitWords, truncateForModel, MAX_MATCH_CHARACTERS } from "./text-normalization.js";
export {
  createInMemoryPerformanceStore,
  createInMemoryHealthStore,
  createInMemoryCircuitStateStore,
  type InMemoryPerformanceStoreOptions,
  type InMemoryClockOptions,
} from "./memory-stores.js";
export {
  inferFlowIntents,
  looksGeneralPurpose,
  buildFlowProfile,
  parseFlowRegistry,
  loadFlowRegistry,
  FlowRegistrySchema,
  FlowRegistryEntrySchema,
  type FlowRegistry,
  type FlowRegistryEntry,
  type FlowProfile,
} from "./flow-profiles.js";
export {
  flowMatchScore,
  healthScore,
  capabilityScore,
  summarizePerformance,
  combineScore,
  DEFAULT_CAPABILITIES,
  DEFAULT_MAX_SCORE_ADJUSTMENT,
  adjustBreakdown,
  FLOW_MATCH_SCORES,
  type CapabilityTable,
  type PerformanceSummary,
  type PerformanceScoringOptions,
} from "./scoring.js";
export { createHealthCache, type HealthCache, type HealthCacheOptions } from "./health-cache.js";
export { createFlowDiscoveryCache, type BackendFlowSource, type FlowDiscoveryCache, type FlowDiscoveryCacheOptions } from "./flow-discovery-cache.js";
export { createPerformanceTracker, type PerformanceTracker, type PerformanceTrackerOptions } from "./performance-tracker.js";
export { createCircuitBreaker, parseCircuitKey, type CircuitBreaker, type CircuitBreakerOptions } from "./circuit-breaker.js";
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
