import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AfwError, parseTraceEvent, WORKFLOW_LABEL_NAMES, type Embedder, type TraceEvent, type WorkflowDescriptor } from "@afw/contracts";
import { createHashingEmbedder } from "@afw/embeddings";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkflowCatalog, type WorkflowCatalog } from "./workflow-catalog.js";
import { exampleCatalogDir, loadWorkflowCatalog } from "./catalog-files.js";

const workflows = loadWorkflowCatalog([exampleCatalogDir()]);
const events: TraceEvent[] = [];
const trace = { traceId: "t", requestId: "r", sink: { emit: (e: TraceEvent) => events.push(parseTraceEvent(e)) } };
let catalog: WorkflowCatalog;
const dirs: string[] = [];

beforeAll(async () => {
  catalog = await createWorkflowCatalog({ embedder: createHashingEmbedder({ dimensions: 256 }), workflows, trace });
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const ids = (hits: { workflow_id: string }[]) => hits.map((h) => h.workflow_id);
const latest = () => [...new Set(workflows.map((w) => w.workflow_id))].map((id) => catalog.getPlaybookDetails(id));

describe("example catalog", () => {
  it("ships 12-20 valid Kubernetes playbooks with several versions of one", () => {
    const distinct = new Set(workflows.map((w) => w.workflow_id));
    expect(distinct.size).toBeGreaterThanOrEqual(12);
    expect(distinct.size).toBeLessThanOrEqual(20);
    expect(workflows.length).toBeGreaterThan(distinct.size);
    const signals = new Set(workflows.flatMap((w) => w.signal_types));
    for (const s of ["OOMKilled", "CrashLoopBackOff", "ImagePullBackOff", "NodeDiskPressure", "NodeMemoryPressure", "CertificateExpiring", "PVCPending", "HPAMaxedOut", "DNSResolutionFailure", "PodEvicted", "ProgressDeadlineExceeded"]) {
      expect(signals).toContain(s);
    }
  });
});

describe("searchWorkflowCatalog", () => {
  it("answers structured queries through the recognised signal type", async () => {
    const response = await catalog.searchWorkflowCatalog({ query: "OOMKilled critical" });
    expect(response.recognized.signalTypes).toEqual(["OOMKilled"]);
    expect(response.recognized.severities).toEqual(["critical"]);
    expect(ids(response.results).slice(0, 2).sort()).toEqual(["jvm-heap-oom-tuning", "oomkilled-raise-memory-limit"]);
    expect(response.results[0]!.workflow_id).toBe("oomkilled-raise-memory-limit");
    expect(response.results[0]!.version).toBe("1.2.0");
    expect(response.results[0]!.confidence).toBeGreaterThan(0.5);
    expect(response.degraded).toBe(false);
  });

  it("recognises signal types written as words", async () => {
    const response = await catalog.searchWorkflowCatalog({ query: "pod in crash loop back off", top_k: 3 });
    expect(response.recognized.signalTypes).toContain("CrashLoopBackOff");
    expect(response.results[0]!.workflow_id).toBe("crashloopbackoff-diagnose");
  });

  it("ranks natural-language queries by keywords and vectors", async () => {
    const cases: Array<[string, string]> = [
      ["the TLS certificate of the ingress expires tomorrow", "certificate-expiry-renew"],
      ["persistent volume claim stays pending", "pvc-pending-provision"],
      ["registry pull secret is wrong, image cannot be pulled", "imagepullbackoff-fix"],
      ["nodes are out of disk space", "node-disk-pressure-cleanup"],
    ];
    for (const [query, expected] of cases) {
      const response = await catalog.searchWorkflowCatalog({ query, top_k: 3 });
      expect(response.results[0]?.workflow_id, query).toBe(expected);
      for (const hit of response.results) expect(hit.confidence).toBeGreaterThanOrEqual(0), expect(hit.confidence).toBeLessThanOrEqual(1);
    }
  });

  for (const name of WORKFLOW_LABEL_NAMES) {
    it(`filters exactly on label.${name}`, async () => {
      const value = latest().flatMap((w) => w.labels[name] as string[])[0]!;
      const response = await catalog.searchWorkflowCatalog({ query: "fix the problem", [`label.${name}`]: value, top_k: 50 } as never);
      const expected = latest().filter((w) => {
        const values = w.labels[name] as string[];
        return values.length === 0 || (name === "environment" && values.includes("any")) || values.some((v) => v.toLowerCase() === value.toLowerCase());
      });
      expect(response.results.length).toBeGreaterThan(0);
      expect(response.results.length).toBeLessThanOrEqual(expected.length);
      for (const hit of response.results) expect(ids(expected)).toContain(hit.workflow_id);
    });
  }

  it("combines label filters with AND", async () => {
    const response = await catalog.searchWorkflowCatalog({
      query: "memory",
      "label.severity": "critical",
      "label.environment": "production",
      "label.business-category": "revenue-critical",
      top_k: 50,
    });
    expect(response.results.length).toBeGreaterThan(0);
    for (const hit of response.results) {
      expect(hit.labels.severity).toContain("critical");
      expect(hit.labels.environment.some((e) => e === "production" || e === "any")).toBe(true);
      expect(hit.labels["business-category"]).toContain("revenue-critical");
    }
    const impossible = await catalog.searchWorkflowCatalog({ query: "memory", "label.signal-type": "OOMKilled", "label.priority": "P4" });
    expect(impossible.results).toEqual([]);
  });

  it("returns every workflow kind without filters, capped by top_k", async () => {
    const response = await catalog.searchWorkflowCatalog({ query: "kubernetes pods nodes", top_k: 5 });
    expect(response.results).toHaveLength(5);
    expect(new Set(ids(response.results)).size).toBe(5);
  });

  it("drops workflows mentioning an excluded keyword", async () => {
    const response = await catalog.searchWorkflowCatalog({ query: "OOMKilled", exclude_keywords: ["JVM"], top_k: 10 });
    expect(ids(response.results)).not.toContain("jvm-heap-oom-tuning");
    expect(ids(response.results)).toContain("oomkilled-raise-memory-limit");
    const drain = await catalog.searchWorkflowCatalog({ query: "node problems", exclude_keywords: ["drain", "cordon"], top_k: 50 });
    for (const hit of drain.results) expect(["node-disk-pressure-cleanup", "node-memory-pressure-rebalance", "node-not-ready-recover"]).not.toContain(hit.workflow_id);
  });

  it("writes an audit trace event with filters, ids and scores", async () => {
    events.length = 0;
    await catalog.searchWorkflowCatalog({ query: "OOMKilled", "label.severity": "high", top_k: 2 });
    const [event] = events;
    expect(event).toMatchObject({ type: "tool-search-performed", target: "workflows", query: "OOMKilled", mode: "hybrid", filters: { "label.severity": "high", top_k: 2 } });
    if (event?.type !== "tool-search-performed") throw new Error("no event");
    expect(event.results[0]!.id).toBe("oomkilled-raise-memory-limit@1.2.0");
    expect(event.degraded).toBeUndefined();
  });

  it("falls back to labels + keywords when the embedder fails, and says so", async () => {
    let fail = false;
    const inner = createHashingEmbedder({ dimensions: 64 });
    const flaky: Embedder = { id: inner.id, dimensions: 64, embed: async (texts, signal) => { if (fail) throw new Error("model down"); return inner.embed(texts, signal); } };
    const local: TraceEvent[] = [];
    const degradedCatalog = await createWorkflowCatalog({ embedder: flaky, workflows, trace: { traceId: "t", requestId: "r", sink: { emit: (e) => local.push(e) } } });
    fail = true;
    const response = await degradedCatalog.searchWorkflowCatalog({ query: "certificate expired", "label.environment": "production" });
    expect(response.degraded).toBe(true);
    expect(response.results[0]!.workflow_id).toBe("certificate-expiry-renew");
    expect(local[0]).toMatchObject({ type: "tool-search-performed", mode: "keyword", degraded: true });
  });

  it("rejects invalid input", async () => {
    await expect(catalog.searchWorkflowCatalog({ query: "x", top_k: 51 })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    await expect(catalog.searchWorkflowCatalog({ query: "x", "label.severity": "urgent" } as never)).rejects.toMatchObject({ code: "INVALID_INPUT" });
  });
});

describe("getPlaybookDetails", () => {
  it("returns the newest version by default and a given version on request", () => {
    const newest = catalog.getPlaybookDetails("oomkilled-raise-memory-limit");
    expect(newest.version).toBe("1.2.0");
    expect(newest.steps.length).toBeGreaterThan(2);
    expect(newest.rollback_steps.length).toBeGreaterThan(0);
    expect(newest.prerequisites.length).toBeGreaterThan(0);
    const older = catalog.getPlaybookDetails({ workflow_id: "oomkilled-raise-memory-limit", version: "1.1.0" });
    expect(older.version).toBe("1.1.0");
  });

  it("throws NOT_FOUND for unknown ids and versions", () => {
    for (const call of [() => catalog.getPlaybookDetails("nope"), () => catalog.getPlaybookDetails("oomkilled-raise-memory-limit", "9.9.9")]) {
      try {
        call();
        expect.unreachable();
      } catch (error) {
        expect(AfwError.isInstance(error) && error.code).toBe("NOT_FOUND");
      }
    }
  });
});

describe("loadWorkflowCatalog", () => {
  const dir = mkdtempSync(join(tmpdir(), "afw-wf-"));
  dirs.push(dir);
  const good: WorkflowDescriptor = workflows[0]!;

  const expectConfigError = (path: string, pattern: RegExp) => {
    try {
      loadWorkflowCatalog([path]);
      expect.unreachable();
    } catch (error) {
      expect(AfwError.isInstance(error) && error.code).toBe("CONFIG_INVALID");
      expect((error as Error).message).toMatch(pattern);
    }
  };

  it("reads JSON and YAML lists and { workflows } documents", () => {
    writeFileSync(join(dir, "list.json"), JSON.stringify([good]));
    writeFileSync(join(dir, "doc.yaml"), `workflows:\n  - workflow_id: other\n    version: 1.0.0\n    title: T\n    description: D\n    signal_types: [Foo]\n    steps: [{ name: s, action: a }]\n    estimated_duration: 5m\n    risk_level: low\n    success_rate: 0.5\n`);
    const loaded = loadWorkflowCatalog([join(dir, "list.json"), join(dir, "doc.yaml")]);
    expect(loaded.map((w) => w.workflow_id)).toEqual([good.workflow_id, "other"]);
  });

  it("names the file and the field of an invalid record", () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(file, `workflows:\n  - workflow_id: bad\n    version: 1.0.0\n    title: T\n    description: D\n    signal_types: [Foo]\n    steps: [{ name: s }]\n    estimated_duration: 5m\n    risk_level: low\n    success_rate: 0.5\n`);
    expectConfigError(file, /bad\.yaml: workflows\[0\]\.steps\[0\]\.action: /);
    const version = join(dir, "version.json");
    writeFileSync(version, JSON.stringify({ ...good, version: "latest" }));
    expectConfigError(version, /version\.json: version: version must be semver/);
  });

  it("rejects unparsable files and duplicates", () => {
    const broken = join(dir, "broken.yaml");
    writeFileSync(broken, "workflows: [\n");
    expectConfigError(broken, /broken\.yaml: cannot parse/);
    const a = join(dir, "a.json");
    writeFileSync(a, JSON.stringify(good));
    expect(() => loadWorkflowCatalog([a, a])).toThrow(/duplicate/);
    expectConfigError(join(dir, "missing.yaml"), /missing\.yaml: cannot read/);
  });
});
