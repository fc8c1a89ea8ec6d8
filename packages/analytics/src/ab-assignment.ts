import { z } from "zod";
import {
  AfwError,
  IntentSchema,
  RoutingStrategySchema,
  formatZodError,
  type Intent,
  type RoutingStrategy,
  type RoutingVariant,
  type RoutingVariantSelector,
  type ScoringWeights,
} from "@afw/contracts";
import type { AbAssignedEvent, AuditEvent } from "./audit-event.js";

const weight = z.number().min(0).optional();
const PartialWeightsSchema = z.object({ flow_match: weight, health: weight, performance: weight, capability: weight }).strict();

/** Zod schema of {@link AbExperiment}. */
export const AbExperimentSchema = z
  .object({
    id: z.string().min(1).max(100),
    intent: IntentSchema.optional().describe("Only requests of this intent take part; all when absent."),
    share: z.number().min(0).max(1).describe("Share of the taking-part traffic that gets the variant."),
    unit: z
      .enum(["session", "request"])
      .default("session")
      .describe("`session`: one arm per session (requests without a session fall back to the request); `request`: per request (its trace id, else its request id)."),
    enabled: z.boolean().default(true),
    variant: z
      .object({
        weights: PartialWeightsSchema.optional().describe("Scoring weights of the variant (merged over the configured ones)."),
        strategy: RoutingStrategySchema.exclude(["override"])
          .optional()
          .describe("Routing strategy of the variant: `direct`, `hedge`, `general-purpose` or `default-flow`."),
        label: z.string().optional(),
      })
      .strict(),
  })
  .strict();

/** One A/B experiment: a share of an intent's traffic is routed with other weights or another strategy. */
export type AbExperiment = z.infer<typeof AbExperimentSchema>;

/** Input form of {@link AbExperiment} (defaults not yet applied). */
export type AbExperimentInput = z.input<typeof AbExperimentSchema>;

/** Options of {@link createAbAssignment}. */
export interface AbAssignmentOptions {
  /** The experiments; the first enabled one matching a request's intent applies. */
  experiments: readonly AbExperimentInput[];
  /** Seed of the assignment hash; change it to reshuffle every experiment. @default "afw" */
  seed?: string | number | undefined;
  /** Receives an `ab-assigned` audit event per assignment with a trace id (e.g. the audit log). */
  recorder?: { emit(event: AuditEvent): void } | undefined;
  /** Clock of the recorded events. @default Date.now */
  now?: (() => number) | undefined;
}

/** The request being assigned. */
export interface AbRequest {
  /** Id of the request (the unit of `request` experiments and the fallback of `session` ones). */
  requestId: string;
  /** Trace id; the assignment is recorded only with one. */
  traceId?: string | undefined;
  sessionId?: string | undefined;
  /** The request's intent; experiments with an intent apply only to it. */
  intent?: Intent | undefined;
}

/** An assignment to an arm. */
export interface AbDecision {
  experimentId: string;
  arm: "control" | "variant";
  /** The variant's settings, in the `variant` arm only: apply them to the routing. */
  variant?: { weights?: Partial<ScoringWeights> | undefined; strategy?: Exclude<RoutingStrategy, "override"> | undefined; label?: string | undefined } | undefined;
  /** The hashed position 0..1 of the unit; `bucket < share` means variant. */
  bucket: number;
  /** The id the assignment is sticky to. */
  unitId: string;
}

/** Deterministic A/B assignment of requests to experiment arms. */
export interface AbAssignment {
  /** The validated experiments. */
  readonly experiments: readonly AbExperiment[];
  /** The arm of `request` in the first enabled experiment matching its intent (sticky per unit id), recorded when it has a trace id. */
  assign(request: AbRequest): AbDecision | undefined;
  /** The hashed position 0..1 of `unitId` in `experimentId`. */
  bucketOf(experimentId: string, unitId: string): number;
  /** The router's variant-selector hook: assigns (and records) the request and returns its arm with the variant's weights and strategy. */
  readonly variantSelector: RoutingVariantSelector;
}

/** 32-bit FNV-1a followed by the murmur3 finaliser (good avalanche on short, similar ids). */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Creates an {@link AbAssignment}: a request's unit id (session or request id) is hashed with the
 * seed and the experiment id to a bucket in 0..1, and `bucket < share` puts it in the variant arm,
 * so the split holds the share, is stable per unit and independent between experiments.
 *
 * @example
 * ```ts
 * const ab = createAbAssignment({ experiments: [{ id: "hedge-tech", share: 0.2, variant: { strategy: "hedge" } }], recorder: auditLog });
 * ```
 * @throws AfwError `CONFIG_INVALID` for an invalid experiment or duplicate ids.
 */
export function createAbAssignment(options: AbAssignmentOptions): AbAssignment {
  const parsed = z.array(AbExperimentSchema).safeParse(options.experiments);
  if (!parsed.success) throw new AfwError("CONFIG_INVALID", `invalid A/B experiments: ${formatZodError(parsed.error)}`);
  const experiments = parsed.data;
  const ids = new Set<string>();
  for (const experiment of experiments) {
    if (ids.has(experiment.id)) throw new AfwError("CONFIG_INVALID", `duplicate A/B experiment id '${experiment.id}'`);
    ids.add(experiment.id);
  }
  const seed = String(options.seed ?? "afw");
  const now = options.now ?? Date.now;
  const bucketOf = (experimentId: string, unitId: string) => hash32(`${seed}\u0000${experimentId}\u0000${unitId}`) / 4_294_967_296;

  const assign = (request: AbRequest): AbDecision | undefined => {
    const experiment = experiments.find((e) => e.enabled && (e.intent === undefined || e.intent === request.intent));
    if (!experiment) return undefined;
    const bySession = experiment.unit === "session" && request.sessionId !== undefined;
    const unitId = bySession ? `s:${request.sessionId}` : `r:${request.traceId ?? request.requestId}`;
    const bucket = bucketOf(experiment.id, unitId);
    const arm = bucket < experiment.share ? "variant" : "control";
    const decision: AbDecision = {
      experimentId: experiment.id,
      arm,
      bucket,
      unitId,
      ...(arm === "variant" ? { variant: { ...experiment.variant } } : {}),
    };
    if (options.recorder && request.traceId !== undefined) {
      const { requestId, traceId, sessionId, intent } = request;
      const timestamp = new Date(now()).toISOString();
      const unit = bySession ? "session" : "request";
      const event: AbAssignedEvent = { type: "ab-assigned", traceId, requestId, sessionId, timestamp, experimentId: experiment.id, arm, intent, unit };
      try {
        options.recorder.emit(event);
      } catch {
        // recording must never break routing
      }
    }
    return decision;
  };

  const variantSelector: RoutingVariantSelector = (request) => {
    const requestId = request.requestId ?? request.traceId ?? request.sessionId;
    if (requestId === undefined) return undefined;
    const decision = assign({ requestId, traceId: request.traceId, sessionId: request.sessionId, intent: request.intent });
    if (!decision) return undefined;
    const variant: RoutingVariant = { experimentId: decision.experimentId, arm: decision.arm };
    if (decision.variant?.label !== undefined) variant.label = decision.variant.label;
    if (decision.variant?.weights) variant.weights = decision.variant.weights;
    if (decision.variant?.strategy) variant.strategy = decision.variant.strategy;
    return variant;
  };

  return { experiments, bucketOf, assign, variantSelector };
}
