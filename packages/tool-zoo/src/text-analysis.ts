import { stemmer } from "stemmer";
import { wordnetRelatives, type SynonymSource } from "./wordnet-synonyms.js";

/** English function words dropped by the tokenizer (verbs such as `get` or `list` are kept: tool names are made of them). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or but if of to in on at by for with from into onto as is are was were be been being am " +
    "it its this that these those there here i me my mine we us our ours you your yours he him his she her " +
    "they them their what which who whom whose when where why how all any both each few more most other some " +
    "such no nor not only own same so than too very can could will would shall should may might must do does " +
    "did done doing have has had having just also please via per about up out over under again then once " +
    "let lets let's i'm i've it's don't can't want need like using use used uses one ones thing things " +
    "everything anything something nothing everyone anyone someone everybody anybody somebody nobody " +
    "everywhere anywhere somewhere e.g i.e etc"
  ).split(/\s+/),
);

/** Splits an identifier into lower-case words (snake, kebab, dotted, camel and Pascal case, digits). */
export function splitIdentifier(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** Removes Markdown syntax (fences, code marks, links, emphasis, headings, HTML tags) and URLs, keeping the words. */
export function stripMarkdown(text: string): string {
  return text
    .replace(/```[a-z]*\n?/gi, " ")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/<\/?[a-z][^>]*>/gi, " ")
    .replace(/^\s{0,3}#{1,6}\s+/gm, "")
    .replace(/[*_`~]+/g, " ")
    .replace(/[ \t]+/g, " ")
    .trim();
}

/** The first sentence of a text (after {@link stripMarkdown}), at most `maxChars` characters. */
export function firstSentence(text: string, maxChars = 240): string {
  const plain = stripMarkdown(text).replace(/\s+/g, " ").trim();
  const match = /^(.+?[.!?])(\s|$)/.exec(plain);
  const sentence = match?.[1] ?? plain;
  return sentence.length > maxChars ? `${sentence.slice(0, maxChars).replace(/\s+\S*$/, "")}…` : sentence;
}

/** Whole-word abbreviations of developer vocabulary, expanded in queries and tool texts alike. */
export const DEFAULT_ABBREVIATIONS: Readonly<Record<string, string>> = Object.fromEntries(
  (
    "pr=pull request;prs=pull requests;mr=merge request;mrs=merge requests;repo=repository;" +
    "repos=repositories;k8s=kubernetes;db=database;dbs=databases;dir=directory;dirs=directories;" +
    "msg=message;msgs=messages;img=image;pic=picture;pics=pictures;config=configuration;" +
    "configs=configurations;info=information;docs=documentation;doc=document;env=environment;" +
    "envs=environments;deps=dependencies;dep=dependency;org=organization;orgs=organizations;pw=password;" +
    "url=url link;urls=url links;cve=cve vulnerability;cves=cve vulnerabilities;ci=continuous integration;" +
    "vuln=vulnerability;vulns=vulnerabilities;sql=sql query;svc=service;svcs=services;ts=typescript;" +
    "js=javascript;pls=please;plz=please;p50=p50 percentile;p75=p75 percentile;p90=p90 percentile;p95=p95 percentile;p99=p99 percentile;" +
    "p999=p999 percentile"
  )
    .split(";")
    .map((entry) => entry.split("=") as [string, string]),
);

/**
 * Synonym groups (a query word expands to the rest of its group at a reduced weight): general English and developer
 * vocabulary of the kind WordNet lists as synonym sets or derivationally related forms; no product names, nothing from a task set.
 */
export const DEFAULT_SYNONYM_GROUPS: ReadonlyArray<readonly string[]> = (
  "delete remove erase drop destroy purge wipe uninstall ditch scrap trash nuke flush | list enumerate show display browse all | " +
  "get retrieve fetch read view show see look inspect open details | " +
  "create add new make open file start insert | update edit modify change set patch rename alter replace tweak swap | " +
  "search find lookup query locate discover | run execute trigger invoke launch rerun dispatch | " +
  "send post publish message notify say tell | close resolve finish done complete | " +
  "move transition relocate transfer | comment reply remark respond note | " +
  "screenshot capture snapshot image picture photo png jpg jpeg | navigate visit go browse goto | " +
  "stop cancel kill terminate abort halt | restart reboot | user member people person who account profile | " +
  "issue ticket bug story task | directory folder | website web site page webpage online internet | " +
  "price pricing cost | payment charge pay billing | customer client buyer | " +
  "size space big large largest bytes | log logs logging output | error exception failure crash bug | " +
  "commit changeset revision | branch ref | merge squash integrate | approve approval review | " +
  "assign assignee owner | label tag | download fetch grab | write save store persist put | upload attach | " +
  "type enter input fill write | click press tap hit | table schema columns column | time clock timezone hour | " +
  "star favorite bookmark | release version tag | refund reimburse repay | invoice bill | " +
  "subscription subscribe recurring | scale resize | deploy install apply | dashboard panel chart graph | " +
  "metric metrics measurement statistics | sprint iteration | notification alert inbox | " +
  "directions route navigate | remember memory memorize recall memo | know knowledge known fact facts | " +
  "difference diff changed compare | history changelog previous versions past | " +
  "summary summarize summarise overview | batch bulk multiple several many | copy duplicate clone fork | " +
  "reset unstage discard undo revert | checkout switch | retry rerun rebuild"
)
  .split(" | ")
  .map((group) => group.split(" "));

/** A stemmed term of an analysed query and its weight (1 for typed words, less for expansions). */
export interface WeightedTerm {
  readonly term: string;
  readonly weight: number;
}

/** Weight of a synonym of a query word relative to the word. */
const SYNONYM_WEIGHT = 0.35;

/** Tokeniser + stemmer + abbreviation and synonym expansion shared by indexing and querying. */
export interface TextAnalyzer {
  /** Lower-cased, abbreviation-expanded, stop-word-free, stemmed terms of `text`, in order. */
  terms(text: string): string[];
  /** The terms of a query, each with weight 1, plus synonyms of each at the synonym weight. */
  queryTerms(text: string): WeightedTerm[];
  /** Stems one lower-case word. */
  stem(word: string): string;
}

const stemCache = new Map<string, string>();

function cachedStem(word: string): string {
  let stem = stemCache.get(word);
  if (stem === undefined) {
    stem = /^\d/.test(word) ? word : stemmer(word);
    if (stemCache.size > 50_000) stemCache.clear();
    stemCache.set(word, stem);
  }
  return stem;
}

/** Lower-case words of a text: identifiers split, Markdown and URLs removed, possessives dropped. */
export function words(text: string): string[] {
  const plain = stripMarkdown(text).replace(/'s\b/g, "");
  const out: string[] = [];
  for (const chunk of plain.split(/[^A-Za-z0-9_\-.']+/)) {
    if (!chunk) continue;
    // each part between separators (snake, kebab, dotted) as a word alone: lowerCamel split, names kept whole ("GitHub",
    // "PromQL-compatible" -> promql, compatible)
    const parts = chunk.split(/[_\-.]+/).filter(Boolean).flatMap((part) => (/^[a-z]+[A-Z]/.test(part) ? splitIdentifier(part) : [part.toLowerCase()]));
    out.push(...parts);
    // "re-run", "e-mail", "sub-issue": also the joined word
    if (parts.length === 2 && /^[A-Za-z]+-[A-Za-z]+$/.test(chunk)) out.push(parts.join(""));
  }
  return out;
}

/** Options of {@link createTextAnalyzer}. */
export interface TextAnalyzerOptions {
  /** Where query-word synonyms come from (see {@link SynonymSource}). @default "builtin" */
  synonyms?: SynonymSource;
  /** Which typed stems WordNet expands (the tool index: only stems no indexed tool uses). @default every stem */
  expandWithWordnet?: (stem: string) => boolean;
}

/** Creates the {@link TextAnalyzer} used by the BM25 index and the domain detector. */
export function createTextAnalyzer(options: TextAnalyzerOptions = {}): TextAnalyzer {
  // synonym sources (WordNet: docs/decisions/2026-11-30-tool-search-wordnet.md)
  const source = options.synonyms ?? "builtin";
  const useBuiltin = source !== "wordnet";
  const useWordnet = source !== "builtin";
  const synonyms = new Map<string, Set<string>>();
  for (const group of useBuiltin ? DEFAULT_SYNONYM_GROUPS : []) {
    const stems = group.map(cachedStem);
    for (const stem of stems) {
      let set = synonyms.get(stem);
      if (!set) synonyms.set(stem, (set = new Set()));
      for (const other of stems) if (other !== stem) set.add(other);
    }
  }
  const terms = (text: string): string[] => {
    const out: string[] = [];
    for (const word of words(text)) {
      // Own keys only: words such as "constructor" must not pick up Object.prototype members.
      const expansion = Object.hasOwn(DEFAULT_ABBREVIATIONS, word) ? DEFAULT_ABBREVIATIONS[word] : undefined;
      const parts = expansion ? expansion.split(" ") : [word];
      for (const part of parts) {
        if (STOP_WORDS.has(part) || part.length === 0) continue;
        out.push(cachedStem(part));
      }
    }
    return out;
  };
  return {
    terms,
    stem: cachedStem,
    queryTerms(text) {
      const weights = new Map<string, number>();
      const original = terms(text);
      for (const term of original) weights.set(term, Math.max(weights.get(term) ?? 0, 1));
      for (const term of original) {
        for (const synonym of synonyms.get(term) ?? []) {
          if ((weights.get(synonym) ?? 0) < SYNONYM_WEIGHT) weights.set(synonym, SYNONYM_WEIGHT);
        }
        // WordNet relatives at the synonym weight times their tier weight
        if (useWordnet && (options.expandWithWordnet?.(term) ?? true)) {
          for (const [relative, tierWeight] of wordnetRelatives(term)) {
            const w = SYNONYM_WEIGHT * tierWeight;
            if ((weights.get(relative) ?? 0) < w) weights.set(relative, w);
          }
        }
            }
      return [...weights].map(([term, weight]) => ({ term, weight }));
    },
  };
}
