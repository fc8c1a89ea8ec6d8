import { readFile } from "node:fs/promises";
import {
  AfwError,
  emitTrace,
  formatZodError,
  WORKFLOW_LABEL_NAMES,
  WorkflowDescriptorSchema,
  type SearchWorkflowCatalogInput,
  type WorkflowDescriptor,
  type WorkflowDescriptorInput,
  type WorkflowSearchHit,
} from "@afw/contracts";
import { parse as parseYaml } from "yaml";
import type { WorkflowCatalogPort, WorkflowSearchResult } from "./ports.js";

const STOP = new Set(["a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "is", "are", "my", "our", "with", "how", "what", "do", "i", "it", "be", "when"]);

function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => !STOP.has(t)).map((t) => (t.length > 4 && t.endsWith("s") ? t.slice(0, -1) : t));
}

/** Orders semver strings (pre-releases before releases). */
function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = "", pre] = v.split(/[-+]/, 2);
    return { parts: core.split(".").map(Number), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre.localeCompare(y.pre);
}

/**
 * Parses workflow descriptors from a parsed file: an array, or `{ workflows: [...] }`.
 *
 * @throws AfwError `CONFIG_INVALID` naming the source, the entry and the problem.
 */
export function parseWorkflowCatalog(value: unknown, source = "workflow catalog"): WorkflowDescriptor[] {
  const list = Array.isArray(value) ? value : (value as { workflows?: unknown } | null)?.workflows;
  if (!Array.isArray(list)) throw new AfwError("CONFIG_INVALID", `${source}: (root): expected a list of workflows or { workflows: [...] }`, { details: { source } });
  return list.map((item, index) => {
    const parsed = WorkflowDescriptorSchema.safeParse(item);
    if (!parsed.success) {
      throw new AfwError("CONFIG_INVALID", `${source}: workflows.${index}: ${formatZodError(parsed.error)}`, { details: { source, index } });
    }
    return parsed.data;
  });
}

/**
 * Reads a workflow catalog file (JSON, or YAML by extension `.yaml`/`.yml`).
 *
 * @throws AfwError `CONFIG_INVALID` when the file cannot be read or parsed, or an entry is invalid.
 */
export async function loadWorkflowCatalogFile(path: string): Promise<WorkflowDescriptor[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new AfwError("CONFIG_INVALID", `${path}: cannot read the workflow catalog (${(error as NodeJS.ErrnoException).code ?? "error"})`, { details: { source: path } });
  }
  let value: unknown;
  try {
    value = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new AfwError("CONFIG_INVALID", `${path}: cannot parse the workflow catalog (${(error as Error).message.split("\n")[0]})`, { details: { source: path } });
  }
  return parseWorkflowCatalog(value, path);
}

/**
 * A small in-process workflow catalog: exact `label.*` filters (a workflow whose label list is
 * empty applies to any value), `exclude_keywords`, and keyword scoring over title, signal types,
 * keywords and description (newest version of each workflow). It is the server's built-in
 * fallback until `@afw/tool-zoo` provides the hybrid workflow search.
 *
 * @example
 * ```ts
 * const catalog = createBasicWorkflowCatalog(await loadWorkflowCatalogFile("workflows.yaml"));
 * const { results } = await catalog.search(SearchWorkflowCatalogInputSchema.parse({ query: "OOMKilled" }));
 * ```
 */
export function createBasicWorkflowCatalog(workflows: readonly (WorkflowDescriptor | WorkflowDescriptorInput)[] = []): WorkflowCatalogPort {
  const all = workflows.map((w) => WorkflowDescriptorSchema.parse(w));
  const byId = new Map<string, WorkflowDescriptor[]>();
  for (const workflow of all) {
    const versions = byId.get(workflow.workflow_id) ?? [];
    versions.push(workflow);
    versions.sort((a, b) => compareVersions(b.version, a.version));
    byId.set(workflow.workflow_id, versions);
  }
  const latest = [...byId.values()].map((versions) => versions[0]!);
  const indexed = latest.map((workflow) => ({
    workflow,
    title: new Set(tokens(workflow.title)),
    signals: new Set(workflow.signal_types.flatMap((s) => [s.toLowerCase(), ...tokens(s.replace(/([a-z])([A-Z])/g, "$1 $2"))])),
    keywords: new Set(workflow.keywords.flatMap(tokens)),
    description: new Set(tokens(workflow.description)),
    text: [workflow.title, workflow.description, ...workflow.keywords, ...workflow.steps.map((s) => `${s.name} ${s.action} ${s.description ?? ""}`)].join(" ").toLowerCase(),
  }));

  return {
    size: all.length,
    async search(input: SearchWorkflowCatalogInput, options): Promise<WorkflowSearchResult> {
      const queryTokens = [...new Set(tokens(input.query))];
      const rawQuery = input.query.toLowerCase();
      const filters: Record<string, string> = {};
      for (const name of WORKFLOW_LABEL_NAMES) {
        const value = input[`label.${name}` as const];
        if (value !== undefined) filters[name] = value;
      }
      const exclusions = input.exclude_keywords.map((k) => k.toLowerCase());
      const scored: { hit: WorkflowSearchHit; score: number }[] = [];
      for (const entry of indexed) {
        const { workflow } = entry;
        const passes = Object.entries(filters).every(([name, value]) => {
          const values = workflow.labels[name as (typeof WORKFLOW_LABEL_NAMES)[number]] as string[];
          if (name === "signal-type") return values.length === 0 ? workflow.signal_types.includes(value) : values.includes(value);
          return values.length === 0 || values.includes(value);
        });
        if (!passes || exclusions.some((k) => entry.text.includes(k))) continue;
        let score = 0;
        for (const token of queryTokens) {
          if (entry.signals.has(token)) score += 3;
          if (entry.title.has(token)) score += 2;
          if (entry.keywords.has(token)) score += 1.5;
          if (entry.description.has(token)) score += 1;
        }
        if (workflow.signal_types.some((s) => rawQuery.includes(s.toLowerCase()))) score += 3;
        const maximum = Math.max(1, queryTokens.length * 7.5);
        const confidence = Math.min(1, score / maximum + (Object.keys(filters).length > 0 ? 0.1 : 0));
        if (score === 0 && queryTokens.length > 0) continue;
        scored.push({
          score,
          hit: {
            workflow_id: workflow.workflow_id,
            version: workflow.version,
            title: workflow.title,
            description: workflow.description,
            signal_types: workflow.signal_types,
            confidence: Math.round(confidence * 1000) / 1000,
            estimated_duration: workflow.estimated_duration,
            success_rate: workflow.success_rate,
            labels: workflow.labels,
          },
        });
      }
      scored.sort((a, b) => b.score - a.score || b.hit.success_rate - a.hit.success_rate || a.hit.workflow_id.localeCompare(b.hit.workflow_id));
      const results = scored.slice(0, input.top_k).map((s) => s.hit);
      emitTrace(options?.trace, "tool-search-performed", {
        target: "workflows",
        query: input.query,
        mode: "keyword",
        ...(Object.keys(filters).length > 0 ? { filters } : {}),
        results: scored.slice(0, input.top_k).map((s) => ({ id: `${s.hit.workflow_id}@${s.hit.version}`, score: s.score })),
        confidence: results[0]?.confidence ?? 0,
      });
      return { results, total: scored.length };
    },
    async get(input) {
      const versions = byId.get(input.workflow_id);
      if (!versions) return undefined;
      return input.version === undefined ? versions[0] : versions.find((w) => w.version === input.version);
    },
  };
}
