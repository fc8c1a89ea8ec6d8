import { z } from "zod";
import { AfwError, IntentSchema } from "@afw/contracts";
import { toEpochMs, type TimeInput } from "./time-range.js";

/** Zod schema of {@link FeedbackScale}: `unit` (-1..1, 1 best) or `stars` (1..5, 5 best). */
export const FeedbackScaleSchema = z.enum(["unit", "stars"]);

/** The scale a rating was given on; see {@link FeedbackScaleSchema}. */
export type FeedbackScale = z.infer<typeof FeedbackScaleSchema>;

/** Zod schema of {@link FeedbackRecord}. */
export const FeedbackRecordSchema = z.object({
  id: z.string().min(1).describe("`<sessionId>#<traceId>` once linked to a trace, else `<sessionId>#turn:<n>`; a later rating of the same turn replaces it."),
  sessionId: z.string().min(1),
  turn: z.number().int().min(1).optional().describe("1-based turn of the session that was rated."),
  traceId: z.string().optional().describe("Trace of the rated query, when known."),
  rating: z.number().describe("The rating as given."),
  scale: FeedbackScaleSchema,
  score: z.number().min(-1).max(1).describe("The rating normalised to -1 (worst) .. 1 (best)."),
  comment: z.string().optional(),
  flowId: z.string().optional().describe("Gateway-wide id of the flow that answered the rated query."),
  backendId: z.string().optional(),
  intent: IntentSchema.optional(),
  createdAt: z.number().int().nonnegative().describe("Epoch milliseconds."),
  linked: z.boolean().describe("True when the rated query was found in the audit log."),
});

/** One explicit rating of a query's answer, linked (when found) to the flow that answered it. */
export type FeedbackRecord = z.infer<typeof FeedbackRecordSchema>;

/**
 * Normalises a rating to -1..1: on `scale` when given, else a rating in -1..1 is `unit` and one
 * above 1 is `stars` (so `normalizeRating(4)` is 0.5 and one star needs `scale: "stars"`).
 *
 * @throws AfwError `INVALID_INPUT` when the rating is not a finite number on the scale.
 */
export function normalizeRating(rating: number, scale?: FeedbackScale): { score: number; scale: FeedbackScale } {
  if (!Number.isFinite(rating)) throw new AfwError("INVALID_INPUT", "rating must be a finite number");
  const chosen: FeedbackScale = scale ?? (rating >= -1 && rating <= 1 ? "unit" : "stars");
  if (chosen === "unit") {
    if (rating < -1 || rating > 1) throw new AfwError("INVALID_INPUT", "a unit rating must be between -1 and 1");
    return { score: rating, scale: "unit" };
  }
  if (rating < 1 || rating > 5) throw new AfwError("INVALID_INPUT", "a star rating must be between 1 and 5");
  return { score: (rating - 3) / 2, scale: "stars" };
}

/** What {@link FeedbackStore.list} selects: records created in [from, to]. */
export interface FeedbackQuery {
  /** First included `createdAt`. */
  from?: TimeInput | undefined;
  /** Last included `createdAt`. */
  to?: TimeInput | undefined;
}

/** Stores feedback records, one per rated turn; on store failure `put` resolves false and `list` rejects with `CACHE_UNAVAILABLE`. */
export interface FeedbackStore {
  /** Stores (or replaces) a record; resolves true once stored. */
  put(record: FeedbackRecord): Promise<boolean>;
  /** Records matching `query`, oldest first. */
  list(query?: FeedbackQuery): Promise<FeedbackRecord[]>;
  /** Releases resources. Idempotent. */
  close(): Promise<void>;
}

/** The bounds of a feedback query in epoch ms. @internal */
export function feedbackBounds(query: FeedbackQuery): { from: number; to: number } {
  const from = query.from === undefined ? 0 : toEpochMs(query.from, "from");
  const to = query.to === undefined ? Number.MAX_SAFE_INTEGER : toEpochMs(query.to, "to");
  return { from, to };
}

/** A {@link FeedbackStore} in process memory, keeping `maxRecords` (default 50,000; the oldest are evicted). */
export function createMemoryFeedbackStore(options: { maxRecords?: number } = {}): FeedbackStore {
  const maxRecords = Math.max(1, options.maxRecords ?? 50_000);
  const records = new Map<string, FeedbackRecord>();
  return {
    async put(record) {
      records.delete(record.id);
      records.set(record.id, { ...record });
      if (records.size > maxRecords) records.delete(records.keys().next().value!);
      return true;
    },
    async list(query = {}) {
      const { from, to } = feedbackBounds(query);
      const out = [...records.values()].filter((record) => record.createdAt >= from && record.createdAt <= to);
      return out.sort((a, b) => a.createdAt - b.createdAt).map((record) => ({ ...record }));
    },
    async close() {},
  };
}
