import { FLOWISE_VERSION, FlowiseSession, flowiseDir, startFlowise, startOpenAiStub, type LlmCall } from "@afw/testing";

/** The Flowise version the opt-in test runs. */
export { FLOWISE_VERSION };

/** A real Flowise with an OpenAI-compatible stub as its LLM, bootstrapped over REST. */
export interface RealFlowise {
  url: string;
  apiKey: string;
  ids: { memory: string; locked: string; deleted: string };
  llm: LlmCall[];
  deleteFlow(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts Flowise 3.1.2 from `AFW_FLOWISE_DIR` (default `~/.cache/afw-flowise-real/3.1.2`, installed
 * by `AFW_FLOWISE_REAL=1 pnpm --filter @afw/backends test:flowise-real`) on loopback with a fresh
 * database, and creates the scenario's chatflows from the marketplace "Conversation Chain".
 */
export async function startRealFlowise(): Promise<RealFlowise> {
  const dir = flowiseDir();
  const stub = await startOpenAiStub();
  const flowise = await startFlowise(dir).catch((error: unknown) => {
    stub.close();
    throw error;
  });
  const stop = async () => {
    stub.close();
    await flowise.close();
  };
  try {
    const rest = new FlowiseSession(flowise.url);
    const { apiKey } = await rest.bootstrap({ email: "afw-e2e@example.test", password: "Afw-E2e-Passw0rd!2026" });
    const create = (name: string, apiConfig?: unknown) => rest.createConversationChain(dir, { name, stubUrl: stub.url, streaming: true, apiConfig });
    const overrideTemperatureOnly = {
      overrideConfig: {
        status: true,
        nodes: {
          ChatOpenAI: [
            { label: "Temperature", name: "temperature", type: "number", enabled: true },
            { label: "Max Tokens", name: "maxTokens", type: "number", enabled: false },
          ],
        },
        variables: [],
      },
    };
    const ids = {
      memory: await create("AFW E2E memory chain", overrideTemperatureOnly),
      locked: await create("AFW E2E locked chain", undefined),
      deleted: await create("AFW E2E doomed chain", undefined),
    };
    return {
      url: flowise.url,
      apiKey,
      ids,
      llm: stub.calls,
      async deleteFlow() {
        await rest.call("DELETE", `/api/v1/chatflows/${ids.deleted}`);
      },
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
