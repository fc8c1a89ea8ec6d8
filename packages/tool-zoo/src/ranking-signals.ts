import type { SearchMode } from "@afw/contracts";
import { splitIdentifier, STOP_WORDS, type TextAnalyzer } from "./text-analysis.js";
import type { ToolDocument } from "./tool-document.js";
import type { RankedTool } from "./tool-index-options.js";

/**
 * Operation classes: the first operation word of a query should agree with the operation of the tool's name (`read
 * the file` → `get_file_contents`). General English verbs grouped by the operation they name (CRUD, search, run).
 */
export const ACTION_CLASSES: Readonly<Record<string, readonly string[]>> = {
  read: ["get", "read", "show", "view", "fetch", "retrieve", "describe", "inspect", "see", "display", "look", "download", "what", "which", "who", "know", "recall"],
  list: ["list", "enumerate", "browse", "all", "show"],
  search: ["search", "find", "lookup", "query", "locate", "discover", "where"],
  create: ["create", "add", "new", "make", "post", "insert", "generate", "submit", "upload", "install", "send", "push", "open", "write", "comment", "reply", "save", "store", "record", "remember", "memorize", "note", "draft", "copy", "duplicate", "clone"],
  update: ["update", "edit", "modify", "change", "set", "rename", "patch", "replace", "move", "transition", "assign", "mark", "upgrade", "apply", "close", "merge", "fill", "type", "write", "overwrite", "tweak", "swap"],
  delete: ["delete", "remove", "drop", "erase", "destroy", "uninstall", "purge", "cancel", "clear", "dismiss", "discard", "forget", "unstar", "unstage", "ditch", "scrap", "trash", "nuke", "flush"],
  run: ["run", "execute", "exec", "trigger", "rerun", "retry", "invoke", "launch", "evaluate", "dispatch"],
};

const WRITE_ACTIONS: ReadonlySet<string> = new Set(["create", "update", "delete", "run"]);

/** A word of a tool's name (no stop words), with what the ranking needs to know of it. */
interface NameWord {
  word: string;
  stem: string;
  plural: boolean;
  /** An operation verb (its number says nothing). */
  action: boolean;
}

/** Per-query signals: operation classes of its first operation word and of any word, number forms per stem, words as typed. */
export interface QuerySignals {
  wanted?: Set<string>;
  asked: Set<string>;
  numberForms: Map<string, boolean[]>;
  surfaceWords: Set<string>;
}

/** Weights of the re-ranking signals (see `ToolIndexOptions`). */
export interface SignalWeights {
  actionWeight: number;
  actionMismatchWeight: number;
  surfaceWeight: number;
  numberWeight: number;
}

/** Lexical re-ranking: operation agreement, unasked writes, grammatical number, verbatim name words. */
export interface RankingSignals {
  /** Analyses a query's intent once. */
  analyse(intent: string, words: readonly string[]): QuerySignals;
  /** The boost (positive or negative) of a tool for an analysed query. */
  boost(document: ToolDocument, query: QuerySignals): number;
  /** Drops the cached analyses of a tool (after it changed). */
  forget(id: string): void;
  /** Whether a lower-case word names only writing operations of {@link ACTION_CLASSES} (create, update, delete, run; by stem). */
  isWriteWord(word: string): boolean;
}

/** Forms of "be" and "have" (contractions split at the apostrophe: "what's" → "what", "s"). */
const AUXILIARIES: ReadonlySet<string> = new Set(["am", "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "s", "re", "ve"]);
/** Subject pronouns, and the wh-words that open a clause about what someone did. */
const SUBJECT_PRONOUNS: ReadonlySet<string> = new Set(["i", "you", "we", "they", "he", "she", "people", "someone", "anyone", "somebody", "anybody"]);
/** Modal verbs: "who can I assign …" asks about doing it. */
const MODALS: ReadonlySet<string> = new Set(["can", "could", "should", "shall", "may", "might", "must", "will", "would"]);
const WH_WORDS: ReadonlySet<string> = new Set(["what", "which", "who", "whom", "where", "when", "why", "how", "whatever"]);
/** Forms of "do" that open a question's subject ("what columns does the table have"). */
const DO_FORMS: ReadonlySet<string> = new Set(["do", "does", "did"]);
/** Indefinite pronouns that open a relative clause without "that" ("everything you remember"). */
const CLAUSE_PRONOUNS: ReadonlySet<string> = new Set(["everything", "anything", "something", "all"]);

/**
 * Whether `words[at]` only describes (English grammar, not a request): an -ing or -ed participle within two words after
 * a form of "be" or "have" (progressive, passive, perfect: "are running", "has been deleted"), or a verb right after a
 * subject pronoun that follows a wh-word within three words ("what do you remember", "what you stored", "what have
 * people been saying"). An imperative ("delete the branch") or a request ("can you delete …": no wh-word) is neither.
 */
export function describesState(words: readonly string[], at: number): boolean {
  const word = words[at];
  if (!word) return false;
  if (/^[a-z]{2,}(?:ing|ed)$/.test(word)) {
    if ([words[at - 1], words[at - 2]].some((w) => w !== undefined && AUXILIARIES.has(w))) return true;
    // a question about a state: "when was the file last modified", "what is currently being deployed"
    for (let i = Math.max(0, at - 6); i < at - 1; i++) if (WH_WORDS.has(words[i]!) && AUXILIARIES.has(words[i + 1]!)) return true;
  }
  const previous = words[at - 1];
  if (previous === undefined || !SUBJECT_PRONOUNS.has(previous) || MODALS.has(words[at - 2] ?? "")) return false;
  return words.slice(Math.max(0, at - 4), at - 1).some((w) => WH_WORDS.has(w) || CLAUSE_PRONOUNS.has(w));
}

/**
 * A query's text without the writing operation words that only describe ({@link describesState}: "what pods are
 * running"), and those words apart, so that they count as content, not as the operation asked for.
 */
export function separateDescribedVerbs(text: string, isWriteWord: (word: string) => boolean): { request: string; described: string[] } {
  const tokens = text.split(/([^A-Za-z0-9-]+)/);
  const lower = tokens.filter((_, i) => i % 2 === 0).map((t) => t.toLowerCase());
  const described: string[] = [];
  let word = -1;
  const request = tokens
    .map((token, i) => {
      if (i % 2 === 1) return token;
      word++;
      if (token && isWriteWord(lower[word]!) && describesState(lower, word)) {
        described.push(lower[word]!);
        return " ";
      }
      return token;
    })
    .join("");
  return { request, described };
}

/** Creates the {@link RankingSignals} of an index. */
export function createRankingSignals(analyzer: TextAnalyzer, weights: SignalWeights): RankingSignals {
  const actionClassesOf = new Map<string, Set<string>>();
  for (const [action, verbs] of Object.entries(ACTION_CLASSES)) {
    for (const verb of verbs) {
      for (const term of analyzer.terms(verb).length ? analyzer.terms(verb) : [analyzer.stem(verb)]) {
        let set = actionClassesOf.get(term);
        if (!set) actionClassesOf.set(term, (set = new Set()));
        set.add(action);
      }
    }
  }
  /** A plural English noun form: stemming removes a final -s (not -ss, -us, -is). */
  const isPlural = (word: string) => word.length > 3 && /[^su]s$/.test(word) && !/(ss|us|is)$/.test(word) && analyzer.stem(word) !== word;
  const classesOfWord = (word: string) => actionClassesOf.get(analyzer.stem(word.toLowerCase()));
  /** A word naming only writing operations: "stored", "running" (not "know", "show", "got": a described read is still a read). */
  const isWriteWord = (word: string): boolean => {
    const classes = classesOfWord(word);
    return classes !== undefined && [...classes].every((action) => WRITE_ACTIONS.has(action));
  };
  const nameWordsById = new Map<string, NameWord[]>();
  const nameWordsOf = (document: ToolDocument): NameWord[] => {
    let nameWords = nameWordsById.get(document.id);
    if (!nameWords) {
      nameWords = splitIdentifier(document.tool.name)
        .filter((w) => w !== "api" && !STOP_WORDS.has(w))
        .map((word) => {
          const stem = analyzer.stem(word);
          return { word, stem, plural: isPlural(word), action: actionClassesOf.has(stem) };
        });
      nameWordsById.set(document.id, nameWords);
    }
    return nameWords;
  };
  /** +1 when the query uses a name word in the name's number, -1 when only in the other number. */
  const numberAgreement = (nameWords: readonly NameWord[], queryForms: ReadonlyMap<string, boolean[]>): number => {
    let agree = 0;
    let disagree = 0;
    for (const { stem, plural, action } of nameWords) {
      if (action) continue;
      const forms = queryForms.get(stem);
      if (!forms) continue;
      if (forms.includes(plural)) agree++;
      else disagree++;
    }
    return disagree > 0 && agree === 0 ? -1 : disagree === 0 && agree > 0 ? 1 : 0;
  };
  // A tool's operation: the first operation word of its name (and one joined by "or":
  // `create_or_update_file`), else the first word of its description ("Shows the commit logs").
  const toolActions = new Map<string, Set<string>>();
  const toolActionOf = (document: ToolDocument): Set<string> => {
    let actions = toolActions.get(document.id);
    if (!actions) {
      actions = new Set();
      const nameWords = splitIdentifier(document.tool.name);
      const at = nameWords.findIndex((w) => classesOfWord(w));
      if (at >= 0) {
        for (const action of classesOfWord(nameWords[at]!)!) actions.add(action);
        if (nameWords[at + 1] === "or" && nameWords[at + 2]) for (const action of classesOfWord(nameWords[at + 2]!) ?? []) actions.add(action);
      } else {
        const lead = /^[A-Za-z]+/.exec(document.tool.description.replace(/^[^A-Za-z]*(?:[A-Za-z]+\s*\|\s*)?/, ""))?.[0];
        for (const action of (lead && classesOfWord(lead)) || []) actions.add(action);
      }
      toolActions.set(document.id, actions);
    }
    return actions;
  };
  return {
    analyse(intent, intentWords) {
      const all = intent.toLowerCase().split(/[^a-z0-9-]+/);
      // a participle after an auxiliary describes a state ("what pods are running", "what's stored under …") and a verb
      // after a subject pronoun in a wh-clause tells what someone did ("what do you remember", "what you stored"):
      // neither asks for that writing operation
      const lower = all.filter((word, at) => !(isWriteWord(word) && describesState(all, at)));
      let wanted = lower.map((word) => actionClassesOf.get(analyzer.stem(word))).find(Boolean);
      // "which channels exist", "what branches do I have": a wh-word before a plural noun asks for a list, unless the
      // question is about something else that has them ("what columns does the table have", "what files did PR 45 touch")
      const whAt = lower.findIndex((word) => actionClassesOf.get(analyzer.stem(word)) === wanted);
      if (wanted?.has("read") && WH_WORDS.has(lower[whAt] ?? "")) {
        const pluralAt = [whAt + 1, whAt + 2].find((i) => lower[i] !== undefined && !STOP_WORDS.has(lower[i]!) && isPlural(lower[i]!));
        const aboutOther = pluralAt !== undefined && DO_FORMS.has(lower[pluralAt + 1] ?? "") && !SUBJECT_PRONOUNS.has(lower[pluralAt + 2] ?? "");
        if (pluralAt !== undefined && !aboutOther) wanted = new Set([...wanted, "list"]);
      }
      const asked = new Set(lower.flatMap((word) => [...(actionClassesOf.get(analyzer.stem(word)) ?? [])]));
      const numberForms = new Map<string, boolean[]>();
      for (const word of intentWords) {
        if (STOP_WORDS.has(word)) continue;
        const stem = analyzer.stem(word);
        numberForms.set(stem, [...(numberForms.get(stem) ?? []), isPlural(word)]);
      }
      return { ...(wanted ? { wanted } : {}), asked, numberForms, surfaceWords: new Set(intentWords) };
    },
    boost(document, { wanted, asked, numberForms, surfaceWords }) {
      let boost = 0;
      const actions = toolActionOf(document);
      if (wanted && [...actions].some((action) => wanted.has(action))) boost += weights.actionWeight;
      // a tool annotated `readOnlyHint` writes nothing, whatever its verb ("add two numbers")
      if (document.tool.annotations?.["readOnlyHint"] !== true && actions.size > 0 && [...actions].every((action) => WRITE_ACTIONS.has(action) && !asked.has(action))) {
        boost -= weights.actionMismatchWeight;
      }
      const nameWords = nameWordsOf(document);
      boost += weights.numberWeight * numberAgreement(nameWords, numberForms);
      if (nameWords.length) boost += (weights.surfaceWeight * nameWords.filter(({ word }) => surfaceWords.has(word)).length) / nameWords.length;
      return boost;
    },
    forget(id) {
      toolActions.delete(id);
      nameWordsById.delete(id);
    },
    isWriteWord,
  };
}

/** Confidence in [0, 1] from the best tool: share of query words it has, similarity, lead, named server. */
export function rankingConfidence(tools: readonly RankedTool[], coverage: number, domains: ReadonlyMap<string, number>, mode: SearchMode): number {
  const first = tools[0];
  if (!first) return 0;
  const second = tools[1];
  const lead = second ? Math.min(1, (first.score - second.score) / Math.max(first.score, 1e-9) / 0.3) : 1;
  const similarity = Math.max(0, Math.min(1, (first.semantic - 0.25) / 0.4));
  const named = domains.get(first.server) ?? 0;
  const evidence =
    mode === "keyword"
      ? 0.6 * coverage + 0.2 * lead + 0.2 * named
      : mode === "semantic"
        ? 0.7 * similarity + 0.15 * lead + 0.15 * named
        : 0.4 * similarity + 0.3 * coverage + 0.15 * lead + 0.15 * named;
  return Math.max(0, Math.min(1, evidence));
}

/**
 * At most `limit` leading places per server: a tool beyond its server's `limit` ranks with its score lowered by
 * `penalty`, so it moves behind the other servers' tools that come within `penalty` of it but not behind clearly worse
 * ones (`Infinity`: the overflow moves to the end). `exempt` servers are unlimited; a `limit` of 0 disables.
 */
export function applyDiversity<T extends { server: string; score: number }>(
  tools: readonly T[],
  limit: number,
  exempt: ReadonlySet<string>,
  penalty = Number.POSITIVE_INFINITY,
): T[] {
  if (limit <= 0) return [...tools];
  const perServer = new Map<string, number>();
  const scored = tools.map((tool, at) => {
    const count = perServer.get(tool.server) ?? 0;
    perServer.set(tool.server, count + 1);
    return { tool, at, score: count < limit || exempt.has(tool.server) ? tool.score : tool.score - penalty };
  });
  return scored.sort((x, y) => y.score - x.score || x.at - y.at).map((entry) => entry.tool);
}
