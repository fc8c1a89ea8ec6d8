import { stemmer } from "stemmer";
import { AfwError, type HistoryHit, type HistoryQuery, type SessionTurn } from "@afw/contracts";

/** Distinct words of one turn that are indexed. */
export const MAX_INDEXED_WORDS = 200;
/** Distinct words of a query that are looked up. */
export const MAX_QUERY_WORDS = 16;
/** Most hits of one page. */
export const MAX_HISTORY_PAGE = 100;

const STOP_WORDS = new Set(
  "a an and are as at be but by can do does for from had has have how i if in is it its me my no not of on or our so that the their them then there these this to was we were what when where which who why will with you your".split(" "),
);

/** Lower-cased, stemmed distinct words of `text` (letters and digits; stop words and 1-character words dropped), at most `max`. */
export function stemmedWords(text: string, max: number): string[] {
  const words = new Set<string>();
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 2 || raw.length > 64 || STOP_WORDS.has(raw)) continue;
    words.add(stemmer(raw));
    if (words.size >= max) break;
  }
  return [...words];
}

/** The words a turn is indexed under (question and answer). */
export function turnWords(turn: SessionTurn): string[] {
  return stemmedWords(`${turn.question}\n${turn.answer}`, MAX_INDEXED_WORDS);
}

/** Page size of a query. */
export function pageSize(query: HistoryQuery): number {
  const limit = query.limit ?? 10;
  return Math.min(MAX_HISTORY_PAGE, Math.max(1, Math.floor(Number.isFinite(limit) ? limit : 10)));
}

/** The offset a cursor stands for. @throws AfwError `INVALID_INPUT` for a malformed cursor. */
export function cursorOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^o(\d{1,9})$/.exec(cursor);
  if (!match) throw new AfwError("INVALID_INPUT", "cursor is not one returned by search_history");
  return Number(match[1]);
}

/** The cursor of the page that starts at `offset`. */
export function cursorAt(offset: number): string {
  return `o${offset}`;
}

/** True when a turn of `sessionId` passes the query's filters (not its text). */
export function passesFilters(query: HistoryQuery, sessionId: string, turn: SessionTurn): boolean {
  if (query.sessionId !== undefined && sessionId !== query.sessionId) return false;
  if (query.backendId !== undefined && turn.backendId !== query.backendId) return false;
  if (query.flowId !== undefined && turn.flowId !== query.flowId) return false;
  if (query.tag !== undefined && !(turn.tags ?? []).includes(query.tag)) return false;
  if (query.from !== undefined && turn.askedAt < query.from) return false;
  if (query.to !== undefined && turn.askedAt > query.to) return false;
  return true;
}

/** Ranks hits: most matched words first, then newest, then by session id for a stable order. */
export function compareHits(a: HistoryHit, b: HistoryHit): number {
  return b.matchedWords - a.matchedWords || b.turn.askedAt - a.turn.askedAt || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0);
}
