import type { SearchMode } from "@afw/contracts";
import { splitIdentifier, STOP_WORDS, type TextAnalyzer } from "./text-analysis.js";
import type { ToolDocument } from "./tool-document.js";
import type { RankedTool } from "./tool-index-options.js";

/**
 * Operation classes of tool names and requests: the first operation word of a query should agree
 * with the operation of the tool's name (`read the file` → `get_file_contents`, not
 * `create_or_update_file`). General English verbs grouped by the operation they name (the CRUD
 * operations plus search and run; "remember" asks to store something, "forget" to delete it), not
 * tied to any catalog.
 */
export const ACTION_CLASSES: Readonly<Record<string, readonly string[]>> = {
  read: ["get", "read", "show", "view", "fetch", "retrieve", "describe", "inspect", "see", "display", "look", "download", "what", "which", "who", "know", "recall"],
  list: ["list", "enumerate", "browse", "all", "show"],
  search: ["search", "find", "lookup", "query", "locate", "discover"],
  create: ["create", "add", "new", "make", "post", "insert", "generate", "submit", "upload", "install", "send", "push", "open", "write", "comment", "reply", "save", "store", "record", "remember", "memorize", "note", "draft", "copy", "duplicate", "clone"],
  update: ["update", "edit", "modify", "change", "set", "rename", "patch", "replace", "move", "transition", "assign", "mark", "upgrade", "apply", "close", "merge", "fill", "type", "write", "overwrite"],
  delete: ["delete", "remove", "drop", "erase", "destroy", "uninstall", "purge", "cancel", "clear", "dismiss", "discard", "forget", "unstar", "unstage"],
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

/** Per-query signals computed once and applied to every candidate tool. */
export interface QuerySignals {
  /** Operation classes of the query's first operation word. */
  wanted?: Set<string>;
  /** Every operation class any word of the query names. */
  asked?: Set<string>;
  /** Stem → grammatical numbers (plural?) in which the query uses it. */
  numberForms?: Map<string, boolean[]>;
  /** The query's words as typed. */
  surfaceWords?: Set<string>;
}

/** Weights of the re-ranking signals (see `ToolIndexOptions`). */
export interface SignalWeights {
  actionWeight: number;
  actionMismatchWeight: number;
  surfaceWeight: number;
  numberWeight: number;
}

/**
 * The lexical re-ranking signals of the tool index: operation agreement between the query and a
 * tool's name, a penalty for writing tools nobody asked for, grammatical number agreement and
 * verbatim name words. Per-tool analyses are cached until {@link RankingSignals.forget}.
 */
export interface RankingSignals {
  /** Analyses a query's intent once. */
  analyse(intent: string, words: readonly string[]): QuerySignals;
  /** The boost (positive or negative) of a tool for an analysed query. */
  boost(document: ToolDocument, query: QuerySignals): number;
  /** Drops the cached analyses of a tool (after it changed). */
  forget(id: string): void;
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
      const signals: QuerySignals = {};
      const lower = intent.toLowerCase().split(/[^a-z0-9-]+/);
      if (weights.actionWeight > 0) {
        for (const word of lower) {
          const classes = actionClassesOf.get(analyzer.stem(word));
          if (classes) {
            signals.wanted = classes;
            break;
          }
        }
      }
      if (weights.actionMismatchWeight > 0) {
        signals.asked = new Set();
        for (const word of lower) for (const action of actionClassesOf.get(analyzer.stem(word)) ?? []) signals.asked.add(action);
      }
      if (weights.surfaceWeight > 0) signals.surfaceWords = new Set(intentWords);
      if (weights.numberWeight > 0) {
        signals.numberForms = new Map();
        for (const word of intentWords) {
          if (STOP_WORDS.has(word)) continue;
          const stem = analyzer.stem(word);
          const forms = signals.numberForms.get(stem) ?? [];
          forms.push(isPlural(word));
          signals.numberForms.set(stem, forms);
        }
      }
      return signals;
    },
    boost(document, { wanted, asked, numberForms, surfaceWords }) {
      let boost = 0;
      if (wanted) {
        for (const action of toolActionOf(document)) {
          if (wanted.has(action)) {
            boost += weights.actionWeight;
            break;
          }
        }
      }
      // a tool annotated `readOnlyHint` writes nothing, whatever its verb ("add two numbers")
      if (asked && document.tool.annotations?.["readOnlyHint"] !== true) {
        const actions = toolActionOf(document);
        let writes = actions.size > 0;
        for (const action of actions) if (!WRITE_ACTIONS.has(action) || asked.has(action)) writes = false;
        if (writes) boost -= weights.actionMismatchWeight;
      }
      if (numberForms || surfaceWords) {
        const nameWords = nameWordsOf(document);
        if (numberForms) boost += weights.numberWeight * numberAgreement(nameWords, numberForms);
        if (surfaceWords && nameWords.length) {
          let verbatim = 0;
          for (const { word } of nameWords) if (surfaceWords.has(word)) verbatim++;
          boost += (weights.surfaceWeight * verbatim) / nameWords.length;
        }
      }
      return boost;
    },
    forget(id) {
      toolActions.delete(id);
      nameWordsById.delete(id);
    },
  };
}

/**
 * Confidence of a ranking in [0, 1], from the best tool's evidence: how many of the query's own
 * words its text contains (`coverage`), its cosine similarity, its lead over the runner-up, and
 * whether the query names its server. Off-topic requests ("tell me a joke") score low.
 */
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
 * Orders tools so that no server has more than `limit` of the leading places (the overflow moves
 * to the end, in order); servers in `exempt` have no limit. `limit <= 0` keeps the order.
 */
export function applyDiversity<T extends { server: string }>(tools: readonly T[], limit: number, exempt: ReadonlySet<string>): T[] {
  if (limit <= 0) return [...tools];
  const perServer = new Map<string, number>();
  const kept: T[] = [];
  const overflow: T[] = [];
  for (const tool of tools) {
    const count = perServer.get(tool.server) ?? 0;
    if (count < limit || exempt.has(tool.server)) {
      kept.push(tool);
      perServer.set(tool.server, count + 1);
    } else overflow.push(tool);
  }
  return [...kept, ...overflow];
}
