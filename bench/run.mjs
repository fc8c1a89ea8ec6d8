#!/usr/bin/env node
// Runs every benchmark scenario in bench/ (each a standalone script that prints a table and writes
// bench/results/<name>.json), then combines them into bench/results/latest.json and
// bench/results/latest.md with the machine's description.
// Usage: pnpm bench [name ...]   (e.g. `pnpm bench router cache`)
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { describeMachine } from "./_lib.mjs";

const dir = fileURLToPath(new URL(".", import.meta.url));
const resultsDir = join(dir, "results");
const renderOnly = process.argv.includes("--render-only");
const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
// A scenario is a file of this folder that writes its results through `report` of `_lib.mjs`; the others are its helpers
// (`_lib.mjs`, `*-child.mjs`, the question module) or tools run by hand (`read-cpu-profile.mjs`, `_ab-gateways.mjs`).
const scenarios = readdirSync(dir)
  .filter((f) => f.endsWith(".mjs") && f !== "run.mjs" && !f.startsWith("_") && !f.endsWith("-child.mjs"))
  .filter((f) => readFileSync(join(dir, f), "utf8").includes("report("))
  .map((f) => f.replace(/\.mjs$/, ""))
  .filter((name) => only.length === 0 || only.includes(name))
  .sort();

export const machine = describeMachine();

const combined = renderOnly ? JSON.parse(readFileSync(join(resultsDir, "latest.json"), "utf8")) : { machine, scenarios: {} };
if (!renderOnly) console.log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}`);
for (const name of renderOnly ? [] : scenarios) {
  console.log(`\n### ${name}`);
  const started = Date.now();
  const run = spawnSync(process.execPath, [join(dir, `${name}.mjs`)], { stdio: "inherit", timeout: 10 * 60_000 });
  const file = join(resultsDir, `${name}.json`);
  const ok = run.status === 0 && existsSync(file);
  combined.scenarios[name] = ok
    ? { ok: true, seconds: (Date.now() - started) / 1000, result: JSON.parse(readFileSync(file, "utf8")) }
    : { ok: false, seconds: (Date.now() - started) / 1000, exitCode: run.status, signal: run.signal };
  if (!ok) console.log(`!! ${name} failed (exit ${run.status}${run.signal ? `, ${run.signal}` : ""})`);
}
if (!renderOnly) writeFileSync(join(resultsDir, "latest.json"), JSON.stringify(combined, null, 2) + "\n");

const m = combined.machine;
const lines = [`# Benchmark results`, ``, `${m.date} — ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}, ${m.os}`, ``];
for (const [name, s] of Object.entries(combined.scenarios)) {
  lines.push(`## ${name}`, ``);
  if (!s.ok) {
    lines.push(`failed (exit ${s.exitCode})`, ``);
    continue;
  }
  const rows = s.result.rows ?? [];
  if (rows.length) {
    const cols = [...new Set(rows.flatMap((row) => Object.keys(row)))];
    lines.push(`| ${cols.join(" | ")} |`, `| ${cols.map(() => "---").join(" | ")} |`);
    for (const row of rows) lines.push(`| ${cols.map((c) => row[c] ?? "").join(" | ")} |`);
    lines.push("");
  }
  if (!rows.length) {
    const { machine: _machine, ...rest } = s.result;
    lines.push("```json", JSON.stringify(rest, (_k, v) => (typeof v === "number" ? Number(v.toFixed(3)) : v), 2), "```", "");
  }
  for (const note of s.result.notes ?? []) lines.push(`- ${note}`);
  lines.push("");
}
writeFileSync(join(resultsDir, "latest.md"), lines.join("\n"));
console.log(renderOnly ? "rendered bench/results/latest.md" : `\nwrote bench/results/latest.json and latest.md`);
process.exitCode = Object.values(combined.scenarios).every((s) => s.ok) ? 0 : 1;
