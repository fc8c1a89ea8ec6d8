// Shared helpers of the retrieval evaluation (used by scripts/eval.mjs and the quality test).
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The package root. */
export const packageRoot = resolve(here, "..");

/** Where the shared dev data lives: $AFW_SHARED_DATA, else ../shared/data beside the repo. */
export function sharedDataDir() {
  const candidates = [process.env.AFW_SHARED_DATA, resolve(packageRoot, "../../../shared/data"), resolve(packageRoot, "../../shared/data")];
  return candidates.find((dir) => dir && existsSync(resolve(dir, "tools-catalog.json")));
}

/** The persisted tool-embedding cache used by eval, tests and the bench. */
export const embeddingCachePath = resolve(packageRoot, "node_modules/.cache/afw-tool-zoo/tool-vectors.json");

/** Loads the dev tasks. */
export function loadTasks(dir) {
  return JSON.parse(readFileSync(resolve(dir, "tools-dev.json"), "utf8")).tasks;
}

/**
 * Scores ranked id lists against tasks: top-1, recall@5, recall@10 (any acceptable id within k)
 * and MRR (of the first acceptable id, over the list given).
 */
export function scoreRankings(tasks, rankings) {
  let top1 = 0;
  let r5 = 0;
  let r10 = 0;
  let mrr = 0;
  const misses = [];
  tasks.forEach((task, i) => {
    const ids = rankings[i];
    const rank = ids.findIndex((id) => task.relevant.includes(id));
    if (rank === 0) top1++;
    if (rank >= 0 && rank < 5) r5++;
    if (rank >= 0 && rank < 10) r10++;
    if (rank >= 0) mrr += 1 / (rank + 1);
    if (rank !== 0) misses.push({ id: task.id, query: task.query, relevant: task.relevant, rank: rank < 0 ? null : rank + 1, got: ids.slice(0, 3) });
  });
  const n = tasks.length || 1;
  return { top1: top1 / n, recall5: r5 / n, recall10: r10 / n, mrr: mrr / n, misses };
}

/** Formats a fraction as a percentage. */
export const pct = (x) => `${(100 * x).toFixed(1)}%`;
