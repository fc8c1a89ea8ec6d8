/**
 * A streamed answer cut mid-way (after tokens were sent) restarts instead of failing: the client
 * is told through a progress message, the stream runs again, and the answer it gets is complete.
 * Through the real Flowise adapter against the local reproduction.
 */
import type { UniversalQueryResult } from "@afw/contracts";
import { startFlowiseServer, type MockPlatformServer } from "@afw/backends/test/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseResult, startTestGateway } from "../test/helpers.js";

const FLOW = "f0000000-0000-4000-8000-00000000c0de";
const ANSWER = "one two three four five six seven eight nine ten [end]";

let flowise: MockPlatformServer;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  flowise = await startFlowiseServer({ flows: [{ id: FLOW, name: "Chat", answer: ANSWER }], tokenDelayMs: 5 });
  gateway = await startTestGateway({
    config: {
      backends: [{ id: "flowise", kind: "flowise", baseURL: flowise.url, flows: [{ id: FLOW, intents: ["conversation"], generalPurpose: true }] }],
      cache: { enabled: false },
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await flowise?.close();
});

const streamed = async (question: string) => {
  const progress: string[] = [];
  const raw = await gateway.client.callTool({ name: "universal_query", arguments: { question, parameters: { stream: true } } }, undefined, {
    onprogress: (p) => void progress.push(p.message ?? ""),
  });
  return { reply: parseResult<UniversalQueryResult>(raw), progress };
};

describe("a stream cut mid-way", () => {
  it("restarts and serves the complete answer (connection dropped after 4 tokens)", async () => {
    flowise.setFaults([{ route: "run", dropAfterTokens: 4, times: 1 }]);
    const { reply, progress } = await streamed("tell me a story");
    expect(reply.isError).toBe(false);
    expect(reply.body.result).toBe(ANSWER);
    expect(reply.body._mcp_metadata.attempt).toBeGreaterThanOrEqual(2);
    const text = progress.join("");
    expect(text).toContain("[fallback: the answer restarts]");
    expect(text.slice(text.lastIndexOf("[fallback: the answer restarts]\n") + "[fallback: the answer restarts]\n".length)).toBe(ANSWER);
  });

  it("restarts when the stream ends cleanly without its end event", async () => {
    flowise.setFaults([{ route: "run", endAfterTokens: 3, times: 1 }]);
    const { reply } = await streamed("tell me another story");
    expect(reply.isError).toBe(false);
    expect(reply.body.result).toBe(ANSWER);
  });

  it("gives up with a typed error when every restart is cut too", async () => {
    flowise.setFaults([{ route: "run", dropAfterTokens: 2 }]);
    const { reply } = await streamed("a story that never ends");
    expect(reply.isError).toBe(true);
    expect((reply.body as unknown as { code: string }).code).toMatch(/^BACKEND_|ALL_BACKENDS_FAILED/);
    flowise.clearFaults();
  });
});
