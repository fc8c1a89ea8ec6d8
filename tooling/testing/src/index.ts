/**
 * Private test helpers shared by @afw packages.
 *
 * @packageDocumentation
 */
export { freePort, pingRedis, redisProcessId, startRedisServer, getTestRedis, REDIS_MISSING_MESSAGE, deleteRedisKeys, countRedisKeys, type RedisServerHandle, type TestRedis } from "./redis.js";
export { startChroma, chromaCliPath, type ChromaServerHandle } from "./chroma.js";
export { processListensOn } from "./listening.js";
export { closeAfter, useTestRedis } from "./vitest-hooks.js";
export { NEAR_MISS_PAIRS, PARAPHRASE_PAIRS, HISTORY_PARAPHRASES } from "./question-sets.js";
export { FLOWISE_VERSION, FlowiseSession, flowiseDir, flowiseInstalled, installFlowise, startFlowise, startOpenAiStub, type FlowiseProcess, type LlmCall } from "./flowise.js";
