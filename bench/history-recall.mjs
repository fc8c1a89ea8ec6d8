#!/usr/bin/env node
// @afw/cache: recall at 5 of `search_history` (SessionStore.search) by keyword, meaning and hybrid,
// in the memory store (exact similarities) and in Redis (LSH candidates + exact re-rank), with the
// Universal Sentence Encoder lite. Set: HISTORY_PARAPHRASES of @afw/testing (64 past turns from
// varied domains, one paraphrase each), written by the project and used to tune the search (not a
// held-out evaluation). A hit is the stored turn among the first 5 results. Target (issue 22): >= 90%.
// Distractors: 300 generated turns of everyday words plus HISTORY_RECALL_DISTRACTORS (default 2000)
// templated ops questions. Redis: REDIS_URL, else 127.0.0.1:6379, else a private redis-server.
import { report, round } from "./_lib.mjs";
import { createMemoryStores, createRedisStores } from "../packages/cache/dist/index.js";
import { createCachingEmbedder, createUseEmbedder } from "../packages/embeddings/dist/index.js";
import { HISTORY_PARAPHRASES as SET, getTestRedis, deleteRedisKeys } from "../tooling/testing/dist/index.js";

const EXTRA = Number(process.env.HISTORY_RECALL_DISTRACTORS ?? 2000);
const WORDS = ["service", "account", "project", "build", "release", "database", "report", "team", "settings", "page", "job", "limit", "key", "email", "storage", "schedule", "error", "plan", "region", "worker"];
const VERBS = ["configure", "check", "update", "delete", "list", "move", "share", "restart"];
const TOPICS = ["deploy", "invoice", "backup", "latency", "password", "certificate", "quota", "migration", "schema", "webhook", "billing", "cluster"];
const OBJECTS = ["service", "database", "pipeline", "dashboard", "gateway", "report", "account", "bucket", "queue", "cache"];
const STATES = ["failing", "slow", "missing", "rotating", "expired", "broken", "pending", "growing"];
let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = (list) => list[Math.floor(random() * list.length)];

const distractors = [];
for (let i = 0; i < 300; i++) distractors.push([`How do I ${pick(VERBS)} the ${pick(WORDS)} ${pick(WORDS)} of the ${pick(WORDS)}?`, `Go to ${pick(WORDS)} ${pick(WORDS)} and ${pick(VERBS)} the ${pick(WORDS)}.`]);
for (let i = 0; i < EXTRA; i++) distractors.push([`Why is the ${pick(TOPICS)} of the ${pick(OBJECTS)} ${pick(STATES)}?`, `Check the ${pick(OBJECTS)} ${pick(TOPICS)} settings.`]);

const embedder = createCachingEmbedder(createUseEmbedder({ thread: "worker" }));

async function fill(store) {
  let at = 1_700_000_000_000;
  for (const [i, [question, answer]] of distractors.entries()) await store.append(`d-${i % 50}`, { question, answer, askedAt: (at += 1000), answeredAt: at + 500 });
  for (const [i, [question, answer]] of SET.entries()) await store.append(`s-${i}`, { question, answer, askedAt: (at += 1000), answeredAt: at + 500 });
}

async function recall(store, mode) {
  let found = 0;
  const misses = [];
  for (const [i, [, , paraphrase]] of SET.entries()) {
    const page = await store.search({ text: paraphrase, limit: 5, mode });
    if (page.hits.some((hit) => hit.sessionId === `s-${i}`)) found += 1;
    else misses.push(paraphrase);
  }
  return { found, misses };
}

const rows = [];
const missesBy = {};
const memory = createMemoryStores({ sessions: { maxTurns: 10_000, embedder } }).sessionStore;
await fill(memory);
for (const mode of ["keyword", "meaning", "hybrid"]) {
  const { found, misses } = await recall(memory, mode);
  rows.push({ store: "memory", mode, pairs: SET.length, found_in_top5: found, recall_at_5: round(found / SET.length, 3) });
  missesBy[`memory/${mode}`] = misses;
}

const redis = await getTestRedis();
const prefix = `afwbench:recall:${process.pid}:`;
const stores = createRedisStores({ url: redis.url, keyPrefix: prefix, operationTimeoutMs: 5000, sessions: { ttlMs: 3_600_000, maxTurns: 10_000, embedder } });
try {
  await fill(stores.sessionStore);
  // Wait until the background indexing has embedded every turn (the pending set is empty).
  const pendingKey = `${prefix}history:pending`;
  while ((await stores.connection.client.scard(pendingKey)) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const mode of ["meaning", "hybrid"]) {
    const { found, misses } = await recall(stores.sessionStore, mode);
    rows.push({ store: "redis", mode, pairs: SET.length, found_in_top5: found, recall_at_5: round(found / SET.length, 3) });
    missesBy[`redis/${mode}`] = misses;
  }
} finally {
  await stores.close();
  await deleteRedisKeys(redis.url, prefix);
  await redis.dispose();
  await embedder.close?.();
}

const hybrid = rows.find((row) => row.store === "redis" && row.mode === "hybrid");
report("history-recall", rows, {
  notes: [
    `${SET.length} stored turns with one paraphrase each (HISTORY_PARAPHRASES in tooling/testing, written by the project and used to tune the search: a tuning figure, not a held-out evaluation), among ${distractors.length} generated distractor turns.`,
    `Embedder: Universal Sentence Encoder lite (question embedded). Target recall@5 >= 0.9 (issue 22): Redis hybrid ${hybrid?.recall_at_5} -> ${hybrid && hybrid.recall_at_5 >= 0.9 ? "met" : "NOT met"} on this set.`,
    ...Object.entries(missesBy).filter(([, m]) => m.length > 0 && m.length <= 10).map(([k, m]) => `Missed (${k}): ${m.map((x) => `"${x}"`).join("; ")}.`),
  ],
  extra: { missesBy },
});
