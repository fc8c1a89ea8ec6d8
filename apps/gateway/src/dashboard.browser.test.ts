/**
 * The operator dashboard of a real gateway (local sample Flowise and Langflow backends, in-memory
 * stores) in Debian's Chromium driven by playwright-core: both backends shown, a query sent
 * through MCP appears in the live feed, a failing backend's fallback is shown, and the cache is
 * cleared from the page. Skipped with a message when Chromium is not installed.
 */
import { existsSync, mkdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startHttpTransport, type HttpTransportHandle } from "@afw/server";
import { startDemoGateway } from "./commands/demo.js";

const CHROMIUM = process.env["AFW_CHROMIUM_PATH"] ?? "/usr/bin/chromium";
const OUTPUT = fileURLToPath(new URL("../test-output/", import.meta.url));
if (!existsSync(CHROMIUM)) console.warn(`[@afw/gateway] dashboard browser test skipped: ${CHROMIUM} not found. Install Debian's chromium (apt-get install chromium) or set AFW_CHROMIUM_PATH.`);

describe.skipIf(!existsSync(CHROMIUM))("gateway dashboard in Chromium", () => {
  let demo: Awaited<ReturnType<typeof startDemoGateway>>;
  let http: HttpTransportHandle;
  let client: Client;
  let context: BrowserContext;
  let userDataDir: string;
  let page: Page;
  const problems: string[] = [];
  const base = () => http.url.replace(/\/mcp$/, "");

  async function ask(question: string, extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const result = (await client.callTool({ name: "universal_query", arguments: { question, ...extra } })) as { content: Array<{ text: string }> };
    return JSON.parse(result.content[0]!.text);
  }

  beforeAll(async () => {
    demo = await startDemoGateway();
    http = await startHttpTransport(demo.gateway, { port: 0 });
    client = new Client({ name: "dashboard-e2e", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    userDataDir = await mkdtemp(join(tmpdir(), "afw-gateway-chromium-"));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
      viewport: { width: 1360, height: 1000 },
    });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => problems.push(`console ${message.type()}: ${message.text()}`));
    await page.goto(`${base()}/dashboard`);
    try {
      await page.waitForSelector('#live-status[data-state="live"]');
    } catch (error) {
      throw new Error(`dashboard did not go live: ${problems.join(" | ")} | status=${await page.locator("#live-status").getAttribute("data-state")}`, { cause: error });
    }
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await client?.close();
    await http?.close();
    await demo?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
  });

  it("shows both backends", async () => {
    await page.waitForSelector('.backend-card[data-backend-id="flowise"]');
    await page.waitForSelector('.backend-card[data-backend-id="langflow"]');
    expect(await page.locator(".backend-card").count()).toBe(2);
  });

  it("shows a query sent through MCP in the live feed", async () => {
    const answer = await ask("Our React app throws 'Maximum update depth exceeded' after the refactor, how do I debug it?");
    const traceId = answer["_mcp_metadata"]["trace_id"] as string;
    const row = page.locator(`#feed-list > li[data-trace-id="${traceId}"]`);
    await row.waitFor();
    expect(await row.locator(".feed-question").textContent()).toContain("Maximum update depth exceeded");
  });

  it("shows the fallback when the chosen backend fails", async () => {
    // An explicit intent: a low-confidence classification would hedge (both backends at once), and a hedged partner's
    // answer is reported as fallback_reason "hedge", which the feed does not count as a fallback.
    const technical = { intent: "technical-analysis" };
    const probe = await ask("Why does my Rust build fail with a borrow checker error in the parser module?", technical);
    const failing = probe["_mcp_metadata"]["backend_used"] === "langflow" ? demo.langflow : demo.flowise;
    failing.setFaults([{ route: "run", status: 503, message: "overloaded" }]);
    try {
      const answer = await ask("My Go service leaks goroutines under load; how do I find where?", technical);
      expect(answer["_mcp_metadata"]["fallback_used"]).toBe(true);
      const row = page.locator(`#feed-list > li[data-trace-id="${answer["_mcp_metadata"]["trace_id"]}"]`);
      await row.locator(".fallback-badge").waitFor();
      expect(await row.locator(".fallback-badge").textContent()).toMatch(/^fallback/);
    } finally {
      failing.clearFaults();
    }
  });

  it("clears the cache from the page, and the next repeat is a miss", async () => {
    const question = "What does the handbook say about expense reports? Cite the section.";
    await ask(question);
    expect((await ask(question))["_mcp_metadata"]["cache_hit"]).toBe(true);
    await page.reload();
    await page.waitForSelector('#live-status[data-state="live"]');
    await page.getByRole("button", { name: "Clear all" }).click();
    await page.locator("#confirm-dialog").getByRole("button", { name: "Clear" }).click();
    await page.waitForFunction(() => (globalThis as any).document.getElementById("cache-status")?.textContent?.startsWith("Removed"));
    expect((await ask(question))["_mcp_metadata"]["cache_hit"]).toBe(false);
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, "gateway-dashboard.png"), fullPage: true });
    expect(problems).toEqual([]);
  });
});
