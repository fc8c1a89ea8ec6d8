import type { TrainingExample, TrainingQuestion } from "@afw/analytics";
import { AfwError, parseOrThrow } from "@afw/contracts";
import { z } from "zod";
import type { GatewayServer } from "./gateway-server.js";

const time = z.union([z.iso.datetime({ offset: true }), z.number().int().nonnegative()]);

/** Zod schema of the options of {@link exportTraining}. */
export const TrainingExportOptionsSchema = z
  .object({
    tenant: z.string().min(1).max(200).optional().describe("Export only this tenant's questions (the default: those asked without a tenant)."),
    from: time.optional().describe("First included time of a question (ISO 8601 or epoch ms)."),
    to: time.optional().describe("Last included time of a question (ISO 8601 or epoch ms)."),
    limit: z.number().int().min(1).max(100_000).default(10_000).describe("Most examples, newest first."),
  }).strict();

/** Options of {@link exportTraining}. */
export type TrainingExportOptions = z.input<typeof TrainingExportOptionsSchema>;

const PAGE = 500;
const epochMs = (value: string | number | undefined) => (value === undefined ? undefined : typeof value === "number" ? value : Date.parse(value));

/**
 * The training export: every question of a tenant's session history in the time range (newest first, at most `limit`, redacted), joined
 * with its routing decision, outcome, elicited answer and rating, label source `elicitation` / `feedback` / `router`.
 * @example
 * ```ts
 * const lines = (await exportTraining(gateway, { tenant: "acme", from: "2026-11-01T00:00:00Z" })).map((e) => JSON.stringify(e)).join("\n");
 * ```
 * @throws AfwError `INVALID_INPUT` for bad options; `CONFIG_INVALID` when the session store keeps no searchable history.
 */
export async function exportTraining(gateway: Pick<GatewayServer, "stores" | "analytics" | "redactor">, options: TrainingExportOptions = {}): Promise<TrainingExample[]> {
  const parsed = parseOrThrow(TrainingExportOptionsSchema, options, "INVALID_INPUT", "training export options");
  const from = epochMs(parsed.from);
  const to = epochMs(parsed.to);
  if (from !== undefined && to !== undefined && from > to) throw new AfwError("INVALID_INPUT", "training export options: `from` is after `to`");
  const sessions = gateway.stores.sessions;
  if (!sessions.search) throw new AfwError("CONFIG_INVALID", "the session store keeps no searchable history to export");
  const questions: TrainingQuestion[] = [];
  let cursor: string | undefined;
  do {
    const page = await sessions.search(
      { limit: Math.min(PAGE, parsed.limit - questions.length), ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }), ...(cursor === undefined ? {} : { cursor }) },
      parsed.tenant === undefined ? {} : { tenant: parsed.tenant },
    );
    for (const { sessionId, turn } of page.hits) {
      if (turn.traceId === undefined) continue;
      questions.push({
        traceId: turn.traceId,
        question: gateway.redactor.redact(turn.question),
        sessionId,
        askedAt: turn.askedAt,
        ...(turn.intent === undefined ? {} : { intent: turn.intent }),
        ...(turn.flowId === undefined ? {} : { flowId: turn.flowId }),
        ...(turn.backendId === undefined ? {} : { backendId: turn.backendId }),
      });
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined && questions.length < parsed.limit);
  return gateway.analytics.trainingExamples(questions);
}
