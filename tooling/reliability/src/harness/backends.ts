import { startFlowiseServer, startLangflowServer, type MockFault, type MockFlowDefinition, type MockPlatformServer } from "@afw/backends/test/servers";
import type { BackendConfigInput } from "@afw/server";

/** Flow id of the chat flow both reproductions serve. */
export const CHAT_FLOW_ID = "c0000000-0000-4000-8000-000000000001";

/** Words of every answer, so a stream cut mid-way is always visible in the text. */
const ANSWER_WORDS = 24;

/**
 * The complete answer a healthy reproduction of `platform` gives to `question` at `turn` (1 for a question without
 * history): a fixed sentence of {@link ANSWER_WORDS} words closed by `[end]`.
 */
export function expectedAnswer(platform: "flowise" | "langflow", question: string, turn = 1): string {
  const words = Array.from({ length: ANSWER_WORDS }, (_, i) => `${platform}-w${i + 1}`).join(" ");
  return `${platform} answers "${question}" (turn ${turn}): ${words} [end]`;
}

function chatFlow(platform: "flowise" | "langflow"): MockFlowDefinition {
  return {
    id: CHAT_FLOW_ID,
    name: "Chat",
    description: "General conversation",
    tags: ["chat", "general"],
    answer: (input) => expectedAnswer(platform, input.question, input.history.filter((m) => m.role === "user").length + 1),
  };
}

/** A Flowise and a Langflow reproduction serving the same chat flow. */
export interface Backends {
  flowise: MockPlatformServer;
  langflow: MockPlatformServer;
  /** Gateway backend entries for both (ids `flowise` and `langflow`), with `overrides` merged in by id. */
  configs(overrides?: Partial<Record<"flowise" | "langflow", Partial<BackendConfigInput>>>): BackendConfigInput[];
  close(): Promise<void>;
}

/** Starts both reproductions on loopback; `flowiseFaults` are injected into the Flowise one (fault RNG seed 7). */
export async function startBackends(options: { flowiseFaults?: MockFault[] } = {}): Promise<Backends> {
  const flowise = await startFlowiseServer({ seed: 7, flows: [chatFlow("flowise")], faults: options.flowiseFaults ?? [] });
  const langflow = await startLangflowServer({ seed: 7, flows: [chatFlow("langflow")] });
  const entry = (id: "flowise" | "langflow", baseURL: string): BackendConfigInput => ({
    id,
    kind: id,
    baseURL,
    // Generous: these fakes answer at once, and a loaded machine must not turn a slow turn of the event loop into a
    // backend timeout (a failure, a fallback, a circuit count). Suites that test timeouts set their own.
    requestTimeoutMs: 15_000,
    flows: [{ id: CHAT_FLOW_ID, name: "Chat", intents: ["conversation", "rag-retrieval", "technical-analysis", "structural-thinking", "creative-orientation", "data-processing"], generalPurpose: true }],
  });
  return {
    flowise,
    langflow,
    configs(overrides = {}) {
      return [
        { ...entry("flowise", flowise.url), ...overrides.flowise },
        { ...entry("langflow", langflow.url), ...overrides.langflow },
      ];
    },
    async close() {
      await Promise.all([flowise.close(), langflow.close()]);
    },
  };
}

