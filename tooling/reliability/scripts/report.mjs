#!/usr/bin/env node
/**
 * `pnpm --filter @afw/reliability report`: runs every reliability suite at full size
 * (RELIABILITY_FULL=1: 2,000 flaky-backend queries, 2,000 dead-backend samples, 20 clients x
 * 60 s of sustained load, ...) and prints the figures they measured, grouped by suite.
 * Extra arguments go to vitest (e.g. a file name to run one suite). Exit code: vitest's.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dir = mkdtempSync(join(tmpdir(), "afw-reliability-report-"));
const figuresFile = join(dir, "figures.jsonl");
const run = spawnSync("pnpm", ["exec", "vitest", "run", ...process.argv.slice(2)], {
  cwd: root,
  stdio: ["ignore", "inherit", "inherit"],
  env: { ...process.env, RELIABILITY_FULL: "1", RELIABILITY_FIGURES: figuresFile, TURBO_TELEMETRY_DISABLED: "1" },
  timeout: 30 * 60_000,
});

const lines = existsSync(figuresFile) ? readFileSync(figuresFile, "utf8").split("\n").filter(Boolean) : [];
const bySuite = new Map();
for (const line of lines) {
  const { suite, name, value } = JSON.parse(line);
  if (!bySuite.has(suite)) bySuite.set(suite, []);
  bySuite.get(suite).push([name, value]);
}
const format = (value) => (typeof value === "object" && value !== null ? JSON.stringify(value) : String(value));
process.stdout.write(`\n# Reliability figures (${new Date().toISOString()}, full size)\n`);
for (const [suite, figures] of bySuite) {
  process.stdout.write(`\n## ${suite}\n`);
  for (const [name, value] of figures) process.stdout.write(`- ${name}: ${format(value)}\n`);
}
rmSync(dir, { recursive: true, force: true });
process.exit(run.status ?? 1);
