// Shared helpers for benchmark scripts: percentiles, timing loops, machine description, output.
import { cpus, totalmem, platform, release } from "node:os";
import { writeFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { percentile as nearestRank } from "../packages/contracts/dist/index.js";

/** The machine the numbers were measured on. */
export function describeMachine() {
  return {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    os: `${platform()} ${release()}`,
    date: new Date().toISOString(),
  };
}

/** Percentile (0..100) of an array of numbers: @afw/contracts' nearest rank, NaN for none. */
export function percentile(values, p) {
  return nearestRank(values, p) ?? NaN;
}

/** Summary statistics of latencies in ms. */
export function summarize(values) {
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return { count: values.length, p50: percentile(values, 50), p95: percentile(values, 95), p99: percentile(values, 99), mean, max: Math.max(...values) };
}

/**
 * Runs `fn` `warmup` times, then up to `iterations` times or until `maxMs` elapsed; returns the
 * per-call latencies in milliseconds (closed loop, one call at a time).
 */
export async function measure(fn, { iterations = 1000, warmup = 50, maxMs = 20_000 } = {}) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples = [];
  const deadline = performance.now() + maxMs;
  for (let i = 0; i < iterations && performance.now() < deadline; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  return samples;
}

/** Rounds to `digits` decimals for display. */
export const round = (x, digits = 3) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : x);

/** Prints `rows` as a table and writes `{ machine, rows, notes, ...extra }` to bench/results/<name>.json. */
export function report(name, rows, { notes = [], extra = {} } = {}) {
  const machine = describeMachine();
  console.log(`${name} — ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`);
  console.table(rows);
  for (const note of notes) console.log(`- ${note}`);
  const dir = fileURLToPath(new URL("./results/", import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${name}.json`, JSON.stringify({ machine, rows, notes, ...extra }, null, 2) + "\n");
}

/**
 * Runs `run(index)` for index 0..total-1 with `concurrency` calls in flight (closed loop) and
 * returns the throughput in calls per second.
 */
export async function runConcurrently(run, total, concurrency) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await run(next++);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

/** A latency-row recorder: `stat(name, samples, extra)` summarizes samples into a row of `rows` and returns the summary. */
export function latencyRows(rows) {
  return (name, samples, extra = {}) => {
    const s = summarize(samples);
    rows.push({ scenario: name, calls: s.count, p50_ms: round(s.p50), p95_ms: round(s.p95), p99_ms: round(s.p99), mean_ms: round(s.mean), ...extra });
    return s;
  };
}

// The SDK client passes one long-lived AbortSignal to every fetch; undici only drops each
// request's abort listener when the request is garbage-collected, so a long run collects
// thousands (MaxListenersExceededWarning). A per-request signal linked to the long-lived one,
// unlinked when the response arrives, keeps the listener count flat (JSON responses only: an SSE
// body outlives the fetch promise).
export function linkedFetch(url, init) {
  const outer = init?.signal;
  if (!outer) return fetch(url, init);
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer.reason);
  outer.addEventListener("abort", onAbort, { once: true });
  return fetch(url, { ...init, signal: controller.signal }).finally(() => outer.removeEventListener("abort", onAbort));
}
