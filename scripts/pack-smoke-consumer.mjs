// Runs inside a fresh project that installed the packed @afw tarballs (see pack-smoke.mjs).
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";

const checks = {
  async "@afw/contracts"(m) {
    const input = m.UniversalQueryInputSchema.parse({ question: "hello" });
    assert.equal(input.timeout, 30);
  },
  async "@afw/embeddings"(m) {
    const [v] = await m.createHashingEmbedder({ dimensions: 32 }).embed(["hello"]);
    assert.equal(v.length, 32);
    // The static embedder's table ships in the package's data/ folder.
    assert.equal(m.createStaticEmbedder().embedSync("hello").length, 256);
  },
  async "@afw/backends"(m) {
    assert.equal(typeof m.createFlowiseBackend, "function");
    const backend = m.createFlowiseBackend({ id: "f", baseURL: "http://127.0.0.1:9" });
    assert.equal(backend.specificationVersion, "v1");
  },
  async "@afw/router"(m) {
    // Classifies with the shipped model and the default static embedder (both from the tarballs' data/ folders).
    const c = await m.createIntentClassifier().classify("Why does my build fail with ENOENT after the upgrade?");
    assert.equal(c.intent, "technical-analysis");
  },
  async "@afw/cache"(m) {
    const stores = m.createMemoryStores();
    const result = await stores.sessionStore.append("s", { question: "q", answer: "a", askedAt: 1, answeredAt: 2 });
    assert.deepEqual(result, { saved: true, buffered: false, totalTurns: 1 });
  },
  async "@afw/tool-zoo"(m) {
    const index = m.createToolIndex();
    await index.add([{ server: "time", name: "get_current_time", description: "Get the current time in a timezone" }]);
    const result = await index.search({ query: "what time is it in Tokyo", mode: "keyword" });
    assert.equal(result.results[0]?.id, "time/get_current_time");
  },
  async "@afw/downstream"(m) {
    assert.equal(typeof m.createDownstreamManager, "function");
  },
  async "@afw/dashboard"(m) {
    assert.equal(typeof m, "object");
  },
  async "@afw/server"(m) {
    assert.equal(typeof m.createGatewayServer, "function");
  },
};

// @afw/gateway is a command (bin `afw`, no exports): pack-smoke.mjs runs it with npx.
const installed = readdirSync("node_modules/@afw").map((name) => `@afw/${name}`).filter((name) => name !== "@afw/gateway");
for (const name of installed) {
  const module = await import(name);
  const check = checks[name];
  if (check) await check(module);
  console.log(`ok ${name}${check ? "" : " (imported; no call defined)"}`);
}
