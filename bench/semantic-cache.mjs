#!/usr/bin/env node
// @afw/cache: the semantic answer cache at the gateway's default threshold (0.9) with the Universal
// Sentence Encoder lite: hit rate on PARAPHRASE_PAIRS and wrong hits on NEAR_MISS_PAIRS (questions that
// differ in a number, a name or a negation) of @afw/testing, both written by the project and used while
// building the guard (tuning figures, not a held-out evaluation). Each pair: the first question's answer
// is cached, then the second is looked up (memory cache; the Redis cache runs the same guard).
import { report, round } from "./_lib.mjs";
import { createMemoryStores } from "../packages/cache/dist/index.js";
import { createUseEmbedder } from "../packages/embeddings/dist/index.js";
import { NEAR_MISS_PAIRS, PARAPHRASE_PAIRS } from "../tooling/testing/dist/index.js";

const THRESHOLD = Number(process.env.SEMANTIC_THRESHOLD ?? 0.9);
const embedder = createUseEmbedder({ thread: "worker" });
const answer = (text) => ({ result: text, _mcp_metadata: { backend_used: "b", flow_id: "b:f", flow_name: "f", routing_score: 1, routing_breakdown: { flow_match: 1, health: 1, performance: 1, capability: 1 }, intent_classified: "conversation", intent_confidence: 1, execution_time_ms: 1, fallback_used: false, attempt: 1, backends_tried: ["b"], cache_hit: false, trace_id: "t" } });

async function run(pairs) {
  const cache = createMemoryStores({ responseCache: { semantic: { enabled: true, threshold: THRESHOLD } } }).responseCache;
  let hits = 0;
  for (const [i, [first, second]] of pairs.entries()) {
    const [a, b] = await embedder.embed([first, second]);
    const flowId = `flow-${i}`; // one group per pair: each lookup sees only its own pair's entry
    await cache.set({ scope: "shared", flowId, question: first }, answer(first), { ttlSeconds: 60, embedding: a });
    if ((await cache.get({ scope: "shared", flowId, question: second }, { embedding: b })).hit) hits += 1;
  }
  return { hits, stats: await cache.stats() };
}

const paraphrases = await run(PARAPHRASE_PAIRS);
const nearMisses = await run(NEAR_MISS_PAIRS);
await embedder.close();
report("semantic-cache", [
  { set: "paraphrase pairs", pairs: PARAPHRASE_PAIRS.length, hits: paraphrases.hits, hit_rate: round(paraphrases.hits / PARAPHRASE_PAIRS.length, 3), guard_rejections: paraphrases.stats.semanticGuardRejections },
  { set: "near-miss pairs (number, name, negation)", pairs: NEAR_MISS_PAIRS.length, hits: nearMisses.hits, hit_rate: round(nearMisses.hits / NEAR_MISS_PAIRS.length, 3), guard_rejections: nearMisses.stats.semanticGuardRejections },
], {
  notes: [`Threshold ${THRESHOLD}; every near-miss hit would be a wrong answer (target: 0). Sets written by the project and used while building the guard: tuning figures.`],
});
