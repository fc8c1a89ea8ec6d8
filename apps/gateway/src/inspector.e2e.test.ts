import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const inspector = fileURLToPath(new URL("../node_modules/.bin/mcp-inspector", import.meta.url));

// The official MCP Inspector in CLI mode, talking to the built gateway over stdio.
describe("MCP Inspector (--cli) against the gateway", () => {
  it("lists the gateway's tools", async () => {
    const { stdout } = await run(inspector, ["--cli", process.execPath, cli, "serve", "--stdio", "--method", "tools/list"], { timeout: 60_000 });
    const names = (JSON.parse(stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["universal_query", "explain_routing", "search_tools", "get_playbook_details"]));
  });

  it("calls a tool with arguments and gets its JSON result", async () => {
    const { stdout } = await run(
      inspector,
      ["--cli", process.execPath, cli, "serve", "--stdio", "--method", "tools/call", "--tool-name", "explain_routing", "--tool-arg", "question=How do I parse a CSV file and sum a column per customer?"],
      { timeout: 60_000 },
    );
    const result = JSON.parse(stdout) as { isError?: boolean; content: Array<{ text: string }> };
    expect(result.isError).not.toBe(true);
    const body = JSON.parse(result.content[0]!.text) as { classification: { intent: string } };
    expect(body.classification.intent).toBe("data-processing");
  });
});
