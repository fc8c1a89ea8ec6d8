#!/usr/bin/env node
// Smoke test of the README's first command: `pnpm start` (build the JavaScript of the gateway and its packages, then
// `afw serve` on embedded defaults) on a fresh clone. Starts it on a free loopback port, waits for the "serving MCP"
// line, checks /healthz and an MCP initialize + tools/list over Streamable HTTP, then stops it with SIGTERM and
// expects it gone within 20 s. Fails (exit 1) with the output it saw. Used by .ci/run before the tests build anything.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const START_TIMEOUT_MS = Number(process.env.AFW_START_SMOKE_TIMEOUT_MS ?? 300_000);

/** A loopback port nobody listens on right now. */
const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const port = await freePort();
const started = Date.now();
// its own process group, so SIGTERM reaches pnpm, the shell and the gateway alike
const child = spawn("pnpm", ["start", "--port", String(port)], { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"] });
const serving = new RegExp(`serving MCP on http://127\\.0\\.0\\.1:${port}/mcp`);
let output = "";
let markServing;
const servingSeen = new Promise((resolve) => (markServing = resolve));
const collect = (chunk) => {
  output += chunk;
  if (serving.test(output)) markServing("serving");
};
child.stdout.on("data", collect);
child.stderr.on("data", collect);
const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));

const fail = (message) => {
  console.error(`start smoke: ${message}\n--- output of pnpm start ---\n${output.slice(-6000)}`);
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
  process.exit(1);
};

let timer;
const ready = await Promise.race([
  servingSeen,
  exited.then(() => "exited"),
  new Promise((resolve) => (timer = setTimeout(() => resolve("timeout"), START_TIMEOUT_MS))),
]);
clearTimeout(timer);
if (ready !== "serving") fail(ready === "exited" ? "pnpm start exited before serving" : `not serving after ${START_TIMEOUT_MS / 1000} s`);
console.error(`start smoke: serving on port ${port} after ${((Date.now() - started) / 1000).toFixed(1)} s`);

const base = `http://127.0.0.1:${port}`;
const health = await fetch(`${base}/healthz`).catch((error) => fail(`GET /healthz failed: ${error.message}`));
if (!health.ok) fail(`GET /healthz answered ${health.status}`);

/** One JSON-RPC request over Streamable HTTP; returns the result (JSON or a single SSE message). */
async function rpc(id, method, params) {
  const response = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  });
  const text = await response.text();
  if (!response.ok) fail(`${method} answered HTTP ${response.status}: ${text.slice(0, 500)}`);
  const json = response.headers.get("content-type")?.includes("text/event-stream")
    ? JSON.parse(text.split("\n").find((line) => line.startsWith("data:"))?.slice(5) ?? "null")
    : JSON.parse(text);
  if (!json || json.error) fail(`${method} failed: ${text.slice(0, 500)}`);
  return json.result;
}

const init = await rpc(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "start-smoke", version: "0" } });
const tools = await rpc(2, "tools/list", {});
const names = (tools?.tools ?? []).map((tool) => tool.name);
for (const wanted of ["universal_query", "search_tools"]) if (!names.includes(wanted)) fail(`tools/list lacks ${wanted}: ${names.join(", ")}`);
console.error(`start smoke: ${init.serverInfo?.name} ${init.serverInfo?.version} lists ${names.length} tools`);

process.kill(-child.pid, "SIGTERM");
const stop = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(undefined), 20_000))]);
if (!stop) fail("still running 20 s after SIGTERM");
console.error(`start smoke: stopped (${stop.signal ?? `exit ${stop.code}`}) ${((Date.now() - started) / 1000).toFixed(1)} s after the start`);
