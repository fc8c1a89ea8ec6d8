import {
  AfwError,
  DEFAULT_SCORING_WEIGHTS,
  INTENTS,
  emitTrace,
  type FlowBackendV1,
  type Intent,
  type PerformanceTarget,
  type RoutingCandidate,
  type RoutingDecision,
  type RoutingVariant,
  type ScoreAdjuster,
  type ScoreAdjustment,
  type ScoringWeights,
  type TraceContext,
  type UniversalFlow,
} from "@afw/contracts";
import { createCircuitBreaker, type CircuitBreaker } from "./circuit-breaker.js";
import { executeStream } from "./execute-stream.js";
import { executeWithFallback, type ExecuteOptions, type ExecutionRequest, type ExecutionStreamChunk } from "./execute.js";
import { createFlowDiscoveryCache, type BackendFlowSource } from "./flow-discovery-cache.js";
import { buildFlowProfile, type FlowProfile } from "./flow-profiles.js";
import { createHealthCache, type HealthCache } from "./health-cache.js";
import { createIntentClassifier, type IntentClassifier, type IntentClassifierOptions } from "./intent-classifier.js";
import { createPerformanceTracker, type PerformanceTracker } from "./performance-tracker.js";
import {
  DEFAULT_MAX_SCORE_ADJUSTMENT,
  adjustBreakdown,
  capabilityScore,
  flowMatchScore,
  definedWeights,
  healthScore,
  round,
  selectTop,
} from "./scoring.js";
import type { RouteInput, RouterExecuteInput, RouterExecution, RouterExplanation, RouterOptions } from "./router-options.js";
import { foldText, splitWords } from "./text-normalization.js";

/** Shortest interval between two forced rediscoveries of one backend (unknown flow id, a backend's 404). */
const FORCED_REFRESH_INTERVAL_MS = 5_000;
/** Candidates listed in a decision (plus the best of every other backend). */
const MAX_CANDIDATES_IN_DECISION = 10;

/** Per-flow scratch record, allocated once per flow list and reused by every decision. */
interface Cell {
  profile: FlowProfile;
  state: BackendState;
  target: PerformanceTarget;
  score: number;
  health: number;
  perf: number;
  flowMatch: number;
  excluded: string | undefined;
  override: boolean;
  tier: number;
  /** The adjuster's change of this decision, if any. */
  adjustment: ScoreAdjustment | undefined;
}

interface BackendState {
  backend: FlowBackendV1;
  profiles: FlowProfile[];
  cells: Cell[];
  /** Capability per intent index. */
  capability: Float64Array;
}

/**
 * The router: classifies the question, scores every (backend, flow) candidate with
 * `flow_match*w1 + health*w2 + performance*w3 + capability*w4`, picks a strategy from the
 * confidence level and the user's overrides, and executes with retry, fallback, circuit breaking
 * and hedging. Health, flow lists and performance are cached, so a warm decision does no I/O.
 */
export class Router {
  readonly classifier: IntentClassifier;
  private readonly ownsClassifier: boolean;
  readonly weights: Readonly<ScoringWeights>;
  readonly health: HealthCache;
  readonly flows: BackendFlowSource;
  readonly performance: PerformanceTracker;
  readonly circuits: CircuitBreaker;
  private readonly options: RouterOptions;
  private readonly states = new Map<string, BackendState>();
  private readonly backends: ReadonlyMap<string, FlowBackendV1>;
  private anyKeywords = false;
  private readonly discoveryRetries = new Map<string, number>();
  /** Forced rediscoveries (an unknown `flowId`, a backend's `FLOW_NOT_FOUND`): one per backend per interval, shared. */
  private readonly forcedRefreshes = new Map<string, { at: number; done: Promise<void> }>();
  /** The performance tracker handed to executions: also rediscovers a backend whose flow vanished. */
  private readonly executionTracker: PerformanceTracker;
  /** The list each backend's profiles were built from. */
  private readonly flowLists = new Map<string, UniversalFlow[]>();
  private warm: Promise<void> | undefined;

  constructor(options: RouterOptions) {
    this.options = options;
    const ids = new Set<string>();
    for (const b of options.backends) {
      if (b.specificationVersion !== "v1") throw new AfwError("CONFIG_INVALID", `backend ${b.id} implements spec ${String(b.specificationVersion)}, not v1`);
      if (ids.has(b.id)) throw new AfwError("CONFIG_INVALID", `duplicate backend id ${b.id}`);
      ids.add(b.id);
    }
    this.backends = new Map(options.backends.map((b) => [b.id, b]));
    const c = options.classifier;
    const given = c && typeof (c as IntentClassifier).classify === "function" ? (c as IntentClassifier) : undefined;
    this.classifier = given ?? createIntentClassifier(c as IntentClassifierOptions | undefined);
    this.ownsClassifier = !given;
    this.weights = Object.freeze({ ...DEFAULT_SCORING_WEIGHTS, ...options.weights });
    const now = options.now ?? Date.now;
    this.health = createHealthCache({ store: options.stores?.health, ttlMs: options.healthTtlMs, probeTimeoutMs: options.healthProbeTimeoutMs, now, trace: options.trace });
    this.flows = options.flowSource ?? createFlowDiscoveryCache({ now, trace: options.trace });
    this.performance = createPerformanceTracker({ store: options.stores?.performance, now });
    const tracker = this.performance;
    this.executionTracker = {
      store: tracker.store,
      summary: (target) => tracker.summary(target),
      load: (target) => tracker.load(target),
      record: (sample) => {
        // The backend says the flow does not exist (e.g. a deleted chatflow): rediscover, which drops it.
        const backend = sample.errorCode === "FLOW_NOT_FOUND" ? this.backends.get(sample.backendId) : undefined;
        if (backend) void this.forceRefresh(backend, options.trace);
        return tracker.record(sample);
      },
    };
    this.circuits = createCircuitBreaker({ ...options.circuitBreaker, store: options.stores?.circuits, now });
  }

  /** Rebuilds a backend's routing profiles when its flow list is another array than the one they were built from. */
  private syncFlows(backendId: string, flows: UniversalFlow[]) {
    if (this.flowLists.get(backendId) === flows) return;
    const backend = this.backends.get(backendId);
    if (!backend) return;
    this.flowLists.set(backendId, flows);
    const profiles = flows.map((f) => buildFlowProfile(f));
    const capability = new Float64Array(INTENTS.length);
    INTENTS.forEach((intent, i) => {
      capability[i] = capabilityScore(intent, backend.kind, backend.capabilities);
    });
    const state: BackendState = { backend, profiles, capability, cells: [] };
    state.cells = profiles.map((profile) => ({
      profile,
      state,
      target: { backendId, flowId: profile.flow.id },
      score: 0,
      health: 0,
      perf: 0,
      flowMatch: 0,
      excluded: undefined,
      override: false,
      tier: 0,
      adjustment: undefined,
    }));
    this.states.set(backendId, state);
    this.statesVersion++;
    this.anyKeywords = [...this.states.values()].some((s) => s.profiles.some((p) => p.keywords.size > 0));
  }

  /** Discovers flows and probes health of every backend (in parallel, each bounded by its timeout). */
  warmUp(trace?: TraceContext): Promise<void> {
    this.warm ??= Promise.all([
      ...this.options.backends.map((b) =>
        this.flows.get(b, trace).then(
          (flows) => this.syncFlows(b.id, flows),
          () => {
            this.discoveryRetries.set(b.id, (this.options.now ?? Date.now)());
          },
        ),
      ),
      ...this.options.backends.map((b) => this.health.get(b, trace).catch(() => undefined)),
      this.circuits.sync(),
    ]).then(() => undefined);
    return this.warm;
  }

  /**
   * Classifies and ranks: returns the full decision (strategy, reason, chosen, ranked candidates with breakdowns).
   * @throws AfwError `FLOW_NOT_FOUND` when `flowId` names no known flow even after that; `NO_BACKENDS_AVAILABLE`
   * when `backend` names no configured backend.
   */
  async route(input: RouteInput): Promise<RoutingDecision> {
    return (await this.decide(input)).decision;
  }

  /** Like {@link Router.route}, with the classification evidence. */
  async explain(question: string, input: Omit<RouteInput, "question"> = {}): Promise<RouterExplanation> {
    return this.decide({ ...input, question });
  }

  /**
   * Rediscovers a backend's flows now, single-flight and at most once per {@link FORCED_REFRESH_INTERVAL_MS}: a caller inside the
   * interval shares the last refresh.
   */
  private forceRefresh(backend: FlowBackendV1, trace?: TraceContext): Promise<void> {
    const now = (this.options.now ?? Date.now)();
    const last = this.forcedRefreshes.get(backend.id);
    if (last && now - last.at < FORCED_REFRESH_INTERVAL_MS) return last.done;
    const done = this.flows.refresh(backend, trace).then(
      (flows) => this.syncFlows(backend.id, flows),
      () => undefined,
    );
    this.forcedRefreshes.set(backend.id, { at: now, done });
    return done;
  }

  private async decide(input: RouteInput, rediscovered = false): Promise<RouterExplanation> {
    const started = performance.now();
    const trace = input.trace;
    const classifying = this.classifier.classify(input.question, { intent: input.intent, signal: input.signal, trace });
    if (!this.warm) void this.warmUp(trace);
    const [classification] = await Promise.all([classifying, this.warm]);
    this.keepFlowsFresh(trace);
    const intent = classification.intent;
    const intentIndex = INTENTS.indexOf(intent);
    const questionWords: ReadonlySet<string> = this.anyKeywords ? new Set(splitWords(foldText(input.question))) : new Set<string>();

    // Overrides
    const backendFilter = input.backend && input.backend !== "auto" ? input.backend : undefined;
    if (backendFilter && ![...this.backends.values()].some((b) => b.id === backendFilter || b.kind === backendFilter)) {
      throw new AfwError("NO_BACKENDS_AVAILABLE", `no configured backend matches '${backendFilter}'`);
    }
    const matchesBackend = (b: FlowBackendV1) => !backendFilter || b.id === backendFilter || b.kind === backendFilter;
    const matchesFlow = (p: FlowProfile) => !input.flowId || p.flow.id === input.flowId || p.flow.backendFlowId === input.flowId || p.flow.name === input.flowId;
    const overriding = backendFilter !== undefined || input.flowId !== undefined;
    const variant = overriding ? undefined : this.selectVariant(intent, trace);
    const w: Readonly<ScoringWeights> = variant?.weights ? { ...this.weights, ...definedWeights(variant.weights) } : this.weights;
    const adjuster = this.options.scoreAdjuster;
    const maxAdjustment = Math.min(1, Math.max(0, this.options.maxScoreAdjustment ?? DEFAULT_MAX_SCORE_ADJUSTMENT));

    // Score every candidate (typed arrays; objects only for the ones listed).
    const all: Cell[] = this.cellList();
    let usable = 0;
    let nonDown = 0;
    const usableBackends = new Set<string>();
    for (const state of this.states.values()) {
      const backend = state.backend;
      const snapshot = this.health.peek(backend);
      const h = healthScore(snapshot);
      const backendOpen = this.circuits.isOpen(backend.id);
      const down = snapshot?.status === "down";
      const cap = state.capability[intentIndex]!;
      const backendOverride = matchesBackend(backend);
      for (const cell of state.cells) {
        const profile = cell.profile;
        cell.override = overriding && backendOverride && matchesFlow(profile);
        cell.flowMatch = flowMatchScore(profile, intent, questionWords);
        cell.perf = this.performance.summary(cell.target).score;
        cell.health = h;
        cell.adjustment = undefined;
        if (adjuster) {
          let requested: ReturnType<ScoreAdjuster>;
          try {
            requested = adjuster(intent, { backendId: backend.id, flowId: profile.flow.id, breakdown: { flow_match: cell.flowMatch, health: h, performance: cell.perf, capability: cap } });
          } catch {
            requested = undefined;
          }
          if (requested) {
            const adjusted = adjustBreakdown({ flow_match: cell.flowMatch, performance: cell.perf }, requested, maxAdjustment);
            cell.flowMatch = adjusted.flow_match;
            cell.perf = adjusted.performance;
            cell.adjustment = adjusted.adjustment;
          }
        }
        cell.score = cell.flowMatch * w.flow_match + h * w.health + cell.perf * w.performance + cap * w.capability;
        cell.excluded = backendOpen || this.circuits.isOpen(profile.flow.id) ? "circuit open" : down ? "backend down" : undefined;
        if (!cell.excluded) {
          usable++;
          usableBackends.add(backend.id);
        }
        if (!down) nonDown++;
      }
    }
    if (usable === 0 && nonDown === 0) {
      // Every backend looks down: the snapshots may be stale, so try them rather than nothing.
      for (const c of all) {
        if (c.excluded === "backend down") {
          c.excluded = undefined;
          usableBackends.add(c.state.backend.id);
        }
      }
    }
    // A health snapshot may be stale: an explicit choice is tried even when it looks down.
    for (const c of all) if (c.override && c.excluded === "backend down") c.excluded = undefined;
    if (input.flowId && !all.some((c) => c.override)) {
      if (!rediscovered) {
        // A flow created after the last discovery: rediscover (rate-limited, shared) before failing.
        await Promise.all([...this.backends.values()].filter(matchesBackend).map((b) => this.forceRefresh(b, trace)));
        return this.decide(input, true);
      }
      throw new AfwError("FLOW_NOT_FOUND", `no flow '${input.flowId}'${backendFilter ? ` on '${backendFilter}'` : ""}`);
    }

    const level = classification.level;
    const hedging = this.options.hedging?.enabled !== false;
    const distinctUsableBackends = usableBackends.size;
    let strategy: RoutingDecision["strategy"];
    let reason: string;
    if (overriding) {
      strategy = "override";
      reason = `user override (${[backendFilter && `backend=${backendFilter}`, input.flowId && `flow=${input.flowId}`].filter(Boolean).join(", ")})`;
    } else if (level === "high" || level === "medium") {
      strategy = "direct";
      reason = `${level} confidence ${classification.confidence.toFixed(2)} for ${intent} (${classification.method})`;
    } else if (level === "low" && hedging && distinctUsableBackends >= 2) {
      strategy = "hedge";
      reason = `low confidence ${classification.confidence.toFixed(2)} for ${intent}: hedging the top two backends`;
    } else if (level === "none" && this.options.defaultFlowId && all.some((c) => !c.excluded && this.isDefaultFlow(c.profile))) {
      strategy = "default-flow";
      reason = `no confident intent (${classification.confidence.toFixed(2)}): default flow ${this.options.defaultFlowId}`;
    } else if (level === "low" || level === "none") {
      strategy = "general-purpose";
      reason = `${level} confidence ${classification.confidence.toFixed(2)} for ${intent}: preferring general-purpose flows`;
    } else {
      strategy = "direct";
      reason = `confidence ${classification.confidence.toFixed(2)} for ${intent}`;
    }
    if (variant) {
      const wanted = variant.strategy;
      const possible =
        wanted === "direct" ||
        wanted === "general-purpose" ||
        (wanted === "hedge" && distinctUsableBackends >= 2) ||
        (wanted === "default-flow" && this.options.defaultFlowId !== undefined && all.some((c) => !c.excluded && this.isDefaultFlow(c.profile)));
      if (wanted && possible && wanted !== strategy) strategy = wanted;
      const changes = [variant.weights ? "weights" : "", wanted ? `strategy ${wanted}${possible ? "" : " (not possible here)"}` : ""].filter(Boolean).join(", ");
      reason = `${reason} [A/B ${variant.experimentId}: ${variant.arm}${variant.label ? ` '${variant.label}'` : ""}${changes ? `, ${changes}` : ""}]`;
    }

    // Ordering: usable first; overrides / default flow / general-purpose first per strategy; then score, health, backend
    // id, flow id.
    for (const c of all) {
      c.tier =
        (c.excluded ? 4 : 0) +
        (strategy === "override" ? (c.override ? 0 : 2) : 0) +
        (strategy === "default-flow" ? (this.isDefaultFlow(c.profile) ? 0 : 1) : 0) +
        (strategy === "general-purpose" ? (c.profile.generalPurpose ? 0 : 1) : 0);
    }
    const compare = (a: Cell, b: Cell) =>
      a.tier - b.tier ||
      b.score - a.score ||
      b.health - a.health ||
      (a.state.backend.id < b.state.backend.id ? -1 : a.state.backend.id > b.state.backend.id ? 1 : 0) ||
      (a.profile.flow.id < b.profile.flow.id ? -1 : a.profile.flow.id > b.profile.flow.id ? 1 : 0);
    // An explicit choice without `allowFallback` is binding: only its candidates are listed.
    const binding = overriding && input.allowFallback !== true;
    const listed = selectTop(binding ? all.filter((c) => c.override) : all, MAX_CANDIDATES_IN_DECISION, compare);
    // Keep the best candidate of every backend so fallback can always cross backends.
    const listedBackends = new Set(listed.map((c) => c.state.backend.id));
    if (!binding && listedBackends.size < this.states.size) {
      const bestPerBackend = new Map<string, Cell>();
      for (const c of all) {
        const id = c.state.backend.id;
        if (listedBackends.has(id)) continue;
        const current = bestPerBackend.get(id);
        if (!current || compare(c, current) < 0) bestPerBackend.set(id, c);
      }
      listed.push(...[...bestPerBackend.values()].sort(compare));
    }
    const candidates: RoutingCandidate[] = listed.map((c, i) => {
      const flow = c.profile.flow;
      const capability = c.state.capability[intentIndex]!;
      return {
        backendId: c.state.backend.id,
        backendKind: c.state.backend.kind,
        flowId: flow.id,
        backendFlowId: flow.backendFlowId,
        flowName: flow.name,
        score: round(c.score),
        breakdown: { flow_match: round(c.flowMatch), health: c.health, performance: round(c.perf), capability },
        rank: i + 1,
        ...(c.excluded ? { excluded: c.excluded } : {}),
        ...(c.adjustment ? { adjustment: c.adjustment } : {}),
      };
    });
    // The first choice: the best usable candidate, or with an override the best matching one even when its circuit is
    // open (the executor then reports it as skipped, and any answer as a fallback).
    const first = strategy === "override" ? (candidates.find((c) => !c.excluded && listed[c.rank - 1]!.override) ?? candidates.find((c) => listed[c.rank - 1]!.override)) : candidates.find((c) => !c.excluded);
    if (!first) reason = candidates.length ? "every candidate is excluded (circuits open)" : "no backend has any flow";
    else if (first.excluded) reason = `${reason}: ${first.flowName} on ${first.backendId} is excluded (${first.excluded})${binding ? "" : "; falling back"}`;
    const decision: RoutingDecision = {
      intent,
      confidence: classification.confidence,
      confidenceLevel: level,
      method: classification.method,
      ...(classification.cascade ? { cascade: classification.cascade } : {}),
      alternatives: classification.alternatives,
      weights: { ...w },
      candidates,
      chosen: first ? { backendId: first.backendId, flowId: first.flowId, backendFlowId: first.backendFlowId } : null,
      strategy,
      ...(binding ? { binding: true } : {}),
      reason: first && strategy !== "override" ? `${reason}; chose ${first.flowName} on ${first.backendId} (score ${first.score.toFixed(3)})` : reason,
      decidedInMs: performance.now() - started,
      ...(variant ? { experiment: { experimentId: variant.experimentId, arm: variant.arm, ...(variant.label === undefined ? {} : { label: variant.label }) } } : {}),
    };
    if (level === "low" || level === "none") {
      emitTrace(trace, "router-low-confidence", {
        intent,
        confidence: classification.confidence,
        threshold: level === "low" ? this.classifier.thresholds.medium : this.classifier.thresholds.low,
        strategy: strategy === "hedge" || strategy === "default-flow" ? strategy : "general-purpose",
      });
    }
    emitTrace(trace, "routing-decided", { decision });
    return { decision, classification };
  }

  /** The A/B arm of a request, or undefined (no selector, no experiment, or a throwing selector). */
  private selectVariant(intent: Intent, trace: TraceContext | undefined): RoutingVariant | undefined {
    const selector = this.options.variantSelector;
    if (!selector) return undefined;
    try {
      return selector({ intent, ...(trace ? { traceId: trace.traceId, requestId: trace.requestId, sessionId: trace.sessionId } : {}) }) ?? undefined;
    } catch {
      return undefined;
    }
  }

  /** Background upkeep of flow lists: refresh stale ones, retry failed first discoveries (at most every 5 s). */
  private keepFlowsFresh(trace: TraceContext | undefined) {
    const now = (this.options.now ?? Date.now)();
    for (const backend of this.options.backends) {
      const flows = this.flows.peek(backend);
      if (flows !== undefined) {
        this.syncFlows(backend.id, flows);
        continue;
      }
      const last = this.discoveryRetries.get(backend.id) ?? -Infinity;
      if (now - last < 5_000) continue;
      this.discoveryRetries.set(backend.id, now);
      this.flows.get(backend, trace).then((list) => this.syncFlows(backend.id, list), () => undefined);
    }
  }

  private cellsCache: { version: number; cells: Cell[] } | undefined;
  private statesVersion = 0;

  /** Every scratch cell, in backend order (rebuilt only when a flow list changes). */
  private cellList(): Cell[] {
    if (this.cellsCache?.version !== this.statesVersion) {
      this.cellsCache = { version: this.statesVersion, cells: [...this.states.values()].flatMap((s) => s.cells) };
    }
    return this.cellsCache.cells;
  }

  private isDefaultFlow(profile: FlowProfile): boolean {
    const id = this.options.defaultFlowId;
    return id !== undefined && (profile.flow.id === id || profile.flow.backendFlowId === id || profile.flow.name === id);
  }

  private executeOptions(input: RouterExecuteInput, decision: RoutingDecision): ExecuteOptions {
    return {
      ...this.options.execution,
      backends: this.backends,
      hedge: decision.strategy === "hedge",
      circuitBreaker: this.circuits,
      performance: this.executionTracker,
      health: this.health,
      trace: input.trace,
      signal: input.signal,
      intent: decision.intent,
    };
  }

  private static request(input: RouterExecuteInput): ExecutionRequest {
    const { question, sessionId, history, parameters, uploads, timeoutMs, requestId } = input;
    return {
      question,
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(history === undefined ? {} : { history }),
      ...(parameters === undefined ? {} : { parameters }),
      ...(uploads === undefined ? {} : { uploads }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(requestId === undefined ? {} : { requestId }),
    };
  }

  /**
   * Routes and executes with fallback (see {@link executeWithFallback}).
   * @throws AfwError `NO_BACKENDS_AVAILABLE`, `ALL_BACKENDS_FAILED` (with `details.attempts`),
   * `FLOW_NOT_FOUND` (unknown `flowId`), `ABORTED`.
   */
  async execute(input: RouterExecuteInput): Promise<RouterExecution> {
    const { decision, classification } = await this.decide(input);
    if (!decision.chosen) throw new AfwError("NO_BACKENDS_AVAILABLE", decision.reason, { details: { candidates: decision.candidates.length } });
    const outcome = await executeWithFallback(decision, Router.request(input), this.executeOptions(input, decision));
    return { ...outcome, decision, classification };
  }

  /**
   * Routes and streams (see {@link executeStream}): retry and fallback before the first token; a stream that breaks after it
   * restarts (a `restart` chunk, then the new answer from its start).
   * @throws AfwError like {@link Router.execute}; once the restarts are used up, the attempt's error.
   */
  async *executeStream(input: RouterExecuteInput): AsyncGenerator<ExecutionStreamChunk, RouterExecution | undefined> {
    const { decision, classification } = await this.decide(input);
    if (!decision.chosen) throw new AfwError("NO_BACKENDS_AVAILABLE", decision.reason, { details: { candidates: decision.candidates.length } });
    const outcome = yield* executeStream(decision, Router.request(input), { ...this.executeOptions(input, decision), hedge: false });
    return outcome ? { ...outcome, decision, classification } : undefined;
  }

  /** Closes every backend that has `close()`, and the classifier's embedding worker when the router created the classifier. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.options.backends.map((b) => b.close?.()), ...(this.ownsClassifier ? [this.classifier.close?.()] : [])]);
  }
}

/**
 * Creates a {@link Router}.
 * @example
 * ```ts
 * const router = createRouter({ backends: [flowise, langflow] });
 * const decision = await router.route({ question: "What does our travel policy say about trains?" });
 * const { result } = await router.execute({ question: "hi!" });
 * ```
 *
 */
export function createRouter(options: RouterOptions): Router {
  return new Router(options);
}
