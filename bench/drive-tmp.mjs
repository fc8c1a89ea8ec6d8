// temporary: drive one gateway with one scenario, for a differential CPU profile
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { sixIntentQuestion } from "./six-intent-questions.mjs";
const fromServer = (path) => new URL(`../packages/server/node_modules/${path}`, import.meta.url).href;
const { Client } = await import(fromServer("@modelcontextprotocol/sdk/dist/esm/client/index.js"));
const { StreamableHTTPClientTransport } = await import(fromServer("@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js"));
const mode = process.env.MODE, prof = process.env.PROF;
const start = (role, args, core) => new Promise((resolve) => {
  const c = spawn("taskset", ["-c", core, process.execPath, ...(prof && role === "gateway" ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : []), new URL("./server-child.mjs", import.meta.url).pathname, role, ...args], { stdio: ["ignore", "pipe", "ignore"] });
  createInterface({ input: c.stdout }).once("line", (l) => resolve({ ...JSON.parse(l), child: c }));
});
const backend = await start("backend", [], "0");
const gateway = await start("gateway", [backend.url], "1");
const client = new Client({ name: "d", version: "1" });
function linkedFetch(url, init) {
  const outer = init?.signal;
  if (!outer) return fetch(url, init);
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer.reason);
  outer.addEventListener("abort", onAbort, { once: true });
  return fetch(url, { ...init, signal: controller.signal }).finally(() => outer.removeEventListener("abort", onAbort));
}
await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { fetch: linkedFetch }));
let n = 0;
const call = async () => {
  const i = n++;
  const args = mode === "explicit" ? { question: `miss question ${i} ${Math.random()}`, intent: "conversation" } : { question: sixIntentQuestion(i).question };
  const r = await client.callTool({ name: "universal_query", arguments: args });
  if (r.isError) throw new Error(r.content[0].text);
};
const cpu = async () => (await fetch(gateway.cpuUrl)).json();
for (let i = 0; i < Number(process.env.WARM ?? 6000); i++) await call();
const res = [];
for (let r = 0; r < 5; r++) { const a = await cpu(); for (let i = 0; i < 1000; i++) await call(); const b = await cpu(); res.push((b.user - a.user + b.system - a.system) / 1000); }
console.log(mode, "cpu µs/call per block", res.map((x) => x.toFixed(0)).join(" "));
gateway.child.kill("SIGTERM"); backend.child.kill("SIGTERM");
await new Promise((r) => setTimeout(r, 1500)); process.exit(0);
