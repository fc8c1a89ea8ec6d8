// What a downstream server says about itself at initialize (its `serverInfo.title` and `instructions`) reaches the tool
// index: two servers with the same tools, a task that names only one server's title.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, startTestGateway } from "../test/helpers.js";

const FIXTURE = fileURLToPath(new URL("../test/fixtures/downstream-server.mjs", import.meta.url));

const mathServer = (name: string, env: Record<string, string> = {}) => ({
  name,
  transport: "stdio" as const,
  command: process.execPath,
  args: [FIXTURE],
  env: { FIXTURE_NAME: name, FIXTURE_TOOLS: "math", ...env },
  pingIntervalMs: 0,
});

describe("downstream servers' title and instructions in tool search", () => {
  let harness: Awaited<ReturnType<typeof startTestGateway>>;
  beforeAll(async () => {
    harness = await startTestGateway({
      config: {
        downstream: {
          servers: [
            // alphabetically first: without what "ledger" says about itself, its identical tools would rank second
            mathServer("calc"),
            mathServer("ledger", { FIXTURE_TITLE: "Household Budget Ledger", FIXTURE_INSTRUCTIONS: "Keeps a family's household budget." }),
          ],
          maxRestarts: 0,
        },
      },
    });
    await harness.gateway.downstream!.settled();
  });
  afterAll(async () => harness.close());

  it("ranks the server whose title the task names first", async () => {
    const found = await callTool<{ results: { id: string }[] }>(harness.client, "search_tools", { query: "add two amounts to the household budget", top_k: 3 });
    expect(found.isError).toBe(false);
    expect(found.body.results[0]?.id).toBe("ledger/add");
  });

  it("keeps ranking by the tools alone when the task names no server", async () => {
    const found = await callTool<{ results: { id: string }[] }>(harness.client, "search_tools", { query: "add two numbers", top_k: 4 });
    expect(found.body.results.slice(0, 2).map((hit) => hit.id).sort()).toEqual(["calc/add", "ledger/add"]);
  });
});
