/**
 * Id dependencies between tools: a tool that requires the id of something (`movie_id`, `channel_id`, or `id` on
 * `get_album`) cannot be called from a task that names the thing ("the movie Titanic") rather than giving its id; the
 * tool of the same server that finds such things by name or lists them (`search_movie`, `list_channels`) is needed
 * first — or the tool a required parameter's description names ("Geo ID of the location retrieved from the Search
 * Location API", "the id returned by `list_projects`"). Read from the tools' names, parameters and descriptions only:
 * nothing keyed to particular servers.
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

/** A required parameter's description words and, for an id parameter, the entity whose id it takes. */
export interface Pointer {
  /** The lower-case words of the description. */
  words: string[];
  /** The entity of `needs` the parameter stands for, if it takes an id. */
  need?: string;
}

/** What a tool needs and offers in terms of entity ids (stemmed entity words). */
export interface IdProfile {
  /** Entities whose id a required parameter takes (`movie` for `movie_id`). */
  needs: string[];
  /**
   * Entities a finder tool (a search or list verb in its name, no required id) finds — words of its name and first
   * sentence — each with how directly: 0 a search verb and the entity in its name (`search_movies`), 1 a list verb and
   * the entity in its name (`list_channels`, `genre_movie_list`), 2 the entity in its first sentence only. A tool whose
   * name says it gives an entity's id and that requires no id (`get_artist_id_by_name`) finds that entity at 0.
   */
  finds: ReadonlyMap<string, number>;
  /** Each required parameter's description, where it may name the tool that gives its value. */
  pointers: Pointer[];
  /** The words of the tool's name that its server's name does not hold (`search location` for `TripadvisorSearchLocation`). */
  ownNameWords: string[];
  /** Whether the tool requires a text query or name (`query`, `q`, `keyword`, `name`, `title`, `*_name`): it finds things by name. */
  byName: boolean;
}

/** Names of parameters that carry a text query or a name (general API vocabulary). */
const QUERY_PARAMETER = /^(?:q|query|queries|keywords?|search|term|text|name|title)$|_(?:name|query|title)$|(?:Name|Query|Title)$/;

/** The {@link IdProfile} of a tool document. */
export function idProfile(document: ToolDocument, analyzer: TextAnalyzer): IdProfile {
  const nameWords = splitIdentifier(document.tool.name).map((w) => w.toLowerCase());
  const needs: string[] = [];
  const pointers: Pointer[] = [];
  for (const parameter of toolParameters(document.tool)) {
    if (!parameter.required) continue;
    const parts = splitIdentifier(parameter.name).map((w) => w.toLowerCase());
    let need: string | undefined;
    if (parts.length > 0 && /^ids?$/.test(parts.at(-1)!)) {
      // `movie_id` → movie; a bare `id` is the id of the first entity the tool's name mentions (`get_album` → album)
      const entity = parts.length > 1 ? parts.slice(0, -1) : nameWords.filter((w) => !OPERATION_WORDS.has(w) && !STOP_WORDS.has(w) && /^[a-z]{3,}$/.test(w)).slice(0, 1);
      need = entity.flatMap((w) => analyzer.terms(w)).at(-1);
      if (need) needs.push(need);
    }
    if (parameter.description) pointers.push({ words: splitIdentifier(parameter.description), ...(need ? { need } : {}) });
  }
  const searches = nameWords.some((w) => SEARCH_WORDS.has(w));
  const finds = new Map<string, number>();
  if (needs.length === 0 && (searches || nameWords.some((w) => LIST_WORDS.has(w)))) {
    // what a finder finds: the words of its name and first sentence (not the rest: "does not comment on …")
    for (const term of document.fields.name) finds.set(term, searches ? 0 : 1);
    for (const term of document.fields.summary) if (!finds.has(term)) finds.set(term, 2);
  }
  if (needs.length === 0) {
    // "get artist id by name": the word before "id" in the name is the entity whose id it gives
    nameWords.forEach((word, at) => {
      const entity = nameWords[at - 1];
      if (/^ids?$/.test(word) && entity && !OPERATION_WORDS.has(entity) && /^[a-z]{3,}$/.test(entity)) {
        for (const stem of analyzer.terms(entity)) finds.set(stem, 0);
      }
    });
  }
  const serverWords = new Set(splitIdentifier(document.tool.server));
  const ownNameWords = nameWords.filter((w) => !serverWords.has(w) && w !== "api");
  const byName = toolParameters(document.tool).some((parameter) => parameter.required && QUERY_PARAMETER.test(parameter.name));
  return { needs: [...new Set(needs)], finds, pointers, ownNameWords, byName };
}

/** Fewest own name words of a tool that a parameter description must name, in order, to point at it. */
const MIN_POINTER_WORDS = 2;

/** How many of `name`'s words `text` holds as one run (0 unless all of them, and at least `MIN_POINTER_WORDS`). */
function namedIn(text: readonly string[], name: readonly string[]): number {
  if (name.length < MIN_POINTER_WORDS) return 0;
  for (let at = 0; at + name.length <= text.length; at++) {
    if (name.every((word, offset) => text[at + offset] === word)) return name.length;
  }
  return 0;
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
 * results, the tool of the same server that a required parameter's description names (its own name words as one run,
 * at least two, the most fully named one), then for each entity whose id it requires the most direct finder of that
 * entity on the same server (among equally direct ones, one that takes a name or text query before one that lists by
 * filters, then the best-ranked), moves into the first five unless it is there
 * (taking their last places, at most two), tagged with the step of the result that needs it. Unchanged when the task
 * gives ids itself.
 */
export function completeIdDependencies<T extends { id: string; server: string; step?: number }>(
  ranked: readonly T[],
  profileOf: (id: string) => IdProfile | undefined,
  task: string,
): T[] {
  if (ranked.length <= RESULT_PLACES || givesIds(task)) return [...ranked];
  const added: T[] = [];
  const add = (tool: T, finder: T) => {
    if (!added.some((other) => other.id === finder.id)) added.push(tool.step === undefined ? finder : { ...finder, step: tool.step });
  };
  for (const tool of ranked.slice(0, NEEDING_RESULTS)) {
    const profile = profileOf(tool.id);
    // a required parameter whose description names another tool of the server: the most fully named one, which stands
    // in for the finder of the parameter's entity
    const named = new Set<string>();
    for (const pointer of profile?.pointers ?? []) {
      if (added.length >= MAX_FINDERS) break;
      let best: { at: number; words: number } | undefined;
      ranked.forEach((other, at) => {
        if (other.server !== tool.server || other.id === tool.id) return;
        const words = namedIn(pointer.words, profileOf(other.id)?.ownNameWords ?? []);
        if (words > 0 && (!best || words > best.words)) best = { at, words };
      });
      if (!best) continue;
      if (pointer.need) named.add(pointer.need);
      if (best.at >= RESULT_PLACES) add(tool, ranked[best.at]!);
    }
    for (const entity of profile?.needs ?? []) {
      if (added.length >= MAX_FINDERS) break;
      if (named.has(entity)) continue;
      // the most direct finder of the entity on the tool's server, the best-ranked among equally direct ones
      let best: { at: number; tier: number } | undefined;
      ranked.forEach((other, at) => {
        const found = other.server === tool.server ? profileOf(other.id) : undefined;
        const direct = found?.finds.get(entity);
        // a finder that takes a name or query finds a named thing before one that lists by filters
        const tier = direct === undefined ? undefined : direct * 2 + (found!.byName ? 0 : 1);
        if (tier !== undefined && (!best || tier < best.tier)) best = { at, tier };
      });
      if (!best || best.at < RESULT_PLACES) continue;
      add(tool, ranked[best.at]!);
    }
  }
  if (!added.length) return [...ranked];
  const addedIds = new Set(added.map((tool) => tool.id));
  const rest = ranked.filter((tool) => !addedIds.has(tool.id));
  const at = RESULT_PLACES - added.length;
  return [...rest.slice(0, at), ...added, ...rest.slice(at)];
}
