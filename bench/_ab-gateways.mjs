#!/usr/bin/env node
// Not a scenario of `pnpm bench` (run by hand): the server CPU per call of two builds of the gateway, side by side.
// Two gateway processes, one per checkout (each started by its own bench/server-child.mjs), both pinned to CPU 1; this
// driver and one backend reproduction on CPU 0. After WARM calls each (interleaved in chunks of 200), BLOCKS blocks of
// SIZE cache misses are sent alternately (the order flips every block), and each block's CPU per call is read from the
// gateway's own process.cpuUsage(). Prints the medians and the median of the per-block ratios B/A.
//
//   MODE=auto|explicit [WARM=3000] [BLOCKS=30] [SIZE=100] node bench/_ab-gateways.mjs <checkout A> <checkout B>
//
// Both checkouts must be built. The gateway started first tends to look dearer: run both orders and read the pair.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { cpus, loadavg } from "node:os";
import { execFileSync } from "node:child_process";
import { linkedFetch } from "./_lib.mjs";
execFileSync("taskset", ["-p", "-c", "0", String(process.pid)]);
const trees = { A: process.argv[2], B: process.argv[3] };
const MODE = process.env.MODE ?? "auto";
const { sixIntentQuestion } = await import(`${trees.B}/bench/six-intent-questions.mjs`);
const fromServer = (p) => `${trees.B}/packages/server/node_modules/${p}`;
const { Client } = await import(fromServer("@modelcontextprotocol/sdk/dist/esm/client/index.js"));
const { StreamableHTTPClientTransport } = await import(fromServer("@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js"));
const start = (tree, role, args, core) => new Promise((resolve) => {
  const c = spawn("taskset", ["-c", core, process.execPath, `${tree}/bench/server-child.mjs`, role, ...args], { stdio: ["ignore", "pipe", "ignore"] });
  createInterface({ input: c.stdout }).once("line", (l) => resolve({ ...JSON.parse(l), child: c }));
});
const backend = await start(trees.B, "backend", [], "0");
const gw = {};
for (const k of ["A", "B"]) {
  gw[k] = await start(trees[k], "gateway", [backend.url], "1");
  gw[k].client = new Client({ name: "ab", version: "1" });
  await gw[k].client.connect(new StreamableHTTPClientTransport(new URL(gw[k].url), { fetch: linkedFetch }));
  gw[k].n = 0;
}
const call = async (k) => {
  const i = gw[k].n++;
  const args = MODE === "explicit" ? { question: `miss question ${i} ${Math.random()}`, intent: "conversation" } : { question: sixIntentQuestion(i).question };
  const r = await gw[k].client.callTool({ name: "universal_query", arguments: args });
  if (r.isError) throw new Error(r.content[0].text);
};
const cpu = async (k) => { const c = await (await fetch(gw[k].cpuUrl)).json(); return c.user + c.system; };
const WARM = Number(process.env.WARM ?? 3000), BLOCKS = Number(process.env.BLOCKS ?? 30), SIZE = Number(process.env.SIZE ?? 100);
for (let d = 0; d < WARM; d += 200) for (const k of ["A", "B"]) for (let i = 0; i < 200; i++) await call(k);
const per = { A: [], B: [] };
for (let b = 0; b < BLOCKS; b++) for (const k of b % 2 ? ["A", "B"] : ["B", "A"]) { const c0 = await cpu(k); for (let i = 0; i < SIZE; i++) await call(k); per[k].push((await cpu(k) - c0) / SIZE); }
const med = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const ratios = per.B.map((v, i) => v / per.A[i]);
console.log(`${MODE}: A median ${med(per.A).toFixed(0)} µs/call, B median ${med(per.B).toFixed(0)} µs/call, median per-block B/A ${med(ratios).toFixed(3)}, B lower in ${ratios.filter((r) => r < 1).length}/${BLOCKS} blocks; load ${loadavg()[0].toFixed(1)}`);
for (const k of ["A", "B"]) gw[k].child.kill("SIGTERM"); backend.child.kill("SIGTERM");
process.exit(0);
