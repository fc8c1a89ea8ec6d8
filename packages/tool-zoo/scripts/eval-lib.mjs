// Shared helpers of the retrieval evaluation (used by scripts/eval.mjs and the quality test).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { delimiter, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The package root. */
export const packageRoot = resolve(here, "..");

/** Where the shared dev data lives: $AFW_SHARED_DATA, else ../shared/data beside the repo. */
export function sharedDataDir() {
  const candidates = [process.env.AFW_SHARED_DATA, resolve(packageRoot, "../../../shared/data"), resolve(packageRoot, "../../shared/data")];
  return candidates.find((dir) => dir && existsSync(resolve(dir, "tools-catalog.json")));
}

/**
 * Where the public cross-catalog data lives (see eval/DATA-SOURCES.md): the folders $AFW_TOOL_EVAL_DATA lists
 * (separated like PATH: `/work/afw-data/tool-eval:/tmp/tool-eval-extra`), else ../shared/tool-eval beside the repo,
 * else eval/data in the package (not committed).
 */
export function evalDataDirs() {
  const hasData = (dir) => dir && existsSync(dir) && readdirSync(dir).some((f) => f.endsWith(".json"));
  const listed = (process.env.AFW_TOOL_EVAL_DATA ?? "").split(delimiter).filter(hasData);
  if (listed.length > 0) return listed;
  const fallback = [resolve(packageRoot, "../../../shared/tool-eval"), resolve(packageRoot, "../../shared/tool-eval"), resolve(packageRoot, "eval/data")].find(hasData);
  return fallback ? [fallback] : [];
}

/**
 * Which public catalogs may be looked at while tuning (`tuning`) and which are only measured
 * (`unseen`: their misses are never printed by the tuning scripts). A catalog not listed is unseen.
 */
export const CATALOG_ROLES = { bfcl: "tuning", "bfcl-live": "unseen", "mcp-bench": "unseen", "nestful-glaive": "tuning", "nestful-rapidapi": "tuning", "nestful-sgd": "tuning", restbench: "tuning" };

/**
 * The public catalogs of the given folders: `{ catalog, source, tools, tasks: [{ id, query, needed, kind }], role }`,
 * by file name; a catalog found in two folders is read from the first.
 */
export function loadExternalCatalogs(dirs = evalDataDirs()) {
  const seen = new Set();
  return dirs
    .flatMap((dir) =>
      readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => JSON.parse(readFileSync(resolve(dir, f), "utf8"))),
    )
    .filter((c) => Array.isArray(c.tools) && Array.isArray(c.tasks) && !seen.has(c.catalog) && seen.add(c.catalog))
    .map((c) => ({ ...c, role: CATALOG_ROLES[c.catalog] ?? "unseen" }));
}

/** The persisted tool-embedding cache used by eval, tests and the bench. */
export const embeddingCachePath = resolve(packageRoot, "node_modules/.cache/afw-tool-zoo/tool-vectors.json");

/** Loads the dev tasks. */
export function loadTasks(dir) {
  return JSON.parse(readFileSync(resolve(dir, "tools-dev.json"), "utf8")).tasks;
}

/**
 * Scores ranked id lists against tasks. A task lists either `relevant` (acceptable alternatives:
 * any one is right) or `needed` (every one is needed, e.g. a multi-step task). top-1: the first
 * result is right; hit@5: a right tool in the top 5; needed@5: the share of the needed tools in the
 * top 5 (for alternatives, same as hit@5); MRR of the first right tool.
 */
export function scoreRankings(tasks, rankings) {
  let top1 = 0;
  let r5 = 0;
  let r10 = 0;
  let needed5 = 0;
  let mrr = 0;
  const misses = [];
  tasks.forEach((task, i) => {
    const ids = rankings[i];
    const right = task.needed ?? task.relevant;
    const rank = ids.findIndex((id) => right.includes(id));
    if (rank === 0) top1++;
    if (rank >= 0 && rank < 5) r5++;
    if (rank >= 0 && rank < 10) r10++;
    if (rank >= 0) mrr += 1 / (rank + 1);
    const top5 = new Set(ids.slice(0, 5));
    needed5 += task.needed ? task.needed.filter((id) => top5.has(id)).length / Math.min(5, task.needed.length) : rank >= 0 && rank < 5 ? 1 : 0;
    if (rank !== 0) misses.push({ id: task.id, query: task.query, relevant: right, rank: rank < 0 ? null : rank + 1, got: ids.slice(0, 3) });
  });
  const n = tasks.length || 1;
  return { top1: top1 / n, recall5: r5 / n, recall10: r10 / n, needed5: needed5 / n, mrr: mrr / n, misses };
}

/** Formats a fraction as a percentage. */
export const pct = (x) => `${(100 * x).toFixed(1)}%`;
