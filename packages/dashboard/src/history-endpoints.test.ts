import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { SessionRecord } from "@afw/contracts";
import { afterEach, describe, expect, it } from "vitest";
import { createDashboard, type DashboardSource } from "./index.js";
import { createInMemoryDashboardSource } from "./testing.js";

const NOW = Date.parse("2026-03-02T12:00:00.000Z");
const turn = (question: string, answer: string, tags: string[], askedAt: number) => ({ question, answer, tags, flowId: "fw:docs", backendId: "fw", askedAt, answeredAt: askedAt + 500 });
const sessions: SessionRecord[] = [
  { sessionId: "acme-1", tenant: "acme", turns: 2, createdAt: NOW - 9_000, updatedAt: NOW - 1_000, turnsList: [turn("Falcon rollout runbook?", "See the falcon runbook.", ["project:falcon"], NOW - 9_000), turn("Who owns billing?", "Team ledger.", ["team:ledger"], NOW - 1_000)] },
  { sessionId: "globex-1", tenant: "globex", turns: 1, createdAt: NOW - 5_000, updatedAt: NOW - 5_000, turnsList: [turn("Falcon budget for Q3?", "Secret numbers.", ["project:falcon"], NOW - 5_000)] },
];

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A dashboard behind a test gateway whose `x-tenant` header stands for the tenant of the caller's token. */
async function start(source: DashboardSource, redact = false): Promise<(path: string, tenant?: string) => Promise<{ status: number; body: any }>> {
  const dashboard = createDashboard({ source, redact });
  const server = createServer((req, res) => {
    const tenant = req.headers["x-tenant"];
    void dashboard.handle(req, res, typeof tenant === "string" ? { tenant } : {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async (path, tenant) => {
    const response = await fetch(`${url}${path}`, { headers: tenant ? { "x-tenant": tenant } : {} });
    return { status: response.status, body: await response.json() };
  };
}

describe("GET {apiPath}/history", () => {
  it("finds past turns of the caller's tenant only, by text, tag and time, paged", async () => {
    const source = createInMemoryDashboardSource({ sessions });
    const get = await start(source);
    const acme = await get("/api/history?q=falcon%20runbook", "acme");
    expect(acme.status).toBe(200);
    expect(acme.body.hits.map((hit: any) => [hit.sessionId, hit.turn.question, hit.matchedWords])).toEqual([["acme-1", "Falcon rollout runbook?", 2]]);
    // the same tag in another tenant stays invisible; a token without a tenant sees neither
    expect((await get("/api/history?tag=project%3Afalcon", "globex")).body.hits.map((hit: any) => hit.sessionId)).toEqual(["globex-1"]);
    expect((await get("/api/history?tag=project%3Afalcon")).body.hits).toEqual([]);
    expect(source.historyCalls.map((call) => call.tenant)).toEqual(["acme", "globex", undefined]);
    // time range and paging
    const recent = await get(`/api/history?from=${new Date(NOW - 2_000).toISOString()}`, "acme");
    expect(recent.body.hits.map((hit: any) => hit.turn.question)).toEqual(["Who owns billing?"]);
    const first = await get("/api/history?limit=1", "acme");
    expect(first.body.hits).toHaveLength(1);
    const second = await get(`/api/history?limit=1&cursor=${first.body.nextCursor}`, "acme");
    expect(second.body.hits[0].turn.question).not.toBe(first.body.hits[0].turn.question);
    expect(second.body.nextCursor).toBeUndefined();
    expect(source.historyCalls.at(-1)?.query).toEqual({ limit: 1, cursor: first.body.nextCursor });
  });

  it("rejects malformed criteria with typed 400s that do not echo the input", async () => {
    const get = await start(createInMemoryDashboardSource({ sessions }));
    for (const query of ["tag=not%20a%20tag", "from=yesterday", "limit=0", "limit=101", "q=", "session=%3Cscript%3E", "extra=1", "q=a&q=b"]) {
      const { status, body } = await get(`/api/history?${query}`, "acme");
      expect(status, query).toBe(400);
      expect(body.error.code).toBe("INVALID_INPUT");
      expect(JSON.stringify(body)).not.toContain("script");
    }
  });

  it("hides question and answer when redacting, and reports a source without history as not configured", async () => {
    const redacted = await start(createInMemoryDashboardSource({ sessions }), true);
    expect((await redacted("/api/history?q=billing", "acme")).body.hits[0].turn).toMatchObject({ question: "[redacted]", answer: "[redacted]", tags: ["team:ledger"] });
    const bare = await start({});
    expect((await bare("/api/history?q=x")).body).toEqual({ configured: false });
  });
});

describe("GET {apiPath}/cache/semantic", () => {
  it("serves the semantic cache counters, or not configured", async () => {
    const stats = { enabled: true, lookups: 40, hits: 10, guardRejections: 3, threshold: 0.9 };
    expect((await (await start(createInMemoryDashboardSource({ semanticCache: stats })))("/api/cache/semantic")).body).toEqual({ configured: true, stats });
    expect((await (await start(createInMemoryDashboardSource()))("/api/cache/semantic")).body).toEqual({ configured: false });
  });
});
