import { AfwError, percentile, type PerformanceSample } from "@afw/contracts";
import { checkOutboundUrl, lookupFromResolver, matchHostPattern, outboundConnectPolicy, type HostResolver } from "@afw/backends";
import { BackendConfigSchema } from "./config-schema.js";
import { tool, type GatewayTool, type ToolDependencies } from "./gateway-tool.js";

/** Strips credentials, query and fragment from a URL before showing it. */
export function displayUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    parsed.search = "";
    parsed.hash = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return undefined;
  }
}

/** Latency and success statistics of a window of samples. */
function summarize(samples: readonly PerformanceSample[]) {
  const successes = samples.filter((s) => s.success);
  const latencies = (successes.length > 0 ? successes : samples).map((s) => s.latencyMs);
  const errors: Record<string, number> = {};
  for (const sample of samples) if (!sample.success) errors[sample.errorCode ?? "UNKNOWN"] = (errors[sample.errorCode ?? "UNKNOWN"] ?? 0) + 1;
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    requests: samples.length,
    successes: successes.length,
    success_rate: samples.length === 0 ? 0 : round(successes.length / samples.length),
    latency_p50_ms: round(percentile(latencies, 50) ?? 0),
    latency_p95_ms: round(percentile(latencies, 95) ?? 0),
    errors,
    last_at: samples.length === 0 ? undefined : new Date(Math.max(...samples.map((s) => s.timestamp))).toISOString(),
  };
}

/** The `backend_connect` SSRF policy: the host must match `allowedHosts`, and every address it resolves to must be allowed for that kind of match — `*` reaches public addresses only; loopback and private ranges need an entry naming the
 * host or its domain; cloud metadata, link-local and other special addresses need an exact entry (see `checkOutboundUrl` in `@afw/downstream`). @throws AfwError `FORBIDDEN` with the reason when refused. */
export async function checkBackendConnectUrl(url: URL, allowedHosts: readonly string[], resolve?: HostResolver): Promise<void> {
  const decision = await checkOutboundUrl(url, { allowedHosts, ...(resolve ? { resolve } : {}) });
  if (decision.allowed) return;
  const listed = matchHostPattern(url, allowedHosts) !== undefined;
  throw new AfwError("FORBIDDEN", listed ? `host '${url.host}' is refused: ${decision.reason}` : `host '${url.host}' is not in backendConnect.allowedHosts`, {
    details: { host: url.host },
  });
}

/** The tools about backends: `list_flows`, `backend_status`, `health_check`, `backend_performance_compare` and `backend_connect` (behind the SSRF policy above). */
export function createBackendTools(deps: ToolDependencies): GatewayTool[] {
  const { config, registry, router, redactor } = deps;
  const requireBackends = (selector: string | undefined) => {
    const matching = registry.entries().filter((entry) => selector === undefined || entry.backend.id === selector || entry.backend.kind === selector);
    if (selector !== undefined && matching.length === 0) throw new AfwError("NOT_FOUND", `no backend matches '${selector}'`, { details: { backend: selector } });
    return matching;
  };
  return [
    tool("list_flows", async (args, context) => {
      requireBackends(args.backend);
      let flows = await registry.flows({ refresh: args.refresh, signal: context.signal, trace: context.trace });
      if (args.backend !== undefined) flows = flows.filter((f) => f.backendId === args.backend || f.backendKind === args.backend);
      if (args.intent !== undefined) flows = flows.filter((f) => f.intents.includes(args.intent!));
      const problems = registry.discoveryProblems().filter((p) => args.backend === undefined || flows.some((f) => f.backendId === p.backendId) || p.backendId === args.backend);
      return {
        count: flows.length,
        flows: flows.map((f) => ({
          id: f.id,
          backend_id: f.backendId,
          backend_kind: f.backendKind,
          backend_flow_id: f.backendFlowId,
          name: f.name,
          ...(f.description ? { description: f.description } : {}),
          intents: f.intents,
          keywords: f.keywords,
          capabilities: f.capabilities,
          general_purpose: f.generalPurpose,
          cacheable: f.cacheable,
          ...(f.cacheClass ? { cache_class: f.cacheClass } : {}),
          source: f.source,
        })),
        ...(problems.length > 0 ? { discovery_problems: problems.map((p) => ({ backend_id: p.backendId, code: p.code, message: p.message })) } : {}),
      };
    }),
    tool("backend_status", async (args, context) => {
      const entries = requireBackends(args.backend);
      const flows = await registry.flows({ signal: context.signal });
      const problems = registry.discoveryProblems();
      const backends = await Promise.all(
        entries.map(async (entry) => {
          const id = entry.backend.id;
          const [health, circuit] = await Promise.all([router.latestHealth(id), deps.stores.circuits.get(id).catch(() => undefined)]);
          const problem = problems.find((p) => p.backendId === id);
          return {
            id,
            kind: entry.backend.kind,
            source: entry.source,
            ...(entry.config ? { base_url: displayUrl(entry.config.baseURL) } : {}),
            health: health ?? null,
            circuit: circuit ? { state: circuit.state, failures: circuit.failures, ...(circuit.nextProbeAt ? { next_probe_at: new Date(circuit.nextProbeAt).toISOString() } : {}) } : { state: "closed", failures: 0 },
            flows: flows.filter((f) => f.backendId === id).length,
            ...(problem ? { discovery_problem: { code: problem.code, message: problem.message } } : {}),
          };
        }),
      );
      return { count: backends.length, backends };
    }),
    tool("health_check", async (args, context) => {
      const entries = requireBackends(args.backend);
      const results = (await Promise.all(entries.map((entry) => router.checkHealth(entry.backend.id, context.trace)))).flat();
      const storeOk = async (probe: () => Promise<unknown>) => {
        try {
          await probe();
          return { ok: true };
        } catch (error) {
          return { ok: false, message: redactor.redact((error as Error)?.message ?? "unavailable") };
        }
      };
      const [cache, sessions] = await Promise.all([storeOk(() => deps.stores.cache.stats()), storeOk(() => deps.stores.sessions.list("__afw_health_probe__", { limit: 1 }))]);
      const up = results.filter((h) => h.status !== "down").length;
      const status = results.length === 0 ? "no-backends" : up === results.length && results.every((h) => h.status === "healthy") ? "healthy" : up > 0 ? "degraded" : "down";
      return { status, checked_at: new Date().toISOString(), backends: results, stores: { cache, sessions } };
    }),
    tool("backend_performance_compare", async (args) => {
      const targets = await deps.stores.performance.targets();
      const kindOf = (backendId: string) => registry.get(backendId)?.backend.kind;
      const matches = (backendId: string) => args.backend === undefined || backendId === args.backend || kindOf(backendId) === args.backend;
      const backendTargets = targets.filter((t) => t.flowId === undefined && matches(t.backendId));
      const flowTargets = targets.filter((t) => t.flowId !== undefined && matches(t.backendId) && (args.flow_id === undefined || t.flowId === args.flow_id));
      const flowRows = await Promise.all(
        flowTargets.map(async (t) => ({ backendId: t.backendId, flowId: t.flowId!, stats: summarize(await deps.stores.performance.window(t)) })),
      );
      const backendIds = [...new Set([...backendTargets.map((t) => t.backendId), ...flowRows.map((r) => r.backendId)])];
      const backends = await Promise.all(
        backendIds.map(async (backendId) => {
          const samples =
            args.flow_id === undefined
              ? await deps.stores.performance.window({ backendId })
              : (await Promise.all(flowTargets.filter((t) => t.backendId === backendId).map((t) => deps.stores.performance.window(t)))).flat();
          return {
            backend_id: backendId,
            ...(kindOf(backendId) ? { kind: kindOf(backendId) } : {}),
            ...summarize(samples),
            flows: flowRows.filter((r) => r.backendId === backendId).map((r) => ({ flow_id: r.flowId, ...r.stats })),
          };
        }),
      );
      backends.sort((a, b) => b.success_rate - a.success_rate || a.latency_p95_ms - b.latency_p95_ms || a.backend_id.localeCompare(b.backend_id));
      const eligible = backends.filter((b) => b.requests >= args.min_samples);
      const best = eligible[0];
      const runnerUp = eligible[1];
      const recommendation = best
        ? {
            backend_id: best.backend_id,
            reason: `highest success rate (${Math.round(best.success_rate * 100)}%) with p95 ${best.latency_p95_ms} ms over ${best.requests} requests${
              runnerUp ? `; next: ${runnerUp.backend_id} (${Math.round(runnerUp.success_rate * 100)}%, p95 ${runnerUp.latency_p95_ms} ms)` : ""
            }`,
          }
        : { backend_id: null, reason: `no backend has ${args.min_samples} or more recorded requests yet` };
      return { window: "last samples per target (performance store window)", backends, recommendation };
    }),
    tool("backend_connect", async (args, context) => {
      const policy = config.backendConnect;
      if (policy.allowedHosts.length === 0) {
        throw new AfwError("FORBIDDEN", "backend_connect is disabled: no hosts are allowed by configuration (backendConnect.allowedHosts)");
      }
      redactor.addSecrets(args.apiKey);
      const url = new URL(args.baseURL);
      await checkBackendConnectUrl(url, policy.allowedHosts, deps.resolveHost);
      if (!policy.allowedKinds.includes(args.kind)) {
        throw new AfwError("FORBIDDEN", `backend kind '${args.kind}' is not in backendConnect.allowedKinds`, { details: { kind: args.kind } });
      }
      if (registry.get(args.id)) throw new AfwError("INVALID_INPUT", `a backend with id '${args.id}' already exists`, { details: { id: args.id } });
      const backendConfig = BackendConfigSchema.parse({
        id: args.id,
        kind: args.kind,
        baseURL: args.baseURL,
        ...(args.apiKey === undefined ? {} : { apiKey: args.apiKey }),
        ...(args.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: args.requestTimeoutMs }),
        ...(args.flows === undefined ? {} : { flows: args.flows }),
      });
      // The check above ran on the addresses the name has now; the backend applies the same rules to the address
      // of every connection it opens, so a name that rebinds later is refused.
      const backend = await deps.backendFactory(backendConfig, {
        connectPolicy: outboundConnectPolicy(url, { allowedHosts: policy.allowedHosts }),
        ...(deps.resolveHost ? { lookup: lookupFromResolver(deps.resolveHost) } : {}),
      });
      registry.add(backend, { config: backendConfig, source: "runtime" });
      const [health] = await router.checkHealth(backend.id, context.trace);
      const flows = (await registry.flows({ refresh: true, signal: context.signal, trace: context.trace })).filter((f) => f.backendId === backend.id);
      return { connected: true, id: backend.id, kind: backend.kind, base_url: displayUrl(backendConfig.baseURL), health, flows: flows.length };
    }),
  ];
}
