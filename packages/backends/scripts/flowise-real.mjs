#!/usr/bin/env node
// Opt-in integration test: runs the Flowise adapter against a real Flowise 3.1.2 whose chatflow
// calls a local OpenAI-compatible stub. Not part of `pnpm test`.
//
//   AFW_FLOWISE_REAL=1 pnpm --filter @afw/backends test:flowise-real
//
// Environment:
//   AFW_FLOWISE_REAL=1     opt in (without it the script prints "skipped" and exits 0)
//   AFW_FLOWISE_DIR        install/cache directory (default ~/.cache/afw-flowise-real/3.1.2)
//   AFW_FLOWISE_URL        use an already running Flowise instead of starting one
//                          (then also AFW_FLOWISE_EMAIL / AFW_FLOWISE_PASSWORD to bootstrap)
//   AFW_FLOWISE_KEEP=1     keep the temporary data directory
//   AFW_FLOWISE_RECORD=DIR write the real replies as fixtures (see src/__fixtures__)
//
// Steps: install Flowise 3.1.2 outside the repo (npm install --ignore-scripts with overrides
// pinning flowise-components/flowise-ui, then npm rebuild sqlite3), start an OpenAI-compatible
// stub on 127.0.0.1, start Flowise on 127.0.0.1, register an account, log in, create an API key
// and a "Conversation Chain" chatflow whose ChatOpenAI node points at the stub, then run the
// adapter: health, discovery, execute (with session), stream. Prints "N passed, N failed".
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

if (process.env.AFW_FLOWISE_REAL !== "1") {
  console.log("flowise-real: skipped (set AFW_FLOWISE_REAL=1 to install Flowise 3.1.2 and run the adapter against it)");
  process.exit(0);
}

const { FLOWISE_VERSION, FlowiseSession, flowiseDir: installDir, installFlowise, startFlowise, startOpenAiStub } = await import("@afw/testing");
const { createFlowiseBackend } = await import(join(here, "..", "dist", "index.js")).catch(() => {
  console.error("flowise-real: build the package first: pnpm --filter @afw/backends build");
  process.exit(1);
});

const log = (...args) => console.log(`[flowise-real ${new Date().toISOString().slice(11, 19)}]`, ...args);
const results = [];
async function check(name, run) {
  const started = performance.now();
  try {
    const detail = await run();
    results.push({ name, ok: true });
    log(`PASS ${name} (${Math.round(performance.now() - started)} ms)${detail ? ` - ${detail}` : ""}`);
  } catch (error) {
    results.push({ name, ok: false });
    log(`FAIL ${name}: ${error?.stack ?? error}`);
  }
}
function assert(condition, message) {
  if (!condition) throw new Error(message);
}

// ---------------------------------------------------------------- REST bootstrap (helpers: @afw/testing)
async function bootstrap(url, flowiseDir, stubUrl) {
  const session = new FlowiseSession(url);
  const email = process.env.AFW_FLOWISE_EMAIL ?? "afw-admin@example.test";
  const password = process.env.AFW_FLOWISE_PASSWORD ?? "Afw-Passw0rd!2025";
  const { apiKey, apiKeyId } = await session.bootstrap({ email, password, register: !process.env.AFW_FLOWISE_URL });
  log(`logged in (${session.cookies.size} cookies), created an API key`);
  const create = async (name, streaming) => {
    const id = await session.createConversationChain(flowiseDir, { name, stubUrl, streaming });
    log(`created chatflow ${id} (${name})`);
    return id;
  };
  const chatflowId = await create("AFW Conversation Chain", true);
  const plainChatflowId = await create("AFW Conversation Chain (no streaming)", false);
  const securedChatflowId = await create("AFW Secured Chain", true);
  await session.call("PUT", `/api/v1/chatflows/${securedChatflowId}`, { apikeyid: apiKeyId });
  log("bound the API key to the secured chatflow");
  return { apiKey, chatflowId, plainChatflowId, securedChatflowId };
}

// ---------------------------------------------------------------- fixtures
// AFW_FLOWISE_RECORD=<dir> writes real replies (status, content-type, body) as test fixtures.
async function record(dir, url, apiKey, ids) {
  mkdirSync(dir, { recursive: true });
  const save = async (name, path, init = {}) => {
    const response = await fetch(`${url}${path}`, { ...init, signal: AbortSignal.timeout(120_000) });
    const body = await response.text();
    writeFileSync(join(dir, name), JSON.stringify({ flowise: FLOWISE_VERSION, request: `${init.method ?? "GET"} ${path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<id>")}`, status: response.status, contentType: response.headers.get("content-type"), body }, null, 2) + "\n");
    log(`recorded ${name} (${response.status}, ${body.length} chars)`);
  };
  const auth = { authorization: `Bearer ${apiKey}` };
  const json = { "content-type": "application/json" };
  const post = (body, headers = {}) => ({ method: "POST", headers: { ...json, ...headers }, body: JSON.stringify(body) });
  await save("flowise-ping.json", "/api/v1/ping");
  await save("flowise-version.json", "/api/v1/version");
  await save("flowise-chatflows-page.json", "/api/v1/chatflows?page=1&limit=1", { headers: auth });
  await save("flowise-chatflows-401.json", "/api/v1/chatflows", { headers: { authorization: "Bearer wrong" } });
  await save("flowise-chatflows-streaming.json", `/api/v1/chatflows-streaming/${ids.chatflowId}`);
  await save("flowise-prediction.json", `/api/v1/prediction/${ids.chatflowId}`, post({ question: "Fixture question", overrideConfig: { sessionId: "fixture-session" }, history: [{ role: "userMessage", content: "earlier" }, { role: "apiMessage", content: "reply" }] }));
  await save("flowise-prediction-stream.json", `/api/v1/prediction/${ids.chatflowId}`, post({ question: "Fixture stream", streaming: true, overrideConfig: { sessionId: "fixture-stream" } }));
  await save("flowise-prediction-nonstreaming-flow.json", `/api/v1/prediction/${ids.plainChatflowId}`, post({ question: "Fixture plain", streaming: true }));
  await save("flowise-prediction-404.json", "/api/v1/prediction/00000000-0000-4000-8000-000000000000", post({ question: "x" }));
  await save("flowise-prediction-not-a-uuid.json", "/api/v1/prediction/not-a-uuid", post({ question: "x" }));
  await save("flowise-chatflows-streaming-unknown.json", "/api/v1/chatflows-streaming/00000000-0000-4000-8000-000000000000");
  // Flowise 3.1.2 never answers a *streaming* prediction for an unknown chatflow (its error
  // handler skips streaming requests): the request hangs. Record that it does not answer in 3 s.
  const hung = await fetch(`${url}/api/v1/prediction/00000000-0000-4000-8000-000000000000`, { ...post({ question: "x", streaming: true }), signal: AbortSignal.timeout(3_000) })
    .then((response) => `answered ${response.status}`)
    .catch((error) => (error?.name === "TimeoutError" ? "no answer within 3000 ms" : String(error)));
  writeFileSync(join(dir, "flowise-prediction-stream-unknown-flow.json"), JSON.stringify({ flowise: FLOWISE_VERSION, request: "POST /api/v1/prediction/<unknown id> (streaming: true)", observed: hung }, null, 2) + "\n");
  log(`streaming prediction of an unknown chatflow: ${hung}`);
  await save("flowise-prediction-unauthorized.json", `/api/v1/prediction/${ids.securedChatflowId}`, post({ question: "x" }));
  await save("flowise-prediction-unauthorized-stream.json", `/api/v1/prediction/${ids.securedChatflowId}`, post({ question: "x", streaming: true }));
}

// ---------------------------------------------------------------- main
const flowiseDir = installDir();
let flowise;
const stub = await startOpenAiStub();
try {
  let url = process.env.AFW_FLOWISE_URL;
  if (!url) {
    installFlowise(flowiseDir, log);
    const started = performance.now();
    flowise = await startFlowise(flowiseDir);
    url = flowise.url;
    log(`Flowise on ${url} (data in ${flowise.dataDir}) answered ping after ${Math.round(performance.now() - started)} ms`);
  }

  const { apiKey, chatflowId, plainChatflowId, securedChatflowId } = await bootstrap(url, flowiseDir, stub.url);
  const backend = createFlowiseBackend({ id: "flowise-real", baseURL: url, apiKey, timeouts: { requestTimeoutMs: 120_000 } });

  await check("health", async () => {
    const health = await backend.checkHealth();
    assert(health.status !== "down", `down: ${health.message}`);
    assert(health.version === FLOWISE_VERSION, `version ${health.version}`);
    return `${health.status}, ${health.latencyMs} ms, version ${health.version}`;
  });
  await check("discover", async () => {
    const flows = await backend.discoverFlows();
    const flow = flows.find((candidate) => candidate.backendFlowId === chatflowId);
    assert(flow, `chatflow ${chatflowId} not discovered among ${flows.length}`);
    assert(flow.tags.includes("afw"), `tags ${flow.tags}`);
    return `${flows.length} flow(s); intents ${flow.intents.join(",")}; capabilities ${flow.capabilities.join(",")}`;
  });
  await check("execute with session", async () => {
    const first = await backend.execute({ flowId: chatflowId, question: "Hello from the adapter", sessionId: "afw-real-1" });
    assert(first.text.startsWith("Stub answer to: Hello from the adapter"), `text ${first.text}`);
    assert(first.sessionId === "afw-real-1", `session ${first.sessionId}`);
    const second = await backend.execute({ flowId: chatflowId, question: "And again", sessionId: "afw-real-1" });
    const messages = Number(/\((\d+) messages\)/.exec(second.text)?.[1]);
    assert(messages > Number(/\((\d+) messages\)/.exec(first.text)?.[1]), `memory not carried: ${first.text} / ${second.text}`);
    return `"${first.text}" then "${second.text}"`;
  });
  const streamCheck = async (flowId, expectTokens) => {
    const chunks = [];
    for await (const chunk of backend.stream({ flowId, question: "Stream please", sessionId: `afw-real-${flowId}` })) chunks.push(chunk);
    const end = chunks.at(-1);
    assert(end?.type === "end", "no end chunk");
    const tokens = chunks.filter((chunk) => chunk.type === "token").map((chunk) => chunk.text);
    assert(expectTokens ? tokens.length > 1 : tokens.length === 0, `${tokens.length} tokens`);
    if (tokens.length) assert(end.result.text === tokens.join(""), "end text differs from tokens");
    assert(end.result.text.startsWith("Stub answer to: Stream please"), `text ${end.result.text}`);
    const events = [...new Set(chunks.filter((chunk) => chunk.type === "event").map((chunk) => chunk.name))];
    return `${tokens.length} token(s), events [${events.join(", ")}], isStreaming=${await backend.isStreaming(flowId)}, "${end.result.text}"`;
  };
  await check("stream (streaming chatflow, Flowise SSE)", () => streamCheck(chatflowId, true));
  await check("stream (non-streaming chatflow, one end chunk)", () => streamCheck(plainChatflowId, false));
  await check("unknown flow -> FLOW_NOT_FOUND", async () => {
    const error = await backend.execute({ flowId: "00000000-0000-4000-8000-000000000000", question: "x" }).catch((caught) => caught);
    assert(error?.code === "FLOW_NOT_FOUND", `got ${error?.code} ${error?.message}`);
    return error.message;
  });
  await check("wrong key -> BACKEND_AUTH_FAILED", async () => {
    const wrong = createFlowiseBackend({ id: "wrong", baseURL: url, apiKey: "definitely-wrong-key" });
    const error = await wrong.discoverFlows().catch((caught) => caught);
    assert(error?.code === "BACKEND_AUTH_FAILED", `got ${error?.code} ${error?.message}`);
    return `${error.statusCode}`;
  });
  await check("flow-bound key: prediction without it -> BACKEND_AUTH_FAILED", async () => {
    const anonymous = createFlowiseBackend({ id: "anonymous", baseURL: url, timeouts: { requestTimeoutMs: 120_000 } });
    const error = await anonymous.execute({ flowId: securedChatflowId, question: "x" }).catch((caught) => caught);
    assert(error?.code === "BACKEND_AUTH_FAILED" && error.isRetryable === false, `got ${error?.code} ${error?.message}`);
    const streamError = await (async () => {
      for await (const _chunk of anonymous.stream({ flowId: securedChatflowId, question: "x" })) {
        // drain
      }
    })().catch((caught) => caught);
    assert(streamError?.code === "BACKEND_AUTH_FAILED", `stream: got ${streamError?.code} ${streamError?.message}`);
    const ok = await backend.execute({ flowId: securedChatflowId, question: "with key" });
    assert(ok.text.startsWith("Stub answer to: with key"), ok.text);
    return `${error.statusCode}: ${error.details?.platformMessage}; stream: ${streamError.details?.platformMessage}`;
  });
  if (process.env.AFW_FLOWISE_RECORD) await record(process.env.AFW_FLOWISE_RECORD, url, apiKey, { chatflowId, plainChatflowId, securedChatflowId });
  log(`stub saw ${stub.calls.length} call(s)`);
} catch (error) {
  results.push({ name: "setup", ok: false });
  log(`FAIL setup: ${error?.stack ?? error}`);
} finally {
  stub.close();
  await flowise?.close(process.env.AFW_FLOWISE_KEEP === "1");
}
const passed = results.filter((result) => result.ok).length;
const failed = results.length - passed;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
