/**
 * Id dependencies between tools: a tool that requires the id of something (`movie_id`, `channel_id`, or `id` on
 * `get_album`) cannot be called from a task that names the thing ("the movie Titanic") rather than giving its id; the
 * tool of the same server that finds such things by name or lists them (`search_movie`, `list_channels`) is needed
 * first. Read from the tools' names, parameters and descriptions only: nothing keyed to particular servers.
 */
import { ACTION_CLASSES } from "./ranking-signals.js";
import { splitIdentifier, STOP_WORDS, type TextAnalyzer } from "./text-analysis.js";
import { toolParameters, type ToolDocument } from "./tool-document.js";

/** Words of a tool name that find or list things (general English, `ACTION_CLASSES`' search and list verbs). */
const FINDER_WORDS: ReadonlySet<string> = new Set([...ACTION_CLASSES["search"]!, ...ACTION_CLASSES["list"]!].filter((w) => w !== "all" && w !== "show"));
/** Words of a tool name that are no entity: operation verbs of any class and HTTP methods. */
const OPERATION_WORDS: ReadonlySet<string> = new Set([...Object.values(ACTION_CLASSES).flat(), "put", "post", "patch", "head"]);

/** What a tool needs and offers in terms of entity ids (stemmed entity words). */
export interface IdProfile {
  /** Entities whose id a required parameter takes (`movie` for `movie_id`). */
  needs: string[];
  /** Entities a finder tool (a search or list verb in its name, no required id) finds: words of its name and first sentence. */
  finds: ReadonlySet<string>;
}

/** The {@link IdProfile} of a tool document. */
export function idProfile(document: ToolDocument, analyzer: TextAnalyzer): IdProfile {
  const nameWords = splitIdentifier(document.tool.name).map((w) => w.toLowerCase());
  const needs: string[] = [];
  for (const parameter of toolParameters(document.tool)) {
    if (!parameter.required) continue;
    const parts = splitIdentifier(parameter.name).map((w) => w.toLowerCase());
    if (parts.length === 0 || !/^ids?$/.test(parts.at(-1)!)) continue;
    // `movie_id` → movie; a bare `id` is the id of the first entity the tool's name mentions (`get_album` → album)
    const entity = parts.length > 1 ? parts.slice(0, -1) : nameWords.filter((w) => !OPERATION_WORDS.has(w) && !STOP_WORDS.has(w) && /^[a-z]{3,}$/.test(w)).slice(0, 1);
    const stems = entity.flatMap((w) => analyzer.terms(w));
    if (stems.length) needs.push(stems.at(-1)!);
  }
  const isFinder = needs.length === 0 && nameWords.some((w) => FINDER_WORDS.has(w));
  // what a finder finds: the words of its name and first sentence (not the rest: "does not comment on …")
  const finds = isFinder ? new Set([...document.fields.name, ...document.fields.summary]) : new Set<string>();
  return { needs: [...new Set(needs)], finds };
}

/** Whether a task gives ids itself (a number of 3+ digits that is no year, or a long code mixing letters and digits). */
export function givesIds(task: string): boolean {
  return /\b(?!(?:19|20)\d\d\b)\d{3,}\b|\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{10,}\b/.test(task);
}

/** Leading results whose id needs are looked at. */
const NEEDING_RESULTS = 3;
/** The finders added go into the results' first this many places (the last ones). */
const RESULT_PLACES = 5;
/** At most this many finders are added. */
const MAX_FINDERS = 2;

/**
 * Completes the leading results of a ranking with the finders their id needs call for: for each of the first three
 * results that requires the id of an entity no result in the first five finds, the best-ranked finder of that entity
 * on the same server moves into the first five (taking its last places, at most two), tagged with the step of the
 * result that needs it. Unchanged when the task gives ids itself.
 */
export function completeIdDependencies<T extends { id: string; server: string; step?: number }>(
  ranked: readonly T[],
  profileOf: (id: string) => IdProfile | undefined,
  task: string,
): T[] {
  if (ranked.length <= RESULT_PLACES || givesIds(task)) return [...ranked];
  const lead = ranked.slice(0, RESULT_PLACES);
  const found = (entity: string, among: readonly T[]) => among.some((tool) => profileOf(tool.id)?.finds.has(entity));
  const added: T[] = [];
  for (const tool of ranked.slice(0, NEEDING_RESULTS)) {
    for (const entity of profileOf(tool.id)?.needs ?? []) {
      if (added.length >= MAX_FINDERS || found(entity, lead) || found(entity, added)) continue;
      const finder = ranked.slice(RESULT_PLACES).find((other) => other.server === tool.server && profileOf(other.id)?.finds.has(entity));
      if (finder && !added.includes(finder)) added.push(tool.step === undefined ? finder : { ...finder, step: tool.step });
    }
  }
  if (!added.length) return [...ranked];
  const addedIds = new Set(added.map((tool) => tool.id));
  const rest = ranked.filter((tool) => !addedIds.has(tool.id));
  const at = RESULT_PLACES - added.length;
  return [...rest.slice(0, at), ...added, ...rest.slice(at)];
}
