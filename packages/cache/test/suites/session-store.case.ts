import { describe, expect, it } from "vitest";
import { closeAfter } from "@afw/testing";
import type { SessionStore } from "@afw/contracts";
import type { SessionStoreOptions } from "../../src/session-store-shared.js";
import { conceptEmbedder, turn, waitFor } from "../helpers.js";

/** A session store under test. */
export interface SessionStoreHarness {
  store: SessionStore;
  /** Another handle on the same data (Redis: a second client and connection). */
  second: SessionStore;
  /** Lets `ms` of time pass for TTLs (memory: advances the clock; Redis: nothing to do). */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Creates a fresh, empty session store for one test. */
export type SessionStoreFactory = (options: SessionStoreOptions) => Promise<SessionStoreHarness>;

/** The session store suite, run against every {@link SessionStore} implementation. */
export function describeSessionStoreSuite(name: string, factory: SessionStoreFactory): void {
  describe(`SessionStore conformance: ${name}`, () => {
    const track = closeAfter();
    const create = async (options: SessionStoreOptions = {}) => track(await factory(options));

    it("appends turns in order and returns the last K, oldest first", async () => {
      const { store } = await create();
      for (let i = 1; i <= 7; i++) expect(await store.append("s-1", turn(i))).toEqual({ saved: true, buffered: false, totalTurns: i });
      expect((await store.recent("s-1", 3)).map((t) => t.question)).toEqual(["q-5", "q-6", "q-7"]);
      expect((await store.recent("s-1", undefined as never)).map((t) => t.question)).toEqual(["q-3", "q-4", "q-5", "q-6", "q-7"]);
      expect(await store.recent("s-1", 0)).toEqual([]);
      expect(await store.recent("nobody", 5)).toEqual([]);
      const first = (await store.recent("s-1", 100))[0];
      expect(first).toEqual(turn(1));
    });

    it("keeps only the last N turns", async () => {
      const { store } = await create({ maxTurns: 4 });
      let kept = 0;
      for (let i = 1; i <= 10; i++) kept = (await store.append("s-1", turn(i))).totalTurns ?? 0;
      expect(kept).toBe(4);
      const session = await store.get("s-1");
      expect(session?.turns).toBe(4);
      expect(session?.turnsList.map((t) => t.question)).toEqual(["q-7", "q-8", "q-9", "q-10"]);
    });

    it("gets a whole session with its metadata, or undefined", async () => {
      const { store, advance } = await create();
      expect(await store.get("s-1")).toBeUndefined();
      await store.append("s-1", turn(1));
      await advance(10);
      await store.append("s-1", turn(2));
      const session = await store.get("s-1");
      expect(session).toMatchObject({ sessionId: "s-1", turns: 2 });
      expect(session?.turnsList).toEqual([turn(1), turn(2)]);
      expect(session!.createdAt).toBeGreaterThan(0);
      expect(session!.updatedAt - session!.createdAt).toBe(10);
    });

    it("keeps tenants apart", async () => {
      const { store } = await create();
      await store.append("s-1", turn(1, "plain"));
      await store.append("s-1", turn(1, "acme"), { tenant: "acme" });
      expect((await store.recent("s-1", 5)).map((t) => t.question)).toEqual(["plain-1"]);
      expect((await store.recent("s-1", 5, { tenant: "acme" })).map((t) => t.question)).toEqual(["acme-1"]);
      expect((await store.get("s-1", { tenant: "acme" }))?.tenant).toBe("acme");
      expect((await store.list("*", { tenant: "acme" })).map((s) => s.sessionId)).toEqual(["s-1"]);
      expect(await store.list("*", { tenant: "globex" })).toEqual([]);
    });

    it("lists sessions matching a glob, newest first, up to a limit", async () => {
      const { store, advance } = await create();
      for (const id of ["user-1:a", "user-1:b", "user-2:a", "bot-1"]) {
        await store.append(id, turn(1));
        await advance(5);
      }
      expect((await store.list("user-1:*")).map((s) => s.sessionId)).toEqual(["user-1:b", "user-1:a"]);
      expect((await store.list("user-?:a")).map((s) => s.sessionId)).toEqual(["user-2:a", "user-1:a"]);
      expect((await store.list()).map((s) => s.sessionId)).toEqual(["bot-1", "user-2:a", "user-1:b", "user-1:a"]);
      expect((await store.list("*", { limit: 2 })).map((s) => s.sessionId)).toEqual(["bot-1", "user-2:a"]);
      expect((await store.list("user-1:a"))[0]).toMatchObject({ sessionId: "user-1:a", turns: 1 });
      expect(await store.list("nothing*")).toEqual([]);
    });

    it("keeps the tags of turns on the session and lists sessions by tag, tenant-scoped", async () => {
      const { store, second, advance } = await create();
      await store.append("s-1", { ...turn(1), tags: ["project:falcon"] });
      await advance(5);
      await store.append("s-2", { ...turn(1), tags: ["project:falcon", "team:platform"] });
      await advance(5);
      await store.append("s-1", { ...turn(2), tags: ["team:platform", "team:platform"] });
      await advance(5);
      await store.append("s-3", turn(1));
      await store.append("s-4", { ...turn(1), tags: ["project:falcon"] }, { tenant: "acme" });
      expect((await store.recent("s-1", 5)).map((t) => t.tags)).toEqual([["project:falcon"], ["team:platform", "team:platform"]]);
      expect((await store.get("s-1"))?.tags).toEqual(["project:falcon", "team:platform"]);
      expect((await store.get("s-3"))?.tags).toBeUndefined();
      expect((await second.list("*", { tag: "project:falcon" })).map((s) => s.sessionId)).toEqual(["s-1", "s-2"]);
      expect((await store.list("*", { tag: "team:platform" })).map((s) => [s.sessionId, s.tags])).toEqual([
        ["s-1", ["project:falcon", "team:platform"]],
        ["s-2", ["project:falcon", "team:platform"]],
      ]);
      expect((await store.list("s-2", { tag: "project:falcon" })).map((s) => s.sessionId)).toEqual(["s-2"]);
      expect(await store.list("*", { tag: "project:other" })).toEqual([]);
      expect((await store.list("*", { tag: "project:falcon", tenant: "acme" })).map((s) => s.sessionId)).toEqual(["s-4"]);
      expect(await store.delete("s-1")).toBe(true);
      expect((await store.list("*", { tag: "project:falcon" })).map((s) => s.sessionId)).toEqual(["s-2"]);
    });

    it("searches past turns by keyword, tag, session, backend, flow and time, tenant-scoped and paged", async () => {
      const { store, second } = await create();
      const at = (n: number) => ({ askedAt: 10_000 + n, answeredAt: 10_001 + n });
      await store.append("s-1", { question: "How do I deploy the falcon service?", answer: "Run the deploy pipeline.", flowId: "flowise:ops", backendId: "flowise", tags: ["project:falcon"], ...at(1) });
      await store.append("s-1", { question: "Lunch options nearby?", answer: "The canteen opens at noon.", flowId: "flowise:faq", backendId: "flowise", ...at(2) });
      await store.append("s-2", { question: "Deploying falcon failed with a timeout", answer: "Increase the deployment timeout.", flowId: "langflow:ops", backendId: "langflow", tags: ["project:falcon", "team:platform"], ...at(3) });
      await store.append("s-3", { question: "falcon deploy for tenant acme", answer: "done", ...at(4) }, { tenant: "acme" });
      const ids = (page: { hits: { sessionId: string; turn: { question: string } }[] }) => page.hits.map((h) => `${h.sessionId}:${h.turn.question.slice(0, 12)}`);
      // Stemmed keywords: "deployments" finds "deploy" and "Deploying"; most shared words first, then newest.
      const deploy = await second.search!({ text: "falcon deployments" });
      expect(ids(deploy)).toEqual(["s-2:Deploying fa", "s-1:How do I dep"]);
      expect(deploy.hits[0]).toMatchObject({ matchedWords: 2, turn: { tags: ["project:falcon", "team:platform"], flowId: "langflow:ops" } });
      expect(ids(await store.search!({ text: "canteen" }))).toEqual(["s-1:Lunch option"]);
      expect(await store.search!({ text: "the of" })).toEqual({ hits: [], mode: "keyword" });
      expect(ids(await store.search!({ tag: "team:platform" }))).toEqual(["s-2:Deploying fa"]);
      expect(ids(await store.search!({ sessionId: "s-1" }))).toEqual(["s-1:Lunch option", "s-1:How do I dep"]);
      expect(ids(await store.search!({ backendId: "flowise", text: "deploy" }))).toEqual(["s-1:How do I dep"]);
      expect(ids(await store.search!({ flowId: "flowise:faq" }))).toEqual(["s-1:Lunch option"]);
      expect(ids(await store.search!({ from: 10_002, to: 10_003 }))).toEqual(["s-2:Deploying fa", "s-1:Lunch option"]);
      expect(ids(await store.search!({ text: "falcon" }, { tenant: "acme" }))).toEqual(["s-3:falcon deplo"]);
      const first = await store.search!({ limit: 2 });
      expect(ids(first)).toEqual(["s-2:Deploying fa", "s-1:Lunch option"]);
      expect(first.nextCursor).toBeDefined();
      const next = await store.search!({ limit: 2, cursor: first.nextCursor });
      expect(ids(next)).toEqual(["s-1:How do I dep"]);
      expect(next.nextCursor).toBeUndefined();
      await expect(store.search!({ cursor: "bogus" })).rejects.toMatchObject({ code: "INVALID_INPUT" });
      expect(await store.delete("s-2")).toBe(true);
      expect(ids(await store.search!({ text: "falcon" }))).toEqual(["s-1:How do I dep"]);
    });

    it("searches past turns by meaning (embedded after the append), hybrid with keywords, with filters, tenant-scoped and paged", async () => {
      const { store, second } = await create({ embedder: conceptEmbedder() });
      const at = (n: number) => ({ askedAt: 20_000 + n, answeredAt: 20_001 + n });
      await store.append("s-1", { question: "How do I ship the falcon service?", answer: "Run the pipeline.", tags: ["project:falcon"], ...at(1) });
      await store.append("s-2", { question: "I forgot my password", answer: "Use the reset link.", ...at(2) });
      await store.append("s-2", { question: "Where is the canteen?", answer: "Second floor.", ...at(3) });
      await store.append("s-3", { question: "release the falcon build", answer: "done", ...at(4) }, { tenant: "acme" });
      await store.append("s-4", { question: "Rollout of version 2 for heron", answer: "Tomorrow.", ...at(5) });
      const ids = (page: { hits: { sessionId: string }[] }) => page.hits.map((h) => h.sessionId);
      // Indexing runs after the appends were acknowledged.
      await waitFor(async () => ids(await second.search!({ text: "deployment", mode: "meaning" })).length === 2);
      const meaning = await second.search!({ text: "new deployment", mode: "meaning" });
      expect(meaning.mode).toBe("meaning");
      expect(ids(meaning).sort()).toEqual(["s-1", "s-4"]);
      expect(meaning.hits[0]!.similarity).toBeGreaterThan(0.9);
      expect(await store.search!({ text: "new deployment", mode: "keyword" })).toMatchObject({ hits: [], mode: "keyword" });
      // Hybrid (the default): the shared word "falcon" ranks s-1 above s-4.
      expect(ids(await store.search!({ text: "falcon deployment" }))).toEqual(["s-1", "s-4"]);
      expect(ids(await store.search!({ text: "login trouble" }))).toEqual(["s-2"]);
      expect(ids(await store.search!({ text: "release", tag: "project:falcon" }))).toEqual(["s-1"]);
      expect(ids(await store.search!({ text: "release", sessionId: "s-2" }))).toEqual([]);
      expect(ids(await store.search!({ text: "release", from: 20_005 }))).toEqual(["s-4"]);
      expect(ids(await store.search!({ text: "ship it" }, { tenant: "acme" }))).toEqual(["s-3"]);
      const first = await store.search!({ text: "release", limit: 1 });
      expect(first.nextCursor).toBeDefined();
      const next = await store.search!({ text: "release", limit: 1, cursor: first.nextCursor });
      expect([...ids(first), ...ids(next)].sort()).toEqual(["s-1", "s-4"]);
      expect(next.nextCursor).toBeUndefined();
    });

    it("indexes a turn whose embedding failed once (found by keyword meanwhile); searches by keyword when the query cannot be embedded", async () => {
      const concepts = conceptEmbedder();
      let failures = 1;
      const flaky = { ...concepts, embed: (texts: readonly string[]) => (texts.length > 0 && failures-- > 0 ? Promise.reject(new Error("model busy")) : concepts.embed(texts)) };
      const { store } = await create({ embedder: flaky, replayIntervalMs: 50 } as SessionStoreOptions);
      await store.append("s-1", { question: "How do I ship the falcon service?", answer: "Run the pipeline.", askedAt: 1, answeredAt: 2 });
      expect((await store.search!({ text: "falcon", mode: "keyword" })).hits).toHaveLength(1);
      await waitFor(async () => (await store.search!({ text: "deployment", mode: "meaning" })).hits.length === 1);
      // A query the embedder fails on is searched by keyword, and the page says so.
      failures = 1;
      expect(await store.search!({ text: "falcon" })).toMatchObject({ mode: "keyword", hits: [{ sessionId: "s-1" }] });
    });

    it("searches by keyword when the store has no embedder, whatever the mode", async () => {
      const { store } = await create();
      await store.append("s-1", { question: "How do I ship the falcon service?", answer: "Run the pipeline.", askedAt: 1, answeredAt: 2 });
      expect(await store.search!({ text: "deployment", mode: "meaning" })).toEqual({ hits: [], mode: "keyword" });
      expect((await store.search!({ text: "falcon", mode: "meaning" })).hits.map((h) => h.sessionId)).toEqual(["s-1"]);
    });

    it("deletes a session", async () => {
      const { store } = await create();
      await store.append("s-1", turn(1));
      expect(await store.delete("s-1")).toBe(true);
      expect(await store.get("s-1")).toBeUndefined();
      expect(await store.list("s-*")).toEqual([]);
      expect(await store.delete("s-1")).toBe(false);
    });

    it("expires a session after its sliding TTL", async () => {
      const { store, advance } = await create({ ttlMs: 1000 });
      await store.append("s-1", turn(1));
      expect(await store.get("s-1")).toBeDefined();
      await advance(1001);
      await waitFor(async () => (await store.get("s-1")) === undefined, 4000);
      expect(await store.recent("s-1", 5)).toEqual([]);
      expect(await store.list("s-*")).toEqual([]);
    });

    it("keeps every turn of concurrent appends from two clients", async () => {
      const { store, second } = await create({ maxTurns: 500 });
      const appends: Promise<number | undefined>[] = [];
      for (let i = 0; i < 100; i++) {
        appends.push(store.append("shared-session", turn(i, "a")).then((r) => r.totalTurns));
        appends.push(second.append("shared-session", turn(i, "b")).then((r) => r.totalTurns));
      }
      const counts = await Promise.all(appends);
      expect(new Set(counts).size).toBe(200); // every append saw a distinct length
      const session = await store.get("shared-session");
      expect(session?.turns).toBe(200);
      const questions = session!.turnsList.map((t) => t.question);
      expect(new Set(questions).size).toBe(200);
      // Each client's own turns stay in the order it appended them.
      const mine = questions.filter((q) => q.startsWith("a-"));
      expect(mine).toEqual(Array.from({ length: 100 }, (_, i) => `a-${i}`));
    });

    it("rejects invalid turns and empty session ids", async () => {
      const { store } = await create();
      await expect(store.append("s-1", { question: "q" } as never)).rejects.toMatchObject({ code: "INVALID_INPUT" });
      await expect(store.append("", turn(1))).rejects.toMatchObject({ code: "INVALID_INPUT" });
    });
  });
}
