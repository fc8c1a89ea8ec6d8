import type { SessionRecord, SessionTurn, TraceEvent } from "@afw/contracts";
import type { PatternAnalysis } from "@afw/analytics";
import type { QuerySummary } from "./dashboard-source.js";

/** How user text is shown: hidden (`redact`), or cut to {@link QUESTION_PREVIEW_LENGTH} / {@link ANSWER_PREVIEW_LENGTH}. */
export interface PresentationOptions {
  redact: boolean;
}

/** Longest question shown; longer ones are cut. */
const QUESTION_PREVIEW_LENGTH = 200;
/** Longest session answer shown; longer ones are cut. */
const ANSWER_PREVIEW_LENGTH = 400;

/** Text that replaces hidden user text in redacted mode. */
export const REDACTED_TEXT = "[redacted]";

/** `text` cut to at most `maxLength` characters (the last one `…`) without splitting a surrogate pair, and whether it was cut. */
export function truncateText(text: string, maxLength: number): { text: string; truncated: boolean } {
  if (text.length <= maxLength) return { text, truncated: false };
  let end = Math.max(0, maxLength - 1);
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end--;
  return { text: `${text.slice(0, end)}…`, truncated: true };
}

/** The feed row of a query as sent to the page: question truncated, or hidden when redacting. */
export function presentQuery(summary: QuerySummary, options: PresentationOptions): QuerySummary {
  const out: QuerySummary = { ...summary };
  if (summary.question === undefined) return out;
  out.questionLength = summary.questionLength ?? summary.question.length;
  if (options.redact) {
    delete out.question;
    out.questionRedacted = true;
    return out;
  }
  const { text, truncated } = truncateText(summary.question, QUESTION_PREVIEW_LENGTH);
  out.question = text;
  if (truncated) out.questionTruncated = true;
  return out;
}

/** A session turn as sent to the page: question and answer truncated, or hidden when redacting. */
export function presentTurn(turn: SessionTurn, options: PresentationOptions): SessionTurn {
  if (options.redact) return { ...turn, question: REDACTED_TEXT, answer: REDACTED_TEXT };
  return {
    ...turn,
    question: truncateText(turn.question, QUESTION_PREVIEW_LENGTH).text,
    answer: truncateText(turn.answer, ANSWER_PREVIEW_LENGTH).text,
  };
}

/** A session as sent to the page: turns' questions and answers truncated, or hidden when redacting. */
export function presentSession(record: SessionRecord, options: PresentationOptions): SessionRecord {
  return { ...record, turnsList: record.turnsList.map((turn) => presentTurn(turn, options)) };
}

/** A trace event as sent to the page: when redacting, the searched text of tool-search events is replaced by {@link REDACTED_TEXT}. */
export function presentTraceEvent(event: TraceEvent, options: PresentationOptions): TraceEvent {
  if (!options.redact) return event;
  switch (event.type) {
    case "tool-search-performed":
    case "tool-search-low-confidence":
      return { ...event, query: REDACTED_TEXT };
    case "tool-list-requested":
      return event.context === undefined ? event : { ...event, context: REDACTED_TEXT };
    default:
      return event;
  }
}

/** A pattern analysis as sent to the page: its questions truncated, or redacted (keywords stay: they are what the proposals are about). */
export function presentPatternAnalysis(report: PatternAnalysis, options: PresentationOptions): PatternAnalysis {
  const question = (text: string): string => (options.redact ? REDACTED_TEXT : truncateText(text, QUESTION_PREVIEW_LENGTH).text);
  return {
    ...report,
    clusters: report.clusters.map((cluster) => {
      const out = { ...cluster, representative: question(cluster.representative) } as typeof cluster & { examples?: unknown };
      if (Array.isArray(out.examples)) out.examples = (out.examples as unknown[]).map((example) => (typeof example === "string" ? question(example) : REDACTED_TEXT));
      return out;
    }),
    lowConfidence: report.lowConfidence.map((entry) => ({ ...entry, question: entry.question === null ? null : question(entry.question) })),
    proposals: report.proposals.map((proposal) => (proposal.examples ? { ...proposal, examples: proposal.examples.map(question) } : proposal)),
  };
}
