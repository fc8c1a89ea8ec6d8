/**
 * Real-browser tests: Debian's Chromium driven by playwright-core against a `node:http` server
 * that mounts the dashboard with an in-memory source. Skipped (with a message) when Chromium is
 * not installed; CI installs it (`apt-get install chromium`).
 */
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDashboard } from "../src/index.js";
import { buildQueryTrace, createInMemoryDashboardSource, createSampleDashboardSource, type InMemoryDashboardSource } from "../src/testing.js";
import { CHROMIUM_PATH, HAS_CHROMIUM, launchChromium, type ChromiumSession } from "./chromium.js";
import { startDashboardServer, type DashboardServer } from "./harness.js";

const OUTPUT_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "test-output");
// Page-side callbacks (evaluate/waitForFunction) run in the browser; this package's tsconfig has no
// DOM lib, so the few browser globals they use are declared loosely here.
type DomElement = any;
declare const document: any;
declare const getComputedStyle: (element: DomElement) => any;
declare const Node: { TEXT_NODE: number };

const HOSTILE = `<img src=x onerror="document.title='pwned'">`;

if (!HAS_CHROMIUM) {
  console.warn(`[@afw/dashboard] browser tests skipped: ${CHROMIUM_PATH} not found. Install Debian's chromium (apt-get install chromium) or set AFW_CHROMIUM_PATH.`);
}

describe.skipIf(!HAS_CHROMIUM)("dashboard in Chromium", () => {
  let context: BrowserContext;
  let browser: ChromiumSession | undefined;
  let server: DashboardServer;
  let source: InMemoryDashboardSource;
  const pageProblems: string[] = [];
  const pages: Page[] = [];

  beforeAll(async () => {
    browser = await launchChromium({ profilePrefix: "afw-dashboard-chromium-", viewport: { width: 1360, height: 1000 } });
    context = browser.context;
    context.setDefaultTimeout(10_000);
    source = createSampleDashboardSource();
    server = await startDashboardServer({ source });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close();
    // every page must run without script errors, CSP or Trusted Types violations
    expect(pageProblems.splice(0)).toEqual([]);
  });

  async function openPage(url: string): Promise<Page> {
    const page = await context.newPage();
    pages.push(page);
    page.on("pageerror", (error) => pageProblems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" && !/status of (401|501)/.test(message.text())) pageProblems.push(`console: ${message.text()}`);
    });
    await page.goto(url);
    return page;
  }

  async function openLive(): Promise<Page> {
    const page = await openPage(`${server.url}/dashboard`);
    await page.waitForSelector('#live-status[data-state="live"]');
    return page;
  }

  it("loads the page and shows both backends with health, circuit state and charts", async () => {
    const page = await openPage(`${server.url}/dashboard`);
    await expect.poll(() => page.locator(".backend-card").count()).toBe(2);
    const flowise = page.locator('.backend-card[data-backend-id="flowise-local"]');
    const langflow = page.locator('.backend-card[data-backend-id="langflow-local"]');
    expect(await flowise.locator(".badges").textContent()).toContain("Health: healthy");
    expect(await langflow.locator(".badges").textContent()).toContain("Circuit: half-open");
    expect(await flowise.locator(".figures").textContent()).toContain("610 ms");
    // sparklines: one per chart, labelled for assistive technology
    expect(await flowise.locator("svg.sparkline[role=img]").count()).toBe(4);
    expect(await flowise.locator("svg.sparkline").first().getAttribute("aria-label")).toMatch(/^flowise-local success rate: latest \d/);
    expect(await flowise.locator("svg.sparkline polyline").count()).toBeGreaterThan(0);
    // flows with intents, sessions, tool servers, the recent queries and the cache
    await page.waitForSelector('#flows-body tr[data-flow-id="langflow-local:chat"]');
    expect(await page.locator('#flows-body tr[data-flow-id="langflow-local:chat"] .chip').allTextContents()).toEqual(["conversation", "creative-orientation"]);
    await page.waitForSelector('#sessions-body details[data-session-id="ops-review-42"]');
    await page.waitForSelector('#tool-servers-body tr[data-server="memory"]');
    expect(await page.locator('#tool-servers-body tr[data-server="memory"]').textContent()).toContain("cold");
    await expect.poll(() => page.locator("#feed-list > li").count()).toBe(3);
    await page.waitForSelector("#cache-hit-rate");
    expect(await page.locator("#cache-hit-rate").textContent()).toBe("34.8%");
  });

  it("shows a new query live, with its fallback, and expands it into its trace events", async () => {
    const page = await openLive();
    await page.waitForSelector('#feed-list > li[data-trace-id="sample-direct"]');
    source.recordQuery(
      "Plan the migration of our billing service",
      buildQueryTrace({
        traceId: "live-fallback",
        intent: "structural-thinking",
        confidence: 0.74,
        candidates: [
          { backendId: "langflow-local", backendKind: "langflow", flowId: "langflow-local:architect", score: 0.81 },
          { backendId: "flowise-local", flowId: "flowise-local:code-helper", score: 0.66 },
        ],
        attempts: [
          { backendId: "langflow-local", flowId: "langflow-local:architect", outcome: "error", errorCode: "BACKEND_UNAVAILABLE", statusCode: 503, latencyMs: 45 },
          { backendId: "flowise-local", flowId: "flowise-local:code-helper", latencyMs: 280 },
        ],
      }),
    );
    const row = page.locator('#feed-list > li[data-trace-id="live-fallback"].row-answered');
    await row.waitFor();
    // newest first, in the live region
    expect(await page.locator("#feed-list > li").first().getAttribute("data-trace-id")).toBe("live-fallback");
    expect(await page.locator("#feed-list").getAttribute("aria-live")).toBe("polite");
    const summary = row.locator("summary");
    expect(await summary.textContent()).toContain("Plan the migration of our billing service");
    expect(await row.locator(".fallback-badge").textContent()).toBe("fallback ×1");
    expect(await row.locator(".feed-route").textContent()).toBe("flowise-local / code-helper");
    // expand with the keyboard
    await summary.focus();
    await page.keyboard.press("Enter");
    expect(await row.locator("details").evaluate((details) => (details as unknown as { open: boolean }).open)).toBe(true);
    await row.locator('.trace-event[data-event-type="fallback-triggered"]').waitFor();
    const types = await row.locator(".trace-event").evaluateAll((rows) => rows.map((element) => (element as unknown as { dataset: Record<string, string> }).dataset.eventType));
    expect(types).toEqual(["query-received", "cache-miss", "intent-classified", "routing-decided", "backend-call-start", "backend-call-end", "fallback-triggered", "backend-call-start", "backend-call-end", "query-answered"]);
    expect(await row.locator(".fallbacks li").textContent()).toBe("langflow-local / architect → flowise-local / code-helper because BACKEND_UNAVAILABLE");
    expect(await row.locator(".candidates tbody tr").count()).toBe(2);
    expect(await row.locator(".candidates tbody tr.chosen td").nth(3).textContent()).toBe("0.810");
    expect(await row.locator(".attempts li").first().textContent()).toContain("error BACKEND_UNAVAILABLE HTTP 503");
    await page.screenshot({ path: join(OUTPUT_DIR, "dashboard-feed.png") });
  });

  it("renders a hostile question as text, never as markup", async () => {
    const page = await openLive();
    source.recordQuery(HOSTILE, buildQueryTrace({ traceId: "hostile", attempts: [{ backendId: "flowise-local", flowId: "flowise-local:code-helper" }] }));
    const question = page.locator('#feed-list > li[data-trace-id="hostile"].row-answered .feed-question');
    await question.waitFor();
    expect(await question.textContent()).toBe(HOSTILE);
    expect(await page.locator("#feed-list img").count()).toBe(0);
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.title()).not.toBe("pwned");
  });

  it("searches tools and shows what search_tools returns, with scores", async () => {
    const page = await openPage(`${server.url}/dashboard`);
    await page.getByLabel("Search tools").fill("read a text file");
    await page.getByLabel("Search tools").press("Enter");
    const first = page.locator("#tool-search-results .tool-hit").first();
    await first.waitFor();
    expect(await first.getAttribute("data-tool-id")).toBe("filesystem/read_text_file");
    expect(await first.locator(".score").textContent()).toBe("1.000");
    const scores = (await page.locator("#tool-search-results .tool-hit .score").allTextContents()).map(Number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(await page.locator("#tool-search-status").textContent()).toMatch(/^\d+ results?, confidence 1\.00, mode keyword$/);
    expect(source.searchCalls).toContain("read a text file");
  });

  it("searches past turns from the history box, and shows the semantic cache's hit rate and guard rejections", async () => {
    const page = await openPage(`${server.url}/dashboard`);
    await page.getByLabel("Keywords").fill("incidents week");
    await page.getByLabel("Tag", { exact: true }).fill("team:ops");
    await page.getByLabel("Keywords").press("Enter");
    const hits = page.locator("#history-results .history-hit");
    await hits.first().waitFor();
    expect(await page.locator("#history-status").textContent()).toBe("1 turn found");
    expect(await hits.first().getAttribute("data-session-id")).toBe("ops-review-42");
    expect(await hits.first().locator(".turn-question").textContent()).toBe("Q: Summarise last week's incidents");
    expect(await hits.first().locator(".chip").allTextContents()).toEqual(["team:ops"]);
    // empty fields are left out; the tenant is the caller's (none here)
    expect(source.historyCalls.at(-1)).toEqual({ query: { text: "incidents week", tag: "team:ops", limit: 20 }, tenant: undefined });
    const semantic = page.locator("#semantic-cache");
    expect(await semantic.locator('[data-kpi="hit-rate"] dd').textContent()).toBe("25.8%");
    expect(await semantic.locator('[data-kpi="guard-rejections"] dd').textContent()).toBe("7");
  });

  it("clears the cache from the page through the confirmation dialog", async () => {
    const page = await openPage(`${server.url}/dashboard`);
    await page.waitForSelector('#cache-body tr[data-flow-id="flowise-local:code-helper"]');
    const dialog = page.locator("#confirm-dialog");
    // cancelling changes nothing
    await page.getByRole("button", { name: "Clear all" }).click();
    await dialog.waitFor({ state: "visible" });
    expect(await page.locator("#confirm-message").textContent()).toContain("every flow and session");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(await page.locator("#cache-status").textContent()).toBe("Nothing cleared.");
    expect(source.clearCacheCalls).toEqual([]);
    // clear one flow
    await page.getByLabel("Flow", { exact: true }).selectOption("flowise-local:code-helper");
    await page.getByRole("button", { name: "Clear flow" }).click();
    await dialog.waitFor({ state: "visible" });
    await page.screenshot({ path: join(OUTPUT_DIR, "dashboard-confirm.png") });
    await dialog.getByRole("button", { name: "Clear" }).click();
    await page.waitForFunction(() => document.getElementById("cache-status")?.textContent?.startsWith("Removed"));
    expect(await page.locator("#cache-status").textContent()).toBe("Removed 2 cached entries (flow flowise-local:code-helper).");
    // clear one session
    await page.getByLabel("Session id").fill("ops-review-42");
    await page.getByRole("button", { name: "Clear session" }).click();
    await dialog.getByRole("button", { name: "Clear" }).click();
    await page.waitForFunction(() => /^Removed .*session ops-review-42/.test(document.getElementById("cache-status")?.textContent ?? ""));
    expect(await page.locator("#cache-status").textContent()).toBe("Removed 1 cached entry (session ops-review-42).");
    // clear everything
    await page.getByRole("button", { name: "Clear all" }).click();
    await dialog.getByRole("button", { name: "Clear" }).click();
    await page.waitForFunction(() => /^Removed .*every flow/.test(document.getElementById("cache-status")?.textContent ?? ""));
    expect(source.clearCacheCalls).toEqual([{ flowId: "flowise-local:code-helper" }, { sessionId: "ops-review-42" }, { all: true }]);
    // the entries table was reloaded
    await expect.poll(() => page.locator('#cache-body tr[data-flow-id="flowise-local:code-helper"] .cache-entries').textContent()).toBe("0");
  });

  it("shows the Analytics panel with the source's numbers: totals, top flows, A/B arms, learned adjustments and the YAML proposal", async () => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    const page = await openPage(`${server.url}/dashboard`);
    await page.waitForSelector('#analytics[data-state="loaded"][data-range="24h"]');
    expect(await page.locator("#analytics").isVisible()).toBe(true);
    expect(await page.locator("#nav-analytics").isVisible()).toBe(true);
    const kpi = (key: string) => page.locator(`#analytics-totals [data-kpi="${key}"] dd`).textContent();
    expect(await kpi("queries")).toBe("412");
    expect(await kpi("success")).toBe("96.8%");
    expect(await kpi("cache-hit-rate")).toBe("31.2%");
    expect(await kpi("latency")).toBe("480 ms / 1.6 s");
    // top flows, most used first
    const flowRows = page.locator("#analytics-flows tbody tr");
    expect(await flowRows.evaluateAll((rows) => rows.map((row) => (row as unknown as { dataset: Record<string, string> }).dataset.flowId))).toEqual([
      "flowise-local:code-helper",
      "flowise-local:docs-qa",
      "langflow-local:architect",
      "langflow-local:chat",
    ]);
    expect(await flowRows.nth(2).locator("td").allTextContents()).toEqual(["74", "77.9%", "1.2 s", "4.9 s", "22 / 0", "12", "Analyse"]);
    // the A/B comparison, control against variant
    const experiment = page.locator('#analytics-experiments [data-experiment-id="hedge-structural"]');
    expect(await experiment.locator("h4").textContent()).toBe("hedge-structural · variant share 23.5%");
    expect(await experiment.locator('tr[data-arm="control"] td').allTextContents()).toEqual(["62", "85.5%", "1.2 s", "4.7 s", "29.0%", "+0.10 (6)"]);
    expect(await experiment.locator('tr[data-arm="variant"] td').allTextContents()).toEqual(["19", "94.7%", "760 ms", "2.1 s", "10.5%", "+0.50 (3)"]);
    // learned adjustments
    const learned = page.locator('#analytics-learned tr[data-flow-id="langflow-local:architect"] td');
    expect((await learned.allTextContents()).slice(0, 4)).toEqual(["-0.0912", "-0.1204", "86.40", "77.2%"]);
    // the proposals as YAML, copied to the clipboard
    const yaml = (await page.locator("#analytics-yaml").textContent()) ?? "";
    expect(yaml).toContain('    data-processing: # 14 questions\n      keywords:\n        "parquet": 2\n        "csv": 2\n');
    await page.getByRole("button", { name: "Copy YAML" }).click();
    await expect.poll(() => page.locator("#analytics-copy-status").textContent()).toBe("Copied.");
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(yaml);
    // one flow's analysis with its recommendation
    await page.getByRole("button", { name: "Analyse langflow-local:architect" }).click();
    const recommendation = page.locator('#analytics-flow-detail .flow-analysis[data-flow-id="langflow-local:architect"] .recommendation');
    await recommendation.waitFor();
    expect(await recommendation.textContent()).toContain("raise its timeout or demote it for structural-thinking");
    // another range
    await page.getByLabel("Range").selectOption("1h");
    await page.waitForSelector('#analytics[data-state="loaded"][data-range="1h"]');
    expect(await kpi("queries")).toBe("21");
    await page.getByLabel("Range").selectOption("24h");
    await page.waitForSelector('#analytics[data-state="loaded"][data-range="24h"]');
    // a CSV download of the metrics by backend, fetched with the page's headers
    await page.getByLabel("Export metrics by").selectOption("backend");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()]);
    expect(download.suggestedFilename()).toBe("afw-metrics-backend-24h.csv");
    const csv = await readFile(await download.path(), "utf8");
    expect(csv.split("\r\n").slice(0, 3)).toEqual(["group,queries,answered,success_rate,attempt_p95_ms", "flowise-local,289,286,,", "langflow-local,123,112,,"]);
    await expect.poll(() => page.locator("#analytics-export-status").textContent()).toMatch(/^Downloaded metrics by backend \(CSV, \d+ bytes\)\.$/);
    await page.locator("#analytics").screenshot({ path: join(OUTPUT_DIR, "dashboard-analytics.png") });
  });

  it("is keyboard operable, labelled, and meets contrast minimums", async () => {
    const page = await openLive();
    await page.waitForSelector(".backend-card");
    await page.waitForSelector("#feed-list > li");
    // the first Tab reaches the skip link, with a visible focus ring
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const element = document.activeElement;
      const style = getComputedStyle(element);
      return { className: element.className, outlineStyle: style.outlineStyle, outlineWidth: parseFloat(style.outlineWidth) };
    });
    expect(focused).toMatchObject({ className: "skip-link", outlineStyle: "solid" });
    expect(focused.outlineWidth).toBeGreaterThanOrEqual(2);
    const audit = await page.evaluate(() => {
      const unlabelled = [...document.querySelectorAll("input, select, textarea, meter")]
        .filter((element) => {
          const control = element;
          return (control.labels?.length ?? 0) === 0 && !control.getAttribute("aria-label") && !control.getAttribute("aria-labelledby");
        })
        .map((element) => element.outerHTML.slice(0, 80));
      const sectionsWithoutHeading = [...document.querySelectorAll("main section")].filter((section) => !section.querySelector("h2")).map((section) => section.id);
      const landmarks = ["header", "nav", "main", "footer"].filter((selector) => document.querySelectorAll(selector).length === 0);
      // WCAG 2 contrast of every element that holds text, against its nearest opaque background
      const parse = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
      const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
        const channel = (value: number) => {
          const c = value / 255;
          return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        };
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
      };
      const background = (element: DomElement | null): number[] => {
        for (let current = element; current; current = current.parentElement) {
          const parts = parse(getComputedStyle(current).backgroundColor);
          if (parts.length >= 3 && (parts[3] ?? 1) > 0.5) return parts;
        }
        return [255, 255, 255];
      };
      const lowContrast: string[] = [];
      for (const element of document.body.querySelectorAll("*")) {
        const hasText = [...element.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && node.textContent?.trim());
        if (!hasText || element.offsetParent === null || element.closest(".visually-hidden, .skip-link, dialog:not([open])")) continue;
        const foreground = luminance(parse(getComputedStyle(element).color));
        const back = luminance(background(element));
        const ratio = (Math.max(foreground, back) + 0.05) / (Math.min(foreground, back) + 0.05);
        if (ratio < 4.5) lowContrast.push(`${element.tagName.toLowerCase()}.${element.className}: ${ratio.toFixed(2)}`);
      }
      return { unlabelled, sectionsWithoutHeading, landmarks, lowContrast };
    });
    expect(audit).toEqual({ unlabelled: [], sectionsWithoutHeading: [], landmarks: [], lowContrast: [] });
  });

  it("saves a screenshot of the whole dashboard", async () => {
    const fresh = await startDashboardServer({ source: createSampleDashboardSource() });
    try {
      await screenshotDashboard(fresh.url);
    } finally {
      await fresh.close();
    }
  });

  async function screenshotDashboard(baseUrl: string): Promise<void> {
    const page = await openPage(`${baseUrl}/dashboard`);
    await page.waitForSelector('#live-status[data-state="live"]');
    await expect.poll(() => page.locator(".backend-card").count()).toBe(2);
    await page.waitForSelector('#feed-list > li[data-trace-id="sample-fallback"]');
    await page.waitForSelector("#cache-hit-rate");
    await page.waitForSelector("#tool-servers-body table");
    await page.waitForSelector('#analytics[data-state="loaded"]');
    await page.locator('#feed-list > li[data-trace-id="sample-fallback"] summary').click();
    await page.locator('#feed-list > li[data-trace-id="sample-fallback"] .trace-event').first().waitFor();
    await page.getByLabel("Search tools").fill("search memory");
    await page.getByLabel("Search tools").press("Enter");
    await page.locator("#tool-search-results .tool-hit").first().waitFor();
    await page.getByLabel("Keywords").fill("incidents");
    await page.getByLabel("Keywords").press("Enter");
    await page.locator("#history-results .history-hit").first().waitFor();
    await mkdir(OUTPUT_DIR, { recursive: true });
    const path = join(OUTPUT_DIR, "dashboard.png");
    await page.screenshot({ path, fullPage: true });
    expect(existsSync(path)).toBe(true);
  }

  it("reconnects when the live feed drops and catches up on what it missed", async () => {
    const dropSource = createSampleDashboardSource({ withoutQueries: true });
    const dropServer = await startDashboardServer({ source: dropSource });
    try {
      const page = await openPage(`${dropServer.url}/dashboard`);
      await page.waitForSelector('#live-status[data-state="live"]');
      // the gateway restarts its listener: streams end, the page notices
      dropServer.dashboard.close();
      await dropSource.waitForSubscribers((count) => count === 0);
      // recorded while no page is subscribed (the page waits 3 s before reconnecting)
      dropSource.recordQuery("asked while the feed was down", buildQueryTrace({ traceId: "missed", attempts: [{ backendId: "flowise-local", flowId: "flowise-local:code-helper" }] }));
      await page.waitForSelector('#live-status:not([data-state="live"])');
      await page.waitForSelector('#live-status[data-state="live"]');
      await page.waitForSelector('#feed-list > li[data-trace-id="missed"].row-answered');
      // and live updates flow again
      await dropSource.waitForSubscribers((count) => count === 1);
      dropSource.recordQuery("after the reconnect", buildQueryTrace({ traceId: "after", attempts: [{ backendId: "flowise-local", flowId: "flowise-local:code-helper" }] }));
      await page.waitForSelector('#feed-list > li[data-trace-id="after"].row-answered');
    } finally {
      await dropServer.close();
    }
  });

  it("shows 'not configured' for a source without data", async () => {
    const empty = await startDashboardServer({ source: createInMemoryDashboardSource({ omit: ["backends", "flows", "recentQueries", "subscribe", "cache", "clearCache", "sessions", "toolServers", "searchTools"] }) });
    try {
      const page = await openPage(`${empty.url}/dashboard`);
      await page.waitForSelector('#live-status[data-state="unavailable"]');
      await expect.poll(() => page.locator(".not-configured").count()).toBe(5);
      expect(await page.locator("#feed-empty").textContent()).toBe("Recent queries are not configured on this gateway.");
      // no analytics: the panel and its navigation link stay hidden
      await page.waitForSelector('#analytics[data-state="unavailable"]', { state: "attached" });
      expect(await page.locator("#analytics").isVisible()).toBe(false);
      expect(await page.locator("#nav-analytics").isVisible()).toBe(false);
      // no semantic cache: no panel
      expect(await page.locator("#semantic-cache").count()).toBe(0);
    } finally {
      await empty.close();
    }
  });

  it("sends the access token as a bearer header on fetches and the live feed, never in a URL", async () => {
    const token = "s3cret-token";
    const tokenSource = createSampleDashboardSource({ withoutQueries: true });
    const dashboard = createDashboard({ source: tokenSource });
    // what the gateway does: the shell and assets are public, everything else needs the bearer token
    const gateway: Server = createServer(async (req, res) => {
      const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
      if (!dashboard.isPublicPath(pathname) && req.headers.authorization !== `Bearer ${token}`) {
        res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "UNAUTHORIZED", message: "missing or invalid bearer token" } }));
        return;
      }
      if (!(await dashboard.handle(req, res))) res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
    try {
      const page = await openPage(`${url}/dashboard`);
      const requested: string[] = [];
      page.on("request", (request) => requested.push(request.url()));
      await page.waitForSelector('#live-status[data-state="unauthorized"]');
      expect(await page.locator("#auth-notice").isVisible()).toBe(true);
      await page.getByLabel("Access token").fill(token);
      await page.getByRole("button", { name: "Use token" }).click();
      await page.waitForSelector('#live-status[data-state="live"]');
      await page.waitForSelector(".backend-card");
      expect(await page.locator("#auth-notice").isVisible()).toBe(false);
      tokenSource.recordQuery("token-protected question", buildQueryTrace({ traceId: "with-token", attempts: [{ backendId: "flowise-local", flowId: "flowise-local:code-helper" }] }));
      await page.waitForSelector('#feed-list > li[data-trace-id="with-token"].row-answered');
      expect(requested.some((requestUrl) => requestUrl.includes("/api/events"))).toBe(true);
      expect(requested.filter((requestUrl) => requestUrl.includes(token))).toEqual([]);
    } finally {
      dashboard.close();
      gateway.closeAllConnections();
      await new Promise<void>((resolve) => gateway.close(() => resolve()));
    }
  });
});
