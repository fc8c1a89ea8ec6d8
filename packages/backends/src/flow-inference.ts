import type { Intent } from "@afw/contracts";

/** What {@link inferFlowIntents} looks at. Every field is optional. */
export interface FlowInferenceInput {
  /** Flow name, e.g. "Docs QA (RAG)". */
  name?: string | undefined;
  description?: string | undefined;
  /** Flowise `category` split on `;`, Langflow `tags`. */
  tags?: readonly string[] | undefined;
  /** Flowise `type` (`CHATFLOW`, `AGENTFLOW`, `MULTIAGENT`, `ASSISTANT`) or a Langflow equivalent. */
  flowType?: string | undefined;
  /** Node/component names or categories found in the flow graph (e.g. `Vector Stores`, `ChatOpenAI`, `Agent`). */
  nodeHints?: readonly string[] | undefined;
}

/** What {@link inferFlowIntents} concluded. */
export interface FlowInference {
  /** Matching intents, best first; `["conversation"]` when nothing matched. */
  intents: Intent[];
  /** E.g. `rag`, `agent`, `tools`, `memory`. */
  capabilities: string[];
  /** The words that matched, for explanations and keyword routing. */
  keywords: string[];
  /** True when nothing specific matched, or the flow's name or tags present it as a catch-all (`general`, `default`, `fallback`, `catch-all`, `universal`, `generic`, `all-purpose`). */
  generalPurpose: boolean;
}

/** Keyword stems per intent. A stem matches a word that starts with it. */
const INTENT_KEYWORDS: Record<Intent, readonly string[]> = {
  "rag-retrieval": ["rag", "retriev", "document", "docs", "knowledge", "kb", "qa", "faq", "pdf", "vector", "search", "cite", "citation", "source", "lookup", "manual", "handbook", "wiki", "embedding"],
  "technical-analysis": ["code", "coding", "coder", "debug", "bug", "program", "developer", "dev", "technical", "tech", "api", "engineer", "devops", "stacktrace", "error", "typescript", "python", "javascript", "review"],
  "structural-thinking": ["architect", "design", "structur", "system", "plan", "planning", "diagram", "organi", "process", "roadmap", "strategy", "framework", "decompos"],
  "creative-orientation": ["creative", "creativ", "story", "stories", "write", "writer", "writing", "poem", "poet", "brainstorm", "vision", "idea", "ideation", "imagin", "marketing", "copywrit", "content", "fiction", "song"],
  "data-processing": ["data", "csv", "json", "etl", "transform", "sql", "analytic", "spreadsheet", "excel", "clean", "extract", "parse", "table", "aggregat", "report", "pipeline"],
  conversation: ["chat", "chatbot", "assistant", "conversation", "conversational", "general", "companion", "helper", "bot", "talk", "smalltalk", "support"],
};

/** Words in a flow's name or tags that present it as a catch-all, whatever else it names. */
const GENERAL_PURPOSE_WORDS = new Set(["general", "default", "fallback", "catchall", "universal", "generic"]);

/** Node categories / names that imply a capability (and sometimes an intent). */
const NODE_HINTS: ReadonlyArray<{ pattern: RegExp; capability: string; intent?: Intent }> = [
  { pattern: /vector ?stores?|retriever|document ?loaders?|embeddings?|astra|chroma|pinecone|qdrant|faiss|weaviate|pgvector|retrieval/i, capability: "rag", intent: "rag-retrieval" },
  { pattern: /^agents?$|agent|multi ?agents?|sequential ?agents?|supervisor|worker/i, capability: "agent" },
  { pattern: /^tools?$|tool|calculator|serp|search ?api|custom ?tool|mcp/i, capability: "tools" },
  { pattern: /memory|chat ?history|buffer/i, capability: "memory" },
  { pattern: /file|upload|pdf|csv ?file|audio|image/i, capability: "uploads" },
  { pattern: /csv|json ?agent|sql|dataframe|structured ?output/i, capability: "data", intent: "data-processing" },
];

const FLOW_TYPE_CAPABILITIES: Record<string, readonly string[]> = {
  AGENTFLOW: ["agent"],
  MULTIAGENT: ["agent", "multi-agent"],
  ASSISTANT: ["agent", "tools", "assistant"],
};

function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * Infers routing intents and capabilities of a flow from its name, description, tags/category, platform flow type and
 * node hints with a small keyword table.
 * @example
 * ```ts
 * inferFlowIntents({ name: "Docs QA", tags: ["RAG"] }).intents // ["rag-retrieval"]
 * inferFlowIntents({ name: "Helper", flowType: "AGENTFLOW" }).capabilities // ["agent"]
 * ```
 */
export function inferFlowIntents(input: FlowInferenceInput): FlowInference {
  const scores = new Map<Intent, number>();
  const keywords = new Set<string>();
  const capabilities = new Set<string>();
  const add = (intent: Intent, weight: number) => scores.set(intent, (scores.get(intent) ?? 0) + weight);

  const sources: Array<[string, number]> = [
    [input.name ?? "", 3],
    [(input.tags ?? []).join(" "), 3],
    [input.description ?? "", 1],
  ];
  for (const [text, weight] of sources) {
    for (const word of words(text)) {
      for (const [intent, stems] of Object.entries(INTENT_KEYWORDS) as Array<[Intent, readonly string[]]>) {
        if (stems.some((stem) => (stem.length <= 3 ? word === stem : word.startsWith(stem)))) {
          add(intent, weight);
          keywords.add(word);
        }
      }
    }
  }

  for (const hint of input.nodeHints ?? []) {
    for (const rule of NODE_HINTS) {
      if (rule.pattern.test(hint)) {
        capabilities.add(rule.capability);
        if (rule.intent) add(rule.intent, 1);
      }
    }
  }

  const flowType = input.flowType?.toUpperCase();
  for (const capability of (flowType && FLOW_TYPE_CAPABILITIES[flowType]) || []) capabilities.add(capability);
  if (scores.has("rag-retrieval")) capabilities.add("rag");

  const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([intent]) => intent);
  const specific = ranked.filter((intent) => intent !== "conversation");
  const intents: Intent[] = ranked.length > 0 ? ranked : ["conversation"];
  const nameWords = words([input.name ?? "", ...(input.tags ?? [])].join(" "));
  const presentsAsGeneral = nameWords.some((word, i) => GENERAL_PURPOSE_WORDS.has(word) || (word === "catch" && nameWords[i + 1] === "all"));
  const generalPurpose = specific.length === 0 || presentsAsGeneral;
  if (generalPurpose && !intents.includes("conversation")) intents.push("conversation");
  return { intents, capabilities: [...capabilities].sort(), keywords: [...keywords], generalPurpose };
}
