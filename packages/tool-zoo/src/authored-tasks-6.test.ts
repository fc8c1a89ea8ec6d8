// Integrity of the held-out tool-search set scripts/authored-tasks-6.json: every label names a catalog tool, ids are
// unique, and each task has the documented shape. It never runs a search on the set (the set is measured by the lead
// only). Needs tools-catalog.json from the shared data folder; skips with a message when it is absent.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

interface HeldOutTask {
  id: string;
  query: string;
  relevant?: string[];
  needed?: string[];
}

const here = dirname(fileURLToPath(import.meta.url));
const setFile = resolve(here, "../scripts/authored-tasks-6.json");
const dataDir = [process.env["AFW_SHARED_DATA"], resolve(here, "../../../../shared/data"), resolve(here, "../../../shared/data")].find(
  (dir): dir is string => !!dir && existsSync(join(dir, "tools-catalog.json")),
);
if (!dataDir) console.warn("[@afw/tool-zoo] authored-tasks-6 label check skipped: tools-catalog.json not found; set AFW_SHARED_DATA to the shared data folder to run it.");

const set = JSON.parse(readFileSync(setFile, "utf8")) as { description: string; tasks: HeldOutTask[] };
const labelsOf = (task: HeldOutTask): string[] => task.relevant ?? task.needed ?? [];

describe("authored-tasks-6 (held-out tool-search set)", () => {
  it("has unique ids and a description saying it is held out", () => {
    const ids = set.tasks.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(set.description).toMatch(/held.out/i);
  });

  it("gives each task a query and either 1-3 relevant tools or 2-5 needed steps", () => {
    for (const task of set.tasks) {
      expect(task.query.trim().length, task.id).toBeGreaterThan(0);
      expect(task.relevant === undefined, task.id).not.toBe(task.needed === undefined);
      const labels = labelsOf(task);
      const [min, max] = task.relevant ? [1, 3] : [2, 5];
      expect(labels.length, task.id).toBeGreaterThanOrEqual(min);
      expect(labels.length, task.id).toBeLessThanOrEqual(max);
      expect(new Set(labels).size, task.id).toBe(labels.length);
    }
    expect(set.tasks.filter((t) => t.relevant).length).toBeGreaterThanOrEqual(150);
    expect(set.tasks.filter((t) => t.needed).length).toBeGreaterThanOrEqual(40);
  });

  it.skipIf(!dataDir)("labels only tools of the catalog and covers every server", () => {
    const catalog = JSON.parse(readFileSync(join(dataDir!, "tools-catalog.json"), "utf8")) as { tools: { server: string; name: string }[] };
    const known = new Set(catalog.tools.map((t) => `${t.server}/${t.name}`));
    const unknown = set.tasks.flatMap((t) => labelsOf(t).filter((label) => !known.has(label)).map((label) => `${t.id}: ${label}`));
    expect(unknown).toEqual([]);
    const perServer = new Map<string, number>();
    for (const task of set.tasks) {
      const server = task.relevant?.[0]?.split("/")[0];
      if (server) perServer.set(server, (perServer.get(server) ?? 0) + 1);
    }
    // Written with at least 3 per server; the 8 removed for overlap with set 2 left one server with 2.
    for (const server of new Set(catalog.tools.map((t) => t.server))) expect(perServer.get(server) ?? 0, server).toBeGreaterThanOrEqual(2);
  });
});
