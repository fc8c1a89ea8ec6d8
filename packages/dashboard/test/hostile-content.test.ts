/**
 * Real-browser proof that hostile text from backends and users (questions, answers, error
 * messages, flow names) is rendered as text in the dashboard: no element is created from it, no
 * script runs, and Trusted Types / CSP report nothing. Skipped (with a message) without Chromium.
 */
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInMemoryDashboardSource, type InMemoryAnalyticsData } from "../src/testing.js";
import { buildQueryTrace } from "../src/testing.js";
import { CHROMIUM_PATH, HAS_CHROMIUM, launchChromium, type ChromiumSession } from "./chromium.js";
import { startDashboardServer, type DashboardServer } from "./harness.js";

declare const window: any;
declare const document: any;

if (!HAS_CHROMIUM) console.warn(`[@afw/dashboard] hostile-content browser test skipped: ${CHROMIUM_PATH} not found. Install Debian's chromium (apt-get install chromium) or set AFW_CHROMIUM_PATH.`);

const payload = (tag: number) => `<script>window.__pwned=${tag}</script><img src=x onerror="window.__pwned=${tag}"><b>bold-${tag}</b>`;

/** Analytics whose every string field a backend, a flow registry or a user could control is hostile. */
function hostileAnalytics(): InMemoryAnalyticsData {
  const range = { from: "2026-01-01T00:00:00.000Z", to: "2026-01-02T00:00:00.000Z" };
  const latency = { count: 1, p50Ms: 10, p95Ms: 20 };
  const flow = { flowId: payload(6), backendId: "evil-backend", queries: 3, answered: 2, cacheHits: 0, attempts: 3, failures: 1, successRate: 0.5, latency, fallbacksFrom: 1, fallbacksTo: 0 };
  const arm = { queries: 1, successRate: 1, latency, fallbackRate: 0, feedback: { count: 0, mean: null } };
  return {
    summaries: {
      "24h": {
        range,
        totals: { queries: 3, answered: 2, failed: 1, successRate: 0.6667, cacheHits: 0, cacheMisses: 3, cacheHitRate: 0, fallbackQueries: 1, fallbackRate: 0.3333 },
        queryLatency: latency,
        topFlows: [flow],
        intents: [{ intent: payload(7), queries: 3, share: 1, successRate: 0.6667, fallbackRate: 0.3333, meanConfidence: 0.5 }],
        experiments: [{ experimentId: payload(8), control: arm, variant: arm, difference: { successRate: 0, p50Ms: 0, p95Ms: 0, feedbackMean: null }, variantShare: 0.5 }],
      },
    },
    flowAnalyses: {
      [payload(6)]: {
        flowId: payload(6),
        range,
        usage: flow,
        fallback: { asSource: { queries: 1, share: 0.3333 }, asTarget: { queries: 0, share: 0 } },
        feedback: { count: 0, mean: null },
        intents: [],
        recommendations: [{ kind: "failing", severity: "critical", message: payload(9) }],
      },
    },
    patterns: {
      range,
      queries: 3,
      questionsAnalysed: 3,
      clusters: [{ id: "c1", size: 3, representative: payload(10), dominantIntent: "conversation", meanConfidence: 0.3, fallbackRate: 0, keywords: [payload(11)] }],
      fallbackIntents: [],
      lowConfidence: [{ traceId: "hostile-low", question: payload(12), intent: "conversation", confidence: 0.2 }],
      proposals: [
        { kind: "intent-pattern", intent: "conversation", keywords: ["harmless", payload(13)], support: 3, reason: payload(14), examples: [payload(15)] },
        { kind: "new-flow", intent: null, keywords: [payload(16)], support: 3, reason: "needs a flow" },
      ],
    },
    learned: {
      maxAdjustment: 0.15,
      adjustments: [{ intent: "conversation", flowId: payload(17), flowMatch: -0.1, performance: -0.1, samples: 12, successRate: 0.5, reason: payload(18) }],
    },
  };
}

describe.skipIf(!HAS_CHROMIUM)("hostile content in the dashboard (Chromium)", () => {
  let context: BrowserContext;
  let browser: ChromiumSession | undefined;
  let server: DashboardServer;
  const problems: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium({ profilePrefix: "afw-dashboard-hostile-" });
    context = browser.context;
    context.setDefaultTimeout(10_000);
    const now = Date.now();
    const source = createInMemoryDashboardSource({
      backends: [{ id: "evil-backend", kind: "flowise", health: "down", healthMessage: payload(1), circuit: "open", requestCount: 0, series: [], flows: [] }],
      flows: [{ id: "evil-backend:flow", backendId: "evil-backend", name: payload(2), intents: ["conversation"], generalPurpose: true, cacheable: true }] as never,
      sessions: [
        {
          sessionId: "hostile-session",
          turns: 1,
          createdAt: now - 60_000,
          updatedAt: now - 30_000,
          turnsList: [{ question: payload(3), answer: payload(4), flowId: "evil-backend:flow", backendId: "evil-backend", askedAt: now - 60_000, answeredAt: now - 30_000 }],
        },
      ],
      analytics: hostileAnalytics(),
    });
    source.recordQuery(payload(5), buildQueryTrace({ traceId: "hostile-query", attempts: [{ backendId: "evil-backend", flowId: "evil-backend:flow" }] }));
    server = await startDashboardServer({ source });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(): Promise<Page> {
    const page = await context.newPage();
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" && !/status of (401|501)/.test(message.text())) problems.push(`console: ${message.text()}`);
    });
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${server.url}/dashboard`);
    return page;
  }

  it("renders questions, answers, health messages and flow names as literal text", async () => {
    const page = await open();
    await page.waitForSelector('#sessions-body details[data-session-id="hostile-session"]');
    await page.locator('#sessions-body details[data-session-id="hostile-session"] summary').click();
    await page.waitForSelector("#sessions-body .turn-answer");
    await page.waitForSelector('#feed-list > li[data-trace-id="hostile-query"]');
    await expect.poll(() => page.locator(".backend-card").count()).toBe(1);
    // the same turn found by the history search box
    await page.getByLabel("Keywords").fill("bold");
    await page.getByLabel("Keywords").press("Enter");
    await page.waitForSelector('#history-results .history-hit[data-session-id="hostile-session"]');
    const history: string = await page.evaluate(() => document.getElementById("history-results").innerText);
    for (const tag of [3, 4]) expect(history, `history payload ${tag}`).toContain(`<script>window.__pwned=${tag}</script>`);

    const text: string = await page.evaluate(() => document.body.innerText);
    for (const tag of [1, 3, 4, 5]) expect(text, `payload ${tag}`).toContain(`<script>window.__pwned=${tag}</script>`);
    // Nothing became markup: no injected elements, no script ran, no dialog opened.
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.locator("b", { hasText: /^bold-\d$/ }).count()).toBe(0);
    expect(await page.evaluate(() => [...document.querySelectorAll("script")].filter((s: any) => !s.src).length)).toBe(0);
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("renders hostile flow ids, intents, questions, keywords and reasons in the Analytics panel as literal text", async () => {
    const page = await open();
    await page.waitForSelector('#analytics[data-state="loaded"]');
    await page.locator("#analytics-flows button.analyze-flow").first().click();
    await page.waitForSelector("#analytics-flow-detail .recommendation");
    await page.locator("#analytics-patterns details.low-confidence summary").click();

    const text: string = await page.evaluate(() => document.getElementById("analytics").innerText);
    for (const tag of [6, 7, 8, 9, 10, 12, 14, 15, 16, 17, 18]) expect(text, `payload ${tag}`).toContain(`<script>window.__pwned=${tag}</script>`);
    // the YAML fragment keeps only the single-word keyword: hostile text never reaches the configuration
    const yaml = (await page.locator("#analytics-yaml").textContent()) ?? "";
    expect(yaml).toContain('"harmless": 2');
    expect(yaml).not.toContain("pwned");
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.locator("b", { hasText: /^bold-\d+$/ }).count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
