import { emitTrace, INTENTS, type Intent, type IntentClassification } from "@afw/contracts";
import type { IntentClassifierPort } from "./ports.js";

/** Built-in keyword patterns per intent (English, with a few common words of es/fr/de/pt). */
export const BUILT_IN_INTENT_PATTERNS: Readonly<Record<Intent, readonly string[]>> = {
  "technical-analysis": [
    "\\b(error|errors|exception|stack ?trace|traceback|bug|bugs|debug\\w*|crash\\w*|segfault|compil\\w+|null pointer|undefined is not)\\b",
    "\\b(code|function|method|class|typescript|javascript|python|java|rust|golang|npm|pip|library|api|sdk|regex|refactor\\w*|unit test\\w*|memory leak)\\b",
    "\\b(fehler|erreur|código|codigo)\\b",
  ],
  "structural-thinking": [
    "\\b(architecture|architect\\w*|system design|design (a|the|our) (system|service|platform)|microservices?|monolith\\w*|modular\\w*|design patterns?)\\b",
    "\\b(trade-?offs?|structure|structuring|organi[sz]e|organi[sz]ing|domain model\\w*|layers?|layering|scalab\\w+|component diagram|bounded context)\\b",
    "\\b(arquitectura|architektur)\\b",
  ],
  "creative-orientation": [
    "\\b(vision|envision\\w*|imagine|dream\\w*|goals?|aspir\\w+|desired (outcome|result|future)|what i want to create)\\b",
    "\\b(creative|creativity|story|stories|poem|poetry|novel|lyrics|brainstorm\\w*|art project|painting|screenplay)\\b",
    "\\b(sueño|rêve|traum|visión)\\b",
  ],
  conversation: [
    "^(hi|hello|hey|good (morning|afternoon|evening)|thanks|thank you)\\b",
    "\\b(how are you|what do you think|tell me a joke|your opinion|recommend a (movie|book)|small talk|weekend plans?)\\b",
    "\\b(hola|bonjour|hallo|olá|obrigad[oa]|gracias|merci|danke)\\b",
  ],
  "rag-retrieval": [
    "\\b(documents?|documentation|docs|policy|policies|knowledge base|handbook|manual|wiki|according to|cite|citations?|sources?)\\b",
    "\\b(look ?up|find (the|in|where)|search (the|our)|retrieve|what does (our|the) \\w+ say|summari[sz]e (the|our|these|this) (documents?|reports?|files?))\\b",
  ],
  "data-processing": [
    "\\b(csv|json|xml|parquet|sql|etl|dataset|data ?frame|spreadsheet|excel|columns?|rows?|group by|aggregat\\w+|pivot|dedup\\w*)\\b",
    "\\b(transform\\w*|clean(ing)? (the |this |my )?data|convert\\w*|pars(e|ing) (the |this )?(file|log|data)|pipeline|normali[sz]e (the )?data)\\b",
  ],
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Regular-expression sources of configured intent patterns (`routing.intentPatterns`): lists are
 * used as is; rule objects contribute their regexes, keywords (`word`, `prefix*`) and phrases.
 */
export function intentPatternSources(
  patterns: Partial<Record<Intent, readonly string[] | { keywords?: Record<string, number>; phrases?: Record<string, number>; regex?: { pattern: string }[] }>>,
): Partial<Record<Intent, string[]>> {
  const out: Partial<Record<Intent, string[]>> = {};
  for (const [intent, entry] of Object.entries(patterns) as [Intent, (typeof patterns)[Intent]][]) {
    if (!entry) continue;
    if (Array.isArray(entry)) {
      out[intent] = [...entry];
      continue;
    }
    const rules = entry as { keywords?: Record<string, number>; phrases?: Record<string, number>; regex?: { pattern: string }[] };
    out[intent] = [
      ...(rules.regex ?? []).map((r) => r.pattern),
      ...Object.keys(rules.keywords ?? {}).map((word) => (word.endsWith("*") ? `\\b${escapeRegExp(word.slice(0, -1))}\\w*` : `\\b${escapeRegExp(word)}\\b`)),
      ...Object.keys(rules.phrases ?? {}).map((phrase) => `\\b${escapeRegExp(phrase).replace(/\s+/g, "\\s+")}\\b`),
    ];
  }
  return out;
}

/** Options of {@link createBasicIntentClassifier}. */
export interface BasicIntentClassifierOptions {
  /** Extra patterns per intent, added to {@link BUILT_IN_INTENT_PATTERNS}. */
  patterns?: Partial<Record<Intent, readonly string[]>>;
  /** Intent returned when nothing matches. @default "conversation" */
  defaultIntent?: Intent;
}

/**
 * A fast keyword classifier: counts pattern matches per intent; confidence grows with the number
 * of matches and their share of all matches. Nothing matched: the default intent with confidence
 * 0 (`method: "default"`). It is the server's built-in fallback; `@afw/router`'s hybrid
 * classifier is the accurate one.
 *
 * @example
 * ```ts
 * const classifier = createBasicIntentClassifier();
 * (await classifier.classify("Why does this stack trace show a null pointer?")).intent; // "technical-analysis"
 * ```
 */
export function createBasicIntentClassifier(options: BasicIntentClassifierOptions = {}): IntentClassifierPort {
  const compiled = INTENTS.map((intent) => ({
    intent,
    patterns: [...BUILT_IN_INTENT_PATTERNS[intent], ...(options.patterns?.[intent] ?? [])].map((source) => new RegExp(source, "giu")),
  }));
  const defaultIntent = options.defaultIntent ?? "conversation";
  return {
    async classify(question, classifyOptions): Promise<IntentClassification> {
      const started = performance.now();
      const counts = compiled.map(({ intent, patterns }) => {
        let matches = 0;
        for (const pattern of patterns) {
          pattern.lastIndex = 0;
          matches += question.match(pattern)?.length ?? 0;
        }
        return { intent, matches };
      });
      const total = counts.reduce((sum, c) => sum + c.matches, 0);
      let result: IntentClassification;
      if (total === 0) {
        result = { intent: defaultIntent, confidence: 0, method: "default", alternatives: [] };
      } else {
        const ranked = counts.filter((c) => c.matches > 0).sort((a, b) => b.matches - a.matches);
        const confidenceOf = (matches: number) => Number(((1 - Math.exp(-1.2 * matches)) * (matches / total)).toFixed(4));
        const [top, ...rest] = ranked;
        result = {
          intent: top!.intent,
          confidence: confidenceOf(top!.matches),
          method: "pattern",
          alternatives: rest.map((c) => ({ intent: c.intent, confidence: confidenceOf(c.matches) })),
        };
      }
      emitTrace(classifyOptions?.trace, "intent-classified", {
        intent: result.intent,
        confidence: result.confidence,
        method: result.method,
        alternatives: result.alternatives,
        durationMs: performance.now() - started,
      });
      return result;
    },
  };
}
