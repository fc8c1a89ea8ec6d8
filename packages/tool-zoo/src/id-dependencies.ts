/**
 * Id dependencies between tools: a tool that requires the id of something (`movie_id`, `channel_id`, or `id` on
 * `get_album`) cannot be called from a task that names the thing ("the movie Titanic") rather than giving its id; the
 * tool of the same server that finds such things by name or lists them (`search_movie`, `list_channels`) is needed
 * first. Read from the tools' names, parameters and descriptions only: nothing keyed to particular servers.
 */
import { ACTION_CLASSES } from "./ranking-signals.js";
import { splitIdentifier, STOP_WORDS, type TextAnalyzer } from "./text-analysis.js";
import { toolParameters, type ToolDocument } from "./tool-document.js";

/** Words of a tool name that find things (general English, `ACTION_CLASSES`' search verbs). */
const SEARCH_WORDS: ReadonlySet<string> = new Set(ACTION_CLASSES["search"]);
/** Words of a tool name that list things (`ACTION_CLASSES`' list verbs). */
const LIST_WORDS: ReadonlySet<string> = new Set(ACTION_CLASSES["list"]!.filter((w) => w !== "all" && w !== "show"));
/** Words of a tool name that are no entity: operation verbs of any class and HTTP methods. */
const OPERATION_WORDS: ReadonlySet<string> = new Set([...Object.values(ACTION_CLASSES).flat(), "put", "post", "patch", "head"]);

/** What a tool needs and offers in terms of entity ids (stemmed entity words). */
export interface IdProfile {
  /** Entities whose id a required parameter takes (`movie` for `movie_id`). */
  needs: string[];
  /**
   * Entities a finder tool (a search or list verb in its name, no required id) finds — words of its name and first
   * sentence — each with how directly: 0 a search verb and the entity in its name (`search_movies`), 1 a list verb and
   * the entity in its name (`list_channels`, `genre_movie_list`), 2 the entity in its first sentence only.
   */
  finds: ReadonlyMap<string, number>;
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
  const searches = nameWords.some((w) => SEARCH_WORDS.has(w));
  const finds = new Map<string, number>();
  if (needs.length === 0 && (searches || nameWords.some((w) => LIST_WORDS.has(w)))) {
    // what a finder finds: the words of its name and first sentence (not the rest: "does not comment on …")
    for (const term of document.fields.name) finds.set(term, searches ? 0 : 1);
    for (const term of document.fields.summary) if (!finds.has(term)) finds.set(term, 2);
  }
  return { needs: [...new Set(needs)], finds };
}

/**
 * Whether a task gives ids itself: a word of 3+ digits that is no year, or a code of 10+ characters (letters, digits,
 * `_` and inner `-`) mixing letters and digits. One linear pass over the runs of word characters and hyphens.
 */
export function givesIds(task: string): boolean {
  for (const [run] of task.matchAll(/[\w-]+/g)) {
    let start = 0;
    let end = run.length;
    while (run[start] === "-") start++;
    while (end > start && run[end - 1] === "-") end--;
    const code = run.slice(start, end);
    if (code.length >= 10 && /\d/.test(code) && /[A-Za-z]/.test(code)) return true;
    if (run.split("-").some((word) => /^\d{3,}$/.test(word) && !/^(?:19|20)\d\d$/.test(word))) return true;
  }
  return false;
}

/** Leading results whose id needs are looked at. */
const NEEDING_RESULTS = 3;
/** The finders added go into the results' first this many places (the last ones). */
const RESULT_PLACES = 5;
/** At most this many finders are added. */
const MAX_FINDERS = 2;

/**
 * Completes the leading results of a ranking with the finders their id needs call for: for each of the first three
 * results that requires the id of an entity, the most direct finder of that entity on the same server (the
 * best-ranked among equally direct ones) moves into the first five unless it is there (taking their last places, at
 * most two), tagged with the step of the result that needs it. Unchanged when the task gives ids itself.
 */
export function completeIdDependencies<T extends { id: string; server: string; step?: number }>(
  ranked: readonly T[],
  profileOf: (id: string) => IdProfile | undefined,
  task: string,
): T[] {
  if (ranked.length <= RESULT_PLACES || givesIds(task)) return [...ranked];
  const added: T[] = [];
  for (const tool of ranked.slice(0, NEEDING_RESULTS)) {
    for (const entity of profileOf(tool.id)?.needs ?? []) {
      if (added.length >= MAX_FINDERS) break;
      // the most direct finder of the entity on the tool's server, the best-ranked among equally direct ones
      let best: { at: number; tier: number } | undefined;
      ranked.forEach((other, at) => {
        const tier = other.server === tool.server ? profileOf(other.id)?.finds.get(entity) : undefined;
        if (tier !== undefined && (!best || tier < best.tier)) best = { at, tier };
      });
      if (!best || best.at < RESULT_PLACES) continue;
      const finder = ranked[best.at]!;
      if (!added.some((other) => other.id === finder.id)) added.push(tool.step === undefined ? finder : { ...finder, step: tool.step });
    }
  }
  if (!added.length) return [...ranked];
  const addedIds = new Set(added.map((tool) => tool.id));
  const rest = ranked.filter((tool) => !addedIds.has(tool.id));
  const at = RESULT_PLACES - added.length;
  return [...rest.slice(0, at), ...added, ...rest.slice(at)];
}
