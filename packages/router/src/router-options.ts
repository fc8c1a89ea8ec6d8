import type {
  CircuitStateStore,
  FlowBackendV1,
  HealthStore,
  Intent,
  PerformanceStore,
  RoutingDecision,
  RoutingVariantSelector,
  ScoreAdjuster,
  ScoringWeights,
  TraceContext,
} from "@afw/contracts";
import type { CircuitBreakerOptions } from "./circuit-breaker.js";
import type { ExecuteOptions, ExecutionOutcome, ExecutionRequest } from "./execute.js";
import type { BackendFlowSource } from "./flow-discovery-cache.js";
import type { IntentClassificationResult, IntentClassifier, IntentClassifierOptions } from "./intent-classifier.js";

/** Options of {@link createRouter}. */
export interface RouterOptions {
  /** The backends to route between (any `FlowBackendV1`). */
  backends: readonly FlowBackendV1[];
  /** A ready classifier, or options to create one. @default createIntentClassifier() */
  classifier?: IntentClassifier | IntentClassifierOptions;
  /** Score weights (missing ones default). @default DEFAULT_SCORING_WEIGHTS (.4/.3/.2/.1) */
  weights?: Partial<ScoringWeights>;
  /** Shared stores; in-memory when absent. */
  stores?: { performance?: PerformanceStore; health?: HealthStore; circuits?: CircuitStateStore };
  /** Health snapshot TTL. @default 30000 */
  healthTtlMs?: number;
  /** Longest health probe. @default 5000 */
  healthProbeTimeoutMs?: number;
  /**
   * Where the flow lists come from when the application already discovers flows (e.g. a gateway's backend registry): the router
   * then never calls `discoverFlows` itself, so each backend is discovered once.
   */
  flowSource?: BackendFlowSource;
  /** Circuit breaker settings (its store is `stores.circuits`). */
  circuitBreaker?: Omit<CircuitBreakerOptions, "store" | "now">;
  /** Execution settings (see {@link ExecuteOptions}). */
  execution?: Pick<ExecuteOptions, "attemptTimeoutMs" | "overallTimeoutMs" | "retry" | "maxCandidates">;
  /** Hedging: low-confidence questions run the top two backends in parallel. @default { enabled: true } */
  hedging?: { enabled?: boolean };
  /** Flow used first when the confidence level is `none` (gateway-wide id, platform id or name). */
  defaultFlowId?: string;
  /** Clock (epoch ms) for caches, circuits and performance decay. @default Date.now */
  now?: () => number;
  /** Trace context for background work (health probes, discovery refreshes). */
  trace?: TraceContext;
  /** Adjusts the `flow_match` and `performance` components of every candidate (e.g. a learned routing prior). */
  scoreAdjuster?: ScoreAdjuster;
  /** Largest absolute delta a `scoreAdjuster` may apply to one component. @default 0.25 */
  maxScoreAdjustment?: number;
  /**
   * Assigns a request (after classification, unless the user overrides backend or flow) to an A/B arm; the arm's weights and
   * strategy apply to its decision, which records the arm in `decision.experiment`.
   */
  variantSelector?: RoutingVariantSelector;
}

/** What to route. */
export interface RouteInput {
  question: string;
  /** Explicit intent, or `auto`. */
  intent?: Intent | "auto" | undefined;
  /** `auto`, a backend kind or a backend id. */
  backend?: string | undefined;
  /** Force a flow (gateway-wide id, platform id or name). */
  flowId?: string | undefined;
  /**
   * With an explicit `backend` or `flowId`: false (default) makes the choice binding — only the
   * matching candidates are listed and tried (`decision.binding`), so it answers or the execution
   * fails with the reason (`CIRCUIT_OPEN`, `FLOW_NOT_FOUND`, ...); true lets other candidates
   * answer after it, reported as a fallback.
   */
  allowFallback?: boolean | undefined;
  trace?: TraceContext | undefined;
  signal?: AbortSignal | undefined;
}

/** Input of {@link Router.execute}: what to route plus what to send. */
export interface RouterExecuteInput extends RouteInput, Omit<ExecutionRequest, "question"> {}

/** Result of {@link Router.execute}. */
export interface RouterExecution extends ExecutionOutcome {
  decision: RoutingDecision;
  classification: IntentClassificationResult;
}

/** Result of {@link Router.explain}. */
export interface RouterExplanation {
  decision: RoutingDecision;
  classification: IntentClassificationResult;
}
