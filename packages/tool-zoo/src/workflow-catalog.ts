import {
  AfwError,
  emitTrace,
  EnvironmentSchema,
  parseOrThrow,
  GetPlaybookDetailsInputSchema,
  PrioritySchema,
  SearchWorkflowCatalogInputSchema,
  SeveritySchema,
  WORKFLOW_LABEL_NAMES,
  WorkflowDescriptorSchema,
  type Embedder,
  type GetPlaybookDetailsInput,
  type TraceContext,
  type WorkflowDescriptor,
  type WorkflowDescriptorInput,
  type WorkflowLabels,
  type WorkflowSearchHit,
} from "@afw/contracts";
import type { z } from "zod";
import { Bm25Index, normalizeScores } from "./bm25.js";
import { openEmbeddingCache, type EmbeddingCache } from "./embedding-cache.js";
import { createInMemoryVectorStore } from "./in-memory-vector-store.js";
import { createTextAnalyzer, splitIdentifier } from "./text-analysis.js";

type WorkflowField = "title" | "signals" | "keywords" | "description" | "steps";

const WORKFLOW_FIELD_WEIGHTS: Record<WorkflowField, { weight: number; b: number }> = {
  title: { weight: 3, b: 0.5 },
  signals: { weight: 3, b: 0.3 },
  keywords: { weight: 2, b: 0.5 },
  description: { weight: 1, b: 0.75 },
  steps: { weight: 0.4, b: 0.75 },
};

const ENVIRONMENT_ALIASES: Record<string, string> = { prod: "production", stage: "staging", dev: "development" };

/** Signal types (`crash loop back off` → `CrashLoopBackOff`), severities, environments (`prod`) and priorities named in a query. */
export interface RecognizedQuery {
  signalTypes: string[];
  severities: string[];
  environments: string[];
  priorities: string[];
}

/** Hits, best first (newest version of each workflow); `degraded` when ranked by labels + keywords only. */
export interface WorkflowSearchResponse {
  results: WorkflowSearchHit[];
  degraded: boolean;
  recognized: RecognizedQuery;
}

/** Options of {@link createWorkflowCatalog}: without an `embedder` ranking is label + keyword only (degraded). */
export interface WorkflowCatalogOptions {
  embedder?: Embedder;
  /** Initial workflows. */
  workflows?: readonly WorkflowDescriptorInput[];
  /** Persist workflow embeddings here (by content hash). */
  embeddingCachePath?: string;
  /** Default trace context for the audit events. */
  trace?: TraceContext;
}

/** Input of {@link WorkflowCatalog.searchWorkflowCatalog}: `search_workflow_catalog` input (contracts). */
export type WorkflowSearchInput = z.input<typeof SearchWorkflowCatalogInputSchema>;

/** The workflow (playbook) catalog; see {@link createWorkflowCatalog}. */
export interface WorkflowCatalog {
  /** Number of workflow versions held. */
  readonly size: number;
  /** Adds or replaces workflow versions (by `workflow_id` + `version`). */
  add(workflows: readonly WorkflowDescriptorInput[]): Promise<void>;
  /**
   * Exact `label.*` filters and `exclude_keywords`, then hybrid ranking of the rest with boosts for what the query
   * names; emits `tool-search-performed` (`target: "workflows"`).
   * @throws AfwError `INVALID_INPUT` when the input does not match `search_workflow_catalog`'s schema.
   */
  searchWorkflowCatalog(input: WorkflowSearchInput, options?: { trace?: TraceContext; signal?: AbortSignal }): Promise<WorkflowSearchResponse>;
  /** The full record of a workflow (newest version unless `version` is given). @throws AfwError `NOT_FOUND`, `INVALID_INPUT`. */
  getPlaybookDetails(input: GetPlaybookDetailsInput | string, version?: string): WorkflowDescriptor;
}

function compareSemver(a: string, b: string): number {
  const parse = (v: string) => {
    const [core, pre] = v.split(/[-+]/, 2);
    return { parts: core!.split(".").map(Number), pre: v.includes("-") ? (pre ?? "") : undefined };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === undefined && y.pre !== undefined) return 1;
  if (x.pre !== undefined && y.pre === undefined) return -1;
  return (x.pre ?? "").localeCompare(y.pre ?? "");
}

function workflowText(workflow: WorkflowDescriptor): string {
  return `${workflow.title}. ${workflow.description} Signals: ${workflow.signal_types
    .map((s) => `${s} (${splitIdentifier(s).join(" ")})`)
    .join(", ")}. ${workflow.keywords.join(", ")}`;
}

function searchableText(workflow: WorkflowDescriptor): string {
  return [
    workflow.title,
    workflow.description,
    ...workflow.keywords,
    ...workflow.signal_types,
    ...workflow.steps.flatMap((s) => [s.name, s.action, s.description ?? ""]),
    ...workflow.prerequisites,
  ]
    .join("\n")
    .toLowerCase();
}

function labelMatches(labels: WorkflowLabels, name: (typeof WORKFLOW_LABEL_NAMES)[number], value: string): boolean {
  const values = labels[name] as readonly string[];
  if (values.length === 0 || (name === "environment" && values.includes("any"))) return true;
  if (name === "signal-type") return values.some((v) => v.toLowerCase() === value.toLowerCase());
  return values.includes(value);
}

/**
 * Creates the workflow catalog behind the `search_workflow_catalog` and `get_playbook_details`
 * tools. Workflows are embedded once (cached by content hash).
 *
 * @example
 * ```ts
 * const catalog = await createWorkflowCatalog({ embedder, workflows: loadWorkflowCatalog([exampleCatalogDir()]) });
 * const { results } = await catalog.searchWorkflowCatalog({ query: "OOMKilled critical", "label.environment": "production" });
 * const playbook = catalog.getPlaybookDetails(results[0]!.workflow_id);
 * ```
 */
export async function createWorkflowCatalog(options: WorkflowCatalogOptions = {}): Promise<WorkflowCatalog> {
  const analyzer = createTextAnalyzer();
  const embedder = options.embedder;
  const store = createInMemoryVectorStore();
  const versions = new Map<string, WorkflowDescriptor[]>(); // id → versions, newest first
  let bm25 = new Bm25Index<WorkflowField>({ fields: WORKFLOW_FIELD_WEIGHTS });
  let cache: EmbeddingCache | undefined;
  const signalTypes = new Map<string, string>(); // lower-case → canonical
  const signalPhrases: Array<{ terms: string[]; signal: string }> = [];

  const latest = (): WorkflowDescriptor[] => [...versions.values()].map((list) => list[0]!);
  const rebuildLexicon = () => {
    bm25 = new Bm25Index<WorkflowField>({ fields: WORKFLOW_FIELD_WEIGHTS });
    signalTypes.clear();
    signalPhrases.length = 0;
    for (const workflow of latest()) {
      bm25.add(workflow.workflow_id, {
        title: analyzer.terms(workflow.title),
        signals: workflow.signal_types.flatMap((s) => [s.toLowerCase(), ...analyzer.terms(splitIdentifier(s).join(" "))]),
        keywords: analyzer.terms(workflow.keywords.join(" ")),
        description: analyzer.terms(workflow.description),
        steps: analyzer.terms(workflow.steps.map((s) => `${s.name} ${s.description ?? ""}`).join(" ")),
      });
      for (const signal of [...workflow.signal_types, ...workflow.labels["signal-type"]]) {
        signalTypes.set(signal.toLowerCase(), signal);
        const terms = analyzer.terms(splitIdentifier(signal).join(" "));
        if (terms.length > 1) signalPhrases.push({ terms, signal });
      }
    }
  };

  const add = async (inputs: readonly WorkflowDescriptorInput[]) => {
    const parsed = inputs.map((input, index) => parseOrThrow(WorkflowDescriptorSchema, input, "INVALID_INPUT", `workflow ${index}`));
    for (const workflow of parsed) {
      const list = (versions.get(workflow.workflow_id) ?? []).filter((w) => w.version !== workflow.version);
      list.push(workflow);
      list.sort((a, b) => compareSemver(b.version, a.version));
      versions.set(workflow.workflow_id, list);
    }
    rebuildLexicon();
    if (embedder) {
      cache ??= await openEmbeddingCache(embedder, options.embeddingCachePath);
      const current = latest();
      const vectors = await cache.embedAll(current.map(workflowText));
      await store.upsert(current.map((w, i) => ({ id: w.workflow_id, vector: vectors[i]!, metadata: { workflow_id: w.workflow_id, version: w.version } })));
      await cache.flush();
    }
  };

  const recognize = (query: string): RecognizedQuery => {
    const tokens = query.split(/[^A-Za-z0-9_.-]+/).filter(Boolean);
    const lower = tokens.map((t) => t.toLowerCase());
    const found = new Set<string>();
    for (const token of lower) {
      const signal = signalTypes.get(token);
      if (signal) found.add(signal);
    }
    const terms = analyzer.terms(query);
    for (const { terms: phrase, signal } of signalPhrases) {
      for (let i = 0; i + phrase.length <= terms.length; i++) {
        if (phrase.every((p, j) => terms[i + j] === p)) found.add(signal);
      }
    }
    const severities = SeveritySchema.options.filter((s) => lower.includes(s));
    const environments = EnvironmentSchema.options.filter((e) => e !== "any" && (lower.includes(e) || Object.entries(ENVIRONMENT_ALIASES).some(([alias, full]) => full === e && lower.includes(alias))));
    const priorities = PrioritySchema.options.filter((p) => lower.includes(p.toLowerCase()));
    return { signalTypes: [...found], severities, environments, priorities };
  };

  const catalog: WorkflowCatalog = {
    get size() {
      let n = 0;
      for (const list of versions.values()) n += list.length;
      return n;
    },
    add,
    async searchWorkflowCatalog(rawInput, searchOptions = {}) {
      const input = parseOrThrow(SearchWorkflowCatalogInputSchema, rawInput, "INVALID_INPUT", "search_workflow_catalog input");
      const trace = searchOptions.trace ?? options.trace;
      const filters: Record<string, unknown> = {};
      // Phase 1: exact label filters, then exclusions.
      let candidates = latest();
      for (const name of WORKFLOW_LABEL_NAMES) {
        const value = input[`label.${name}`];
        if (value === undefined) continue;
        filters[`label.${name}`] = value;
        candidates = candidates.filter((w) => labelMatches(w.labels, name, value));
      }
      const excluded = input.exclude_keywords.map((k) => k.toLowerCase());
      if (excluded.length) {
        filters["exclude_keywords"] = input.exclude_keywords;
        candidates = candidates.filter((w) => {
          const text = searchableText(w);
          return !excluded.some((k) => text.includes(k));
        });
      }
      filters["top_k"] = input.top_k;
      const allowed = new Set(candidates.map((w) => w.workflow_id));
      // Phase 2: rank the remaining workflows.
      const recognized = recognize(input.query);
      const keywordHits = bm25.search(analyzer.queryTerms(input.query), (id) => allowed.has(id));
      const keywordNorm = normalizeScores(keywordHits);
      const keywordRaw = new Map(keywordHits.map((h) => [h.id, h.score]));
      let degraded = false;
      const semantic = new Map<string, number>();
      if (embedder && candidates.length) {
        try {
          const [vector] = await embedder.embed([input.query], searchOptions.signal);
          if (!vector) throw new Error("embedder returned no vector");
          const matches = await store.query({ vector, topK: Math.max(candidates.length, 1), filter: { workflow_id: { $in: [...allowed] } } });
          for (const match of matches) semantic.set(match.id, match.score);
        } catch {
          degraded = true;
        }
      } else if (!embedder) degraded = true;
      const recognizedSignals = new Set(recognized.signalTypes.map((s) => s.toLowerCase()));
      const scored = candidates.map((w) => {
        const cosine = semantic.get(w.workflow_id) ?? 0;
        const semanticScore = Math.max(0, Math.min(1, (cosine - 0.1) / 0.6));
        const keyword = keywordNorm.get(w.workflow_id) ?? 0;
        const keywordStrength = (keywordRaw.get(w.workflow_id) ?? 0) / ((keywordRaw.get(w.workflow_id) ?? 0) + 5);
        const signalMatch = [...w.signal_types, ...w.labels["signal-type"]].some((s) => recognizedSignals.has(s.toLowerCase())) ? 1 : 0;
        const severityMatch = recognized.severities.some((s) => (w.labels.severity as string[]).includes(s)) ? 1 : 0;
        const environmentMatch = recognized.environments.some((e) => (w.labels.environment as string[]).includes(e)) ? 1 : 0;
        const priorityMatch = recognized.priorities.some((p) => (w.labels.priority as string[]).includes(p)) ? 1 : 0;
        const base = degraded ? keyword : 0.5 * keyword + 0.5 * semanticScore;
        const score = base + 0.6 * signalMatch + 0.1 * severityMatch + 0.05 * environmentMatch + 0.05 * priorityMatch;
        const evidence = degraded ? 0.7 * keywordStrength : 0.45 * semanticScore + 0.35 * keywordStrength;
        const confidence = Math.max(0, Math.min(1, evidence + 0.35 * signalMatch + 0.05 * severityMatch));
        return { workflow: w, score, confidence, relevant: keyword > 0 || cosine > 0.25 || signalMatch > 0 };
      });
      const anyRelevant = scored.some((s) => s.relevant);
      const ranked = scored
        .filter((s) => s.relevant || !anyRelevant)
        .sort((a, b) => b.score - a.score || a.workflow.workflow_id.localeCompare(b.workflow.workflow_id))
        .slice(0, input.top_k);
      const results: WorkflowSearchHit[] = ranked.map(({ workflow: w, confidence }) => ({
        workflow_id: w.workflow_id,
        version: w.version,
        title: w.title,
        description: w.description,
        signal_types: w.signal_types,
        confidence: Math.round(confidence * 1000) / 1000,
        estimated_duration: w.estimated_duration,
        success_rate: w.success_rate,
        labels: w.labels,
      }));
      emitTrace(trace, "tool-search-performed", {
        target: "workflows",
        query: input.query,
        mode: degraded ? "keyword" : "hybrid",
        filters,
        results: ranked.map((r) => ({ id: `${r.workflow.workflow_id}@${r.workflow.version}`, score: Math.round(r.score * 10_000) / 10_000 })),
        confidence: results[0]?.confidence ?? 0,
        ...(degraded ? { degraded: true } : {}),
      });
      return { results, degraded, recognized };
    },
    getPlaybookDetails(input, version) {
      const raw = typeof input === "string" ? { workflow_id: input, ...(version ? { version } : {}) } : input;
      const request = parseOrThrow(GetPlaybookDetailsInputSchema, raw, "INVALID_INPUT", "get_playbook_details input");
      const list = versions.get(request.workflow_id);
      if (!list) {
        throw new AfwError("NOT_FOUND", `unknown workflow ${request.workflow_id}`, { details: { workflow_id: request.workflow_id } });
      }
      const wanted = request.version;
      const found = wanted === undefined ? list[0] : list.find((w) => w.version === wanted);
      if (!found) {
        throw new AfwError("NOT_FOUND", `workflow ${request.workflow_id} has no version ${wanted}`, {
          details: { workflow_id: request.workflow_id, version: wanted, available: list.map((w) => w.version) },
        });
      }
      return structuredClone(found);
    },
  };
  if (options.workflows?.length) await add(options.workflows);
  return catalog;
}
