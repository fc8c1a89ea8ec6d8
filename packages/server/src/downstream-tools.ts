import { readFileSync } from "node:fs";
import { AfwError, emitTrace, toolId, type ToolDescriptor, type TraceContext, type TraceSink } from "@afw/contracts";
import {
  createDownstreamManager,
  importMcpJson,
  parseNamespacedToolName,
  toMcpTool,
  type DownstreamCaller,
  type DownstreamConfigInput,
  type DownstreamLogMessage,
  type DownstreamProgress,
  type DownstreamManager,
  type DownstreamTool,
  type ToolsChangedEvent,
} from "@afw/downstream";
import { affordanceSummary, type ToolIndex } from "@afw/tool-zoo";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { DownstreamSectionConfig, ToolsConfig } from "./config-schema.js";
import { forwardedJsonRpcError } from "./tool-call-params.js";
import { newTraceContext } from "./trace-context.js";

/** Recent task texts of a session that make up its `routed` context. */
const ROUTED_CONTEXT_SIZE = 5;
/** Below this ranking confidence, `routed` exposure lists `tools.fallbackToolIds` first (the tool index's own threshold). */
const LOW_CONFIDENCE = 0.3;
/** Name of the meta-tool that calls a downstream tool by its namespaced name (`search` exposure). */
export const CALL_TOOL_NAME = "call_tool";


/** What one MCP connection (session) of the gateway remembers for `routed` exposure. */
export interface DownstreamSessionState {
  /** Recent task texts of the session (queries, tool searches), oldest first. */
  readonly recent: string[];
  /** Namespaced names last listed to this session (routed mode), or undefined before the first list. */
  exposed: string[] | undefined;
  /** Sends `notifications/tools/list_changed` to this session's client. */
  notify(): void;
}

/** Options of {@link DownstreamTools.call}: aborting `signal` cancels the downstream request, `onProgress` gets its progress notifications,
 * and the server's log messages, sampling and elicitation requests go to `caller` (the client the call runs for). */
export interface DownstreamToolCallOptions {
  trace: TraceContext;
  signal?: AbortSignal;
  onProgress?: (progress: DownstreamProgress) => void;
  caller?: DownstreamCaller;
}

/** Builds the downstream part of `tools/list` and proxies calls; see {@link createDownstreamTools}. */
export interface DownstreamTools {
  /** The manager (started by {@link DownstreamTools.start}). */
  readonly manager: DownstreamManager;
  /** The exposure mode. */
  readonly exposure: ToolsConfig["exposure"];
  /** Starts connecting the servers in the background and returns at once: startup never waits on downstream servers. */
  start(): void;
  /** Resolves once every server has connected or failed once and the index is in sync (for tests and start-up reports). */
  settled(): Promise<void>;
  /** A new session state; {@link DownstreamTools.release} it when the connection closes. */
  openSession(notify: () => void): DownstreamSessionState;
  /** Forgets a session and its context (the MCP server may be pooled and reused by another client). */
  release(session: DownstreamSessionState): void;
  /** Records a task text of a session (a query, a tool search) and, in routed mode, re-lists when the exposed set changes. */
  remember(session: DownstreamSessionState, text: string): Promise<void>;
  /** The downstream tools to append to `tools/list` for this session, with `tool-list-*` trace events. */
  listTools(session: DownstreamSessionState, trace: TraceContext): Promise<Tool[]>;
  /** Whether `name` names a downstream tool (`server__tool` of a configured server). */
  isDownstreamName(name: string): boolean;
  /** Proxies a call. */
  call(session: DownstreamSessionState | undefined, name: string, args: Record<string, unknown>, options: DownstreamToolCallOptions): Promise<CallToolResult>;
  /** Stops the manager. */
  close(): Promise<void>;
}

/** Options of {@link createDownstreamTools}: the `downstream` section (`mcpJson` resolved to an absolute path, its `${VAR}` from the environment), the `tools`
 * section, the tool index downstream tools are kept in (`rank` drives routed mode), and handlers of failed background steps and of server log
 * messages that belong to no client's call. */
export interface DownstreamToolsOptions {
  downstream: DownstreamSectionConfig;
  tools: ToolsConfig;
  index: ToolIndex;
  sink: TraceSink;
  onError?: (error: unknown, where: string) => void;
  onServerLog?: (message: DownstreamLogMessage) => void;
}

/** The downstream configuration to give `createDownstreamManager`: the section's servers plus those of its `mcpJson` file (servers of the section
 * win on a name clash). @throws AfwError `CONFIG_INVALID` when the `mcp.json` file cannot be read or is invalid. */
function downstreamManagerConfig(section: DownstreamSectionConfig): DownstreamConfigInput {
  const { mcpJson, ...config } = section;
  if (mcpJson === undefined) return config;
  let text: string;
  try {
    text = readFileSync(mcpJson, "utf8");
  } catch (error) {
    throw new AfwError("CONFIG_INVALID", `cannot read downstream.mcpJson '${mcpJson}': ${(error as NodeJS.ErrnoException).code ?? "unreadable"}`);
  }
  const imported = importMcpJson(text, { env: process.env });
  const names = new Set(config.servers.map((server) => server.name));
  return { ...config, servers: [...config.servers, ...imported.servers.filter((server) => !names.has(server.name))] };
}

/** Wires `@afw/downstream` into the gateway: starts the manager, indexes every downstream tool in the tool zoo (ids `server/name`) and keeps the index in sync, builds the downstream part of `tools/list` for each exposure mode, proxies
 * namespaced calls, and feeds successful calls back to the index as usage (the session's recent task words with the tool). @throws AfwError `CONFIG_INVALID` for an invalid downstream configuration or `mcp.json`. */
export function createDownstreamTools(options: DownstreamToolsOptions): DownstreamTools {
  const { tools: toolsConfig, index, sink } = options;
  const onError = options.onError ?? (() => undefined);
  const exposure = toolsConfig.exposure;
  const managerTrace = newTraceContext(sink, { requestId: "downstream" });
  const sessions = new Set<DownstreamSessionState>();
  const contextOf = (session: DownstreamSessionState | undefined) => (session ? session.recent.join("\n") : "");
  const manager = createDownstreamManager(downstreamManagerConfig(options.downstream), {
    trace: managerTrace,
    ...(options.onServerLog ? { onServerLog: options.onServerLog } : {}),
    onToolCall: (report) => {
      if (!report.usageContext) return;
      index.recordUsage(report.usageContext, toolId({ server: report.server, name: report.tool }), true).catch((error: unknown) => onError(error, "record usage"));
    },
  });
  const serverNames = new Set(manager.status().map((status) => status.name));
  let syncChain: Promise<void> = Promise.resolve();
  let settled: Promise<void> | undefined;
  /** Index id of each listed namespaced name (a name shortened to 64 characters cannot be parsed). */
  const idsByName = new Map<string, string>();
  const sync = (event: ToolsChangedEvent) => {
    const removedIds = event.removed.flatMap((name) => {
      const known = idsByName.get(name);
      idsByName.delete(name);
      if (known !== undefined) return [known];
      const parsed = parseNamespacedToolName(name);
      return parsed ? [toolId({ server: parsed.server, name: parsed.tool })] : [];
    });
    for (const tool of event.tools) idsByName.set(tool.namespacedName, toolId(tool));
    syncChain = syncChain
      .then(async () => {
        // what the server says about itself (title, instructions) tells the search which requests it serves
        index.setServerInfo(event.server, Object.keys(event.serverInfo).length > 0 ? event.serverInfo : undefined);
        if (event.tools.length > 0) await index.add(event.tools);
        if (removedIds.length > 0) await index.remove(removedIds);
      }).catch((error: unknown) => onError(error, "index downstream tools"));
    return syncChain;
  };
  const notifyAll = async () => {
    for (const session of sessions) {
      if (exposure === "all") session.notify();
      else if (exposure === "routed") await relist(session);
    }
  };
  /** A tool exposed in routed mode: its score, why it is exposed and, for a multi-step task, the step it serves. */
  type RoutedCandidate = { tool: DownstreamTool; score: number; reason: string; step?: string };
  /** The routed candidates for a context text, best first, with why each is exposed. */
  const routedCandidates = async (context: string) => {
    const available = new Map(manager.listTools({ availableOnly: true }).map((tool) => [toolId(tool), tool]));
    const candidates: RoutedCandidate[] = [];
    let confidence: number | undefined;
    if (context.trim()) {
      const ranking = await index.rank(context);
      confidence = ranking.confidence;
      for (const ranked of ranking.tools) {
        const tool = available.get(ranked.id);
        if (!tool) continue;
        const parts = [
          ranked.keyword > 0 ? `keyword ${ranked.keyword.toFixed(2)}` : "",
          ranked.semantic > 0 ? `semantic ${ranked.semantic.toFixed(2)}` : "",
          ranked.domain > 0 ? `domain +${ranked.domain.toFixed(2)}` : "",
          ranked.usage > 0 ? `usage +${ranked.usage.toFixed(2)}` : "",
        ].filter(Boolean);
        const step = ranked.step !== undefined ? ranking.steps?.[ranked.step] : undefined;
        const serves = step === undefined ? "" : ` for step ${ranked.step! + 1} "${step.length > 80 ? `${step.slice(0, 80)}…` : step}"`;
        candidates.push({
          tool,
          score: ranked.score,
          reason: `matches the session's recent context${serves} (${parts.join(", ") || "fused rank"})`,
          ...(step === undefined ? {} : { step }),
        });
        if (candidates.length >= toolsConfig.routedTopK) break;
      }
    }
    const lowConfidence = candidates.length === 0 || (confidence !== undefined && confidence < LOW_CONFIDENCE);
    if (lowConfidence) {
      // The safe set first, then whatever matched, up to top-k.
      const safe = toolsConfig.fallbackToolIds.flatMap((id): RoutedCandidate[] => {
        const tool = available.get(id);
        return tool ? [{ tool, score: 0, reason: context.trim() ? `low confidence: safe fallback set` : `no session context yet: safe fallback set` }] : [];
      });
      const seen = new Set(safe.map((candidate) => candidate.tool.namespacedName));
      const merged = [...safe, ...candidates.filter((candidate) => !seen.has(candidate.tool.namespacedName))].slice(0, toolsConfig.routedTopK);
      return { candidates: merged, confidence };
    }
    return { candidates, confidence };
  };
  const routedNames = async (session: DownstreamSessionState) => (await routedCandidates(contextOf(session))).candidates.map((c) => c.tool.namespacedName);
  const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((name) => b.includes(name));
  const relist = async (session: DownstreamSessionState) => {
    if (session.exposed === undefined) return; // never listed: nothing to update
    const next = await routedNames(session);
    if (!sameSet(next, session.exposed)) {
      session.exposed = next;
      session.notify();
    }
  };
  manager.onToolsChanged((event) => {
    void sync(event).then(notifyAll).catch((error: unknown) => onError(error, "tools changed"));
  });
  /** A tool as listed: routed tools carry their affordance summary and, for a multi-step task, the step they serve. */
  const toExposedTool = (tool: DownstreamTool, routed: boolean, step?: string): Tool => {
    const mcpTool = toMcpTool(tool) as Tool;
    if (!routed) return mcpTool;
    const summary = affordanceSummary(tool as ToolDescriptor);
    const description = [summary, step === undefined ? "" : `Step: ${step}`].filter(Boolean).join(" | ");
    return description ? { ...mcpTool, description } : mcpTool;
  };
  return {
    manager,
    exposure,
    start() {
      // Each server's tools are indexed by the `connected` change event (see `sync`).
      settled ??= manager.start().then(() => syncChain);
    },
    settled() {
      return settled ?? Promise.resolve();
    },
    openSession(notify) {
      const session: DownstreamSessionState = { recent: [], exposed: undefined, notify };
      sessions.add(session);
      return session;
    },
    release(session) {
      sessions.delete(session);
      // A pooled stateless MCP server serves other clients next: forget this one's context.
      session.recent.length = 0;
      session.exposed = undefined;
    },
    async remember(session, text) {
      const trimmed = text.trim().slice(0, 1_000);
      if (!trimmed) return;
      session.recent.push(trimmed);
      while (session.recent.length > ROUTED_CONTEXT_SIZE) session.recent.shift();
      if (exposure === "routed") await relist(session);
    },
    async listTools(session, trace) {
      const context = contextOf(session);
      emitTrace(trace, "tool-list-requested", { mode: exposure, ...(context ? { context: context.slice(0, 500) } : {}) });
      if (exposure === "search") {
        emitTrace(trace, "tool-list-decided", { mode: exposure, candidates: [], exposed: [] });
        return [];
      }
      if (exposure === "all") {
        const available = manager.listTools({ availableOnly: true });
        emitTrace(trace, "tool-list-decided", {
          mode: exposure,
          candidates: available.map((tool) => ({ id: toolId(tool), score: 1, reason: "exposure all: every available downstream tool" })),
          exposed: available.map((tool) => tool.namespacedName),
        });
        return available.map((tool) => toExposedTool(tool, false));
      }
      const { candidates, confidence } = await routedCandidates(context);
      session.exposed = candidates.map((candidate) => candidate.tool.namespacedName);
      emitTrace(trace, "tool-list-decided", {
        mode: exposure,
        candidates: candidates.map((candidate) => ({ id: toolId(candidate.tool), score: candidate.score, reason: candidate.reason })),
        exposed: session.exposed,
        ...(confidence === undefined ? {} : { confidence: Math.max(0, Math.min(1, confidence)) }),
      });
      return candidates.map((candidate) => toExposedTool(candidate.tool, true, candidate.step));
    },
    isDownstreamName(name) {
      const parsed = parseNamespacedToolName(name);
      return (parsed !== undefined && serverNames.has(parsed.server)) || manager.getTool(name) !== undefined;
    },
    async call(session, name, args, callOptions) {
      let target = name;
      if (!parseNamespacedToolName(target) && target.includes("/")) {
        const slash = target.indexOf("/");
        target = `${target.slice(0, slash)}__${target.slice(slash + 1)}`;
      }
      const context = contextOf(session);
      try {
        return (await manager.callTool(target, args, {
          trace: callOptions.trace,
          ...(callOptions.signal ? { signal: callOptions.signal } : {}),
          ...(callOptions.onProgress ? { onProgress: callOptions.onProgress } : {}),
          ...(callOptions.caller ? { caller: callOptions.caller } : {}),
          ...(context ? { usageContext: context } : {}),
        })) as CallToolResult;
      } catch (error) {
        // The downstream server's own JSON-RPC error goes to the client as it was (redacted by the manager).
        throw forwardedJsonRpcError(error) ?? error;
      }
    },
    async close() {
      sessions.clear();
      await manager.stop();
      await syncChain;
    },
  };
}
