import { z } from "zod";
import { AfwError, INTENTS, IntentSchema, formatZodError, type Intent } from "@afw/contracts";
import { foldText, foldedWords, splitWords } from "./text-normalization.js";
import { parseConfigText, readConfigFile } from "./config-text.js";

const weight = z.number().min(-10).max(10);

/** Zod schema of {@link IntentPatternRules}. */
export const IntentPatternRulesSchema = z
  .object({
    keywords: z
      .record(z.string().min(1), weight)
      .default({})
      .describe(
        "Whole words (lower-cased, accents folded) and their weights; a trailing `*` matches any word with that prefix, a leading `*` any word with that suffix (for compounds such as `*handbuch`).",
      ),
    phrases: z.record(z.string().min(1), weight).default({}).describe("Word sequences matched on word boundaries, with weights."),
    regex: z
      .array(
        z.object({
          pattern: z.string().min(1),
          weight,
          flags: z.string().regex(/^[imsu]*$/).default("iu").describe("JavaScript regex flags; `g` and `y` are not allowed."),
        }),
      )
      .default([])
      .describe("Regular expressions over the original text (not folded), with weights."),
  })
  .strict();

/** Keyword, phrase and regex rules of one intent, each with a weight. */
export type IntentPatternRules = z.infer<typeof IntentPatternRulesSchema>;

/** Zod schema of {@link IntentPatternConfig}. */
export const IntentPatternConfigSchema = z
  .object({
    version: z.literal(1).default(1),
    intents: z.partialRecord(IntentSchema, IntentPatternRulesSchema).default({}),
    fastPath: z
      .object({
        minScore: z.number().min(0).default(4).describe("Lowest winning score with which the patterns may decide alone."),
        minMargin: z.number().min(0).default(3).describe("Smallest lead over the runner-up with which the patterns may decide alone."),
        maxRunnerUp: z
          .number()
          .min(0)
          .optional()
          .describe("Highest score another intent may have for the patterns to decide alone (0: no competing rule may match); unset: no limit."),
      })
      .prefault({}),
  })
  .strict();

/**
 * The configurable pattern stage of the intent classifier: per-intent rules plus the thresholds at which the patterns decide alone
 * (the fast path, no embedding needed).
 */
export type IntentPatternConfig = z.infer<typeof IntentPatternConfigSchema>;

/** Input form of {@link IntentPatternConfig} (defaults not yet applied). */
export type IntentPatternConfigInput = z.input<typeof IntentPatternConfigSchema>;

/** One rule that matched a question. */
export interface PatternMatch {
  intent: Intent;
  /** `keyword:<word>`, `phrase:<words>` or `regex:<pattern>`. */
  rule: string;
  weight: number;
}

/** Scores of the pattern stage for one question. */
export interface PatternScores {
  /** Sum of matched weights per intent, in {@link INTENTS} order. */
  scores: Float64Array;
  /** Every rule that matched (each rule counts once). */
  matches: PatternMatch[];
  /** The best intent, when any rule matched with a positive total. */
  top: Intent | undefined;
  /** Score of the best intent minus the runner-up's. */
  margin: number;
  /** True when the best intent clears the fast-path thresholds. */
  decisive: boolean;
}

/** A compiled, reusable pattern matcher. */
export interface IntentPatternMatcher {
  /** The configuration it was compiled from. */
  readonly config: IntentPatternConfig;
  /**
   * Scores `question` against every rule, plus `extra` weights from outside the rules (e.g. the kinds of material pasted around a
   * long prompt, rule name `pasted:<kind>`).
   */
  score(question: string, extra?: readonly PatternMatch[]): PatternScores;
}

interface WeightedTarget {
  intentIndex: number;
  weight: number;
  rule: string;
  /** `<intentIndex>|<rule>`: a rule counts once per intent. */
  key: string;
}

/** Affix rules grouped by their first (prefixes) or last (suffixes) character; `undefined` when an empty affix matches every word. */
function byEdgeCharacter<T>(rules: readonly T[], affix: (rule: T) => string, last: boolean): Map<string, T[]> | undefined {
  const grouped = new Map<string, T[]>();
  for (const rule of rules) {
    const text = affix(rule);
    if (text.length === 0) return undefined;
    const edge = last ? text[text.length - 1]! : text[0]!;
    const list = grouped.get(edge);
    if (list) list.push(rule);
    else grouped.set(edge, [rule]);
  }
  return grouped;
}

/**
 * Compiles a pattern configuration into a matcher: keywords into a hash map, prefixes and phrases into maps keyed by their first
 * word, regexes once.
 * @throws AfwError `CONFIG_INVALID` when the configuration or a regex is invalid.
 */
export function compileIntentPatterns(input: IntentPatternConfigInput): IntentPatternMatcher {
  const parsed = IntentPatternConfigSchema.safeParse(input);
  if (!parsed.success) throw new AfwError("CONFIG_INVALID", `invalid intent patterns: ${formatZodError(parsed.error)}`);
  const config = parsed.data;
  const keywords = new Map<string, WeightedTarget[]>();
  const prefixes: { prefix: string; target: WeightedTarget }[] = [];
  const suffixes: { suffix: string; target: WeightedTarget }[] = [];
  const phrases = new Map<string, { words: string[]; target: WeightedTarget }[]>();
  const regexes: { regex: RegExp; target: WeightedTarget }[] = [];
  INTENTS.forEach((intent, intentIndex) => {
    const rules = config.intents[intent];
    if (!rules) return;
    for (const [rawWord, w] of Object.entries(rules.keywords)) {
      const word = foldText(rawWord);
      const rule = `keyword:${word}`;
      const target = { intentIndex, weight: w, rule, key: `${intentIndex}|${rule}` };
      if (word.endsWith("*")) prefixes.push({ prefix: word.slice(0, -1), target });
      else if (word.startsWith("*")) suffixes.push({ suffix: word.slice(1), target });
      else keywords.set(word, [...(keywords.get(word) ?? []), target]);
    }
    for (const [rawPhrase, w] of Object.entries(rules.phrases)) {
      const words = splitWords(foldText(rawPhrase));
      if (words.length === 0) continue;
      const rule = `phrase:${words.join(" ")}`;
      const target = { intentIndex, weight: w, rule, key: `${intentIndex}|${rule}` };
      if (words.length === 1) {
        keywords.set(words[0]!, [...(keywords.get(words[0]!) ?? []), target]);
        continue;
      }
      phrases.set(words[0]!, [...(phrases.get(words[0]!) ?? []), { words, target }]);
    }
    for (const { pattern, weight: w, flags } of rules.regex) {
      let regex: RegExp;
      try {
        regex = new RegExp(pattern, flags);
      } catch (error) {
        throw new AfwError("CONFIG_INVALID", `invalid regex for ${intent}: ${pattern}`, { cause: error });
      }
      const rule = `regex:${pattern}`;
      regexes.push({ regex, target: { intentIndex, weight: w, rule, key: `${intentIndex}|${rule}` } });
    }
  });
  const { minScore, minMargin } = config.fastPath;
  const maxRunnerUp = config.fastPath.maxRunnerUp ?? Infinity;
  // Only the affixes that share a word's first (last) character can match it; in configuration order, as in one scan of all.
  const prefixesByFirst = byEdgeCharacter(prefixes, (p) => p.prefix, false);
  const suffixesByLast = byEdgeCharacter(suffixes, (s) => s.suffix, true);

  return {
    config,
    score(question, extra = []) {
      const scores = new Float64Array(INTENTS.length);
      const matches: PatternMatch[] = [];
      for (const match of extra) {
        const index = INTENTS.indexOf(match.intent);
        scores[index] = scores[index]! + match.weight;
        matches.push(match);
      }
      const seen = new Set<string>();
      const hit = (target: WeightedTarget) => {
        if (seen.has(target.key)) return;
        seen.add(target.key);
        scores[target.intentIndex] = scores[target.intentIndex]! + target.weight;
        matches.push({ intent: INTENTS[target.intentIndex]!, rule: target.rule, weight: target.weight });
      };
      const { words } = foldedWords(question);
      for (let i = 0; i < words.length; i++) {
        const word = words[i]!;
        const exact = keywords.get(word);
        if (exact) for (const target of exact) hit(target);
        const prefixCandidates = prefixesByFirst ? (prefixesByFirst.get(word[0]!) ?? []) : prefixes;
        for (const { prefix, target } of prefixCandidates) if (word.startsWith(prefix)) hit(target);
        const suffixCandidates = suffixesByLast ? (suffixesByLast.get(word[word.length - 1]!) ?? []) : suffixes;
        for (const { suffix, target } of suffixCandidates) if (word.length > suffix.length && word.endsWith(suffix)) hit(target);
        const candidates = phrases.get(word);
        if (candidates) {
          for (const { words: phraseWords, target } of candidates) {
            let ok = i + phraseWords.length <= words.length;
            for (let j = 1; ok && j < phraseWords.length; j++) ok = words[i + j] === phraseWords[j];
            if (ok) hit(target);
          }
        }
      }
      const original = question.length > 8_000 ? question.slice(0, 8_000) : question;
      for (const { regex, target } of regexes) if (regex.test(original)) hit(target);
      let best = -1;
      let second = -Infinity;
      let bestScore = -Infinity;
      for (let i = 0; i < scores.length; i++) {
        const s = scores[i]!;
        if (s > bestScore) {
          second = bestScore;
          bestScore = s;
          best = i;
        } else if (s > second) second = s;
      }
      const top = bestScore > 0 ? INTENTS[best] : undefined;
      const margin = top ? bestScore - Math.max(0, second) : 0;
      const runnerUp = top ? Math.max(0, second) : 0;
      return {
        scores,
        matches,
        top,
        margin,
        decisive: top !== undefined && bestScore >= minScore && margin >= minMargin && runnerUp <= maxRunnerUp,
      };
    },
  };
}

/**
 * Parses a pattern configuration from YAML or JSON text (JSON is valid YAML).
 * @throws AfwError `CONFIG_INVALID` when the text is not valid YAML/JSON or does not fit the schema.
 */
export function parseIntentPatterns(text: string): IntentPatternConfig {
  return parseConfigText(text, IntentPatternConfigSchema, "intent patterns");
}

/**
 * Reads a pattern configuration from a YAML or JSON file.
 * @throws AfwError `CONFIG_INVALID` when the file cannot be read or parsed.
 * @example
 * ```ts
 * const patterns = await loadIntentPatterns("./config/intent-patterns.yaml");
 * const classifier = createIntentClassifier({ patterns });
 * ```
 *
 */
export async function loadIntentPatterns(path: string | URL): Promise<IntentPatternConfig> {
  return parseIntentPatterns(await readConfigFile(path, "intent patterns file"));
}

/**
 * Merges pattern configurations: later rules override earlier ones with the same key; regex lists are concatenated; `fastPath` of
 * the last config that sets it wins.
 * @example
 * ```ts
 * const patterns = mergeIntentPatterns(DEFAULT_INTENT_PATTERNS, { intents: { conversation: { keywords: { howdy: 3 } } } });
 * ```
 *
 */
export function mergeIntentPatterns(...configs: IntentPatternConfigInput[]): IntentPatternConfig {
  const parsed = configs.map((c) => IntentPatternConfigSchema.parse(c));
  const intents: IntentPatternConfig["intents"] = {};
  for (const config of parsed) {
    for (const intent of INTENTS) {
      const rules = config.intents[intent];
      if (!rules) continue;
      const current = intents[intent] ?? { keywords: {}, phrases: {}, regex: [] };
      intents[intent] = {
        keywords: { ...current.keywords, ...rules.keywords },
        phrases: { ...current.phrases, ...rules.phrases },
        regex: [...current.regex, ...rules.regex],
      };
    }
  }
  const last = parsed.at(-1);
  return { version: 1, intents, fastPath: last ? last.fastPath : { minScore: 4, minMargin: 3 } };
}
