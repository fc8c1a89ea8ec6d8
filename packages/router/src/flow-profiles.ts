import { INTENTS, type Intent, type UniversalFlow } from "@afw/contracts";
import { compileIntentPatterns, type IntentPatternMatcher } from "./intent-patterns.js";
import { foldText, splitWords } from "./text-normalization.js";

/** Flow-description words that point to an intent, on top of the question patterns. */
const FLOW_WORDS: Record<Intent, Record<string, number>> = {
  "creative-orientation": { creative: 3, writer: 2.5, writing: 2, story: 2.5, storyteller: 3, vision: 3, brainstorm: 2.5, ideation: 3, poet: 3, muse: 2, goals: 1.5 },
  "technical-analysis": { code: 3, coder: 3, coding: 3, debugger: 3, debug: 3, developer: 2, programming: 3, devops: 1.5, engineer: 1.5, review: 1, sql: 0.5 },
  "structural-thinking": { architect: 3, architecture: 3, design: 1.5, planner: 2, planning: 1.5, structure: 2.5, systems: 1.5, modeling: 2, modelling: 2 },
  conversation: { chat: 2, chatbot: 2.5, assistant: 1.5, companion: 2.5, smalltalk: 3, conversational: 3, general: 1, faq: 0.5 },
  "rag-retrieval": { rag: 3, retrieval: 3, qa: 2, knowledge: 2.5, docs: 2.5, document: 2.5, documents: 2.5, pdf: 2.5, search: 2, vector: 2, handbook: 2.5, policy: 2, wiki: 2.5, citations: 2.5 },
  "data-processing": { etl: 3, data: 2, csv: 3, sql: 2.5, analytics: 2.5, transform: 2.5, pipeline: 1.5, spreadsheet: 3, excel: 3, json: 1.5, cleaning: 2.5, extraction: 1.5 },
};

const GENERAL_WORDS = new Set(["general", "default", "assistant", "catch-all", "catchall", "fallback", "universal", "all-purpose", "generic"]);

let flowMatcher: IntentPatternMatcher | undefined;

/** Infers the intents of a flow from its name, description, category and tags, best first (only intents with a clear signal). */
export function inferFlowIntents(flow: { name: string; description?: string | undefined; category?: string | undefined; tags?: readonly string[] | undefined }): Intent[] {
  flowMatcher ??= compileIntentPatterns({
    intents: Object.fromEntries(INTENTS.map((intent) => [intent, { keywords: FLOW_WORDS[intent] }])),
  });
  const text = [flow.name.replace(/[-_]+/g, " "), flow.description ?? "", flow.category ?? "", ...(flow.tags ?? [])].join(". ");
  const { scores } = flowMatcher.score(text);
  const best = Math.max(...scores);
  if (best < 1.5) return [];
  return INTENTS.map((intent, i) => ({ intent, score: scores[i]! }))
    .filter((e) => e.score >= 1.5 && e.score >= best * 0.5)
    .sort((a, b) => b.score - a.score || INTENTS.indexOf(a.intent) - INTENTS.indexOf(b.intent))
    .map((e) => e.intent);
}

/** True when a flow looks like a catch-all (`general`, `default`, `assistant`, ... */
export function looksGeneralPurpose(flow: { name: string; tags?: readonly string[] | undefined }): boolean {
  const words = splitWords(foldText([flow.name.replace(/[-_]+/g, " "), ...(flow.tags ?? [])].join(" ")));
  return words.some((w) => GENERAL_WORDS.has(w));
}

/** A flow with everything routing needs precomputed. */
export interface FlowProfile {
  flow: UniversalFlow;
  /** Intents, best first (the flow's own, else inferred). */
  intents: Intent[];
  /** Bit i set when `INTENTS[i]` is among `intents`. */
  intentMask: number;
  /** Index of the primary intent in {@link INTENTS}, or -1. */
  primaryIntentIndex: number;
  /** Folded keywords. */
  keywords: ReadonlySet<string>;
  generalPurpose: boolean;
}

/** Builds the routing profile of a flow: its declared intents, else {@link inferFlowIntents}. */
export function buildFlowProfile(flow: UniversalFlow): FlowProfile {
  const category = typeof flow.metadata?.category === "string" ? flow.metadata.category : undefined;
  const intents = flow.intents.length > 0 ? flow.intents : inferFlowIntents({ name: flow.name, description: flow.description, category, tags: flow.tags });
  let intentMask = 0;
  for (const intent of intents) intentMask |= 1 << INTENTS.indexOf(intent);
  const keywords = new Set<string>();
  for (const k of flow.keywords) for (const w of splitWords(foldText(k))) if (w.length > 2) keywords.add(w);
  return {
    flow,
    intents,
    intentMask,
    primaryIntentIndex: intents.length ? INTENTS.indexOf(intents[0]!) : -1,
    keywords,
    generalPurpose: flow.generalPurpose || looksGeneralPurpose(flow),
  };
}
