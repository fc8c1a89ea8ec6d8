import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChroma, type ChromaServerHandle } from "@afw/testing";
import { callTool, startTestGateway } from "../test/helpers.js";

// `chroma.url` in the gateway config puts the tool vectors in a real Chroma server.
describe("search_tools backed by a real Chroma server", () => {
  let chroma: ChromaServerHandle;
  const dir = mkdtempSync(join(tmpdir(), "afw-chroma-tools-"));
  const catalog = join(dir, "tools.json");

  beforeAll(async () => {
    chroma = await startChroma();
    writeFileSync(
      catalog,
      JSON.stringify({
        tools: [
          { id: "github/merge_pull_request", server: "github", name: "merge_pull_request", description: "Merge a pull request in a GitHub repository", inputSchema: { type: "object" } },
          { id: "slack/slack_post_message", server: "slack", name: "slack_post_message", description: "Post a new message to a Slack channel", inputSchema: { type: "object" } },
          { id: "time/get_current_time", server: "time", name: "get_current_time", description: "Get the current time in a specific timezone", inputSchema: { type: "object" } },
        ],
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await chroma?.stop();
  });

  it("indexes the catalog into the configured collection and answers search_tools from it", async () => {
    const { client, gateway, close } = await startTestGateway({
      config: { chroma: { url: chroma.url, collectionPrefix: "afwtest" }, tools: { catalogs: [catalog], embedder: "hashing" } },
    });
    try {
      await gateway.toolSearch.vectorsReady?.(); // vectors are computed in the background
      const found = await callTool<{ results: Array<{ id: string }> }>(client, "search_tools", { query: "post a message to the team channel in slack", mode: "semantic" });
      expect(found.isError).toBe(false);
      expect(found.body.results[0]?.id).toBe("slack/slack_post_message");
      // the vectors really are in Chroma (REST API v2), not in process
      const collections = `${chroma.url}/api/v2/tenants/default_tenant/databases/default_database/collections`;
      const collection = (await (await fetch(`${collections}/afwtest-tools`)).json()) as { id: string };
      const count = (await (await fetch(`${collections}/${collection.id}/count`)).json()) as number;
      expect(count).toBeGreaterThanOrEqual(3);
    } finally {
      await close();
    }
  });
});
