import { AfwError, computeBackoffDelay, emitTrace, type TraceContext } from "@afw/contracts";
import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import { exposePromptResult, exposeReadResult, parseNamespacedResourceUri } from "./catalog.js";
import { setTimeout as sleep } from "node:timers/promises";
import { parseDownstreamConfig, type DownstreamConfig, type DownstreamConfigInput } from "./config.js";
import type { DownstreamTool } from "./downstream-tool.js";
import { isToolAllowed } from "./tool-filter.js";
import { mayBeShortenedName, parseNamespacedToolName } from "./namespacing.js";
import { AttemptFailure } from "./call-errors.js";
import type { DownstreamServerStatus, ToolsChangeReason } from "./server-status.js";
import { ServerSupervisor } from "./server-supervisor.js";
import type { HostResolver } from "@afw/backends";
import type { DownstreamCaller, DownstreamLogMessage, DownstreamProgress } from "./forwarding.js";

/** Delay between attempts of one tool call. */
const RETRY_BACKOFF = { initialDelayMs: 100, maxDelayMs: 2_000 };

/** Emitted when the tools a server contributes (or their availability) change. */
export interface ToolsChangedEvent {
  /** The server whose tools changed. */
  server: string;
  /** What happened: it connected, sent `list_changed`, failed, is recovering, disconnected or was stopped. */
  reason: ToolsChangeReason;
  /** Namespaced names of tools that appeared. */
  added: string[];
  /** Namespaced names of tools that disappeared. */
  removed: string[];
  /** Namespaced names of tools whose description, schema, tags or availability changed. */
  updated: string[];
  /** The server's current tools (after the change), e.g. to upsert into a tool index. */
  tools: DownstreamTool[];
  /**
   * What the server said about itself when it last connected: `serverInfo.title` (or its `name` when that differs from
   * the configured name) and its `instructions` (at most 4,000 characters), e.g. for a tool index's server detection.
   */
  serverInfo: { title?: string; instructions?: string };
}

/** Reported through {@link DownstreamManagerOptions.onToolCall} after each successful call. */
export interface ToolCallReport {
  /** The server that ran the tool. */
  server: string;
  /** The tool's own name on that server. */
  tool: string;
  /** `server__tool`. */
  namespacedName: string;
  /** Time from the call to its result, including retries, in ms. */
  latencyMs: number;
  /** Attempts it took (1 = first try). */
  attempts: number;
  /** The `usageContext` passed to `callTool` (e.g. the task's words), for usage learning. */
  usageContext?: string;
}

/** Options of {@link DownstreamManager.callTool}. */
export interface DownstreamCallOptions {
  /** Aborts the call (and any waiting retry); the call then fails with `ABORTED`. */
  signal?: AbortSignal;
  /** Limit for each attempt in ms. @default the server's `callTimeoutMs` */
  timeoutMs?: number;
  /** Trace context for this call's `tool-call-start` / `tool-call-end` events. @default the manager's `trace` */
  trace?: TraceContext;
  /** Passed through to {@link ToolCallReport.usageContext}. */
  usageContext?: string;
  /**
   * Receives the server's progress notifications for this call (the manager asks the server for
   * them with a `progressToken` of its own). Each notification also restarts the attempt's timeout.
   */
  onProgress?: (progress: DownstreamProgress) => void;
  /**
   * The upstream client this call runs for: while it runs, the server's log messages and its `sampling/createMessage` and
   * `elicitation/create` requests are forwarded to it (see {@link DownstreamCaller}).
   */
  caller?: DownstreamCaller;
}

/** Emitted when the resources, resource templates or prompts a server contributes change. */
export interface CatalogChangedEvent {
  /** The server whose catalog changed. */
  server: string;
  /** Whether its resources or resource templates changed. */
  resources: boolean;
  /** Whether its prompts changed. */
  prompts: boolean;
}

/** Options of {@link DownstreamManager.readResource} and {@link DownstreamManager.getPrompt}. */
export interface DownstreamRequestOptions {
  /** Aborts the request (the server gets `notifications/cancelled`); it then fails with `ABORTED`. */
  signal?: AbortSignal;
  /** Limit in ms. @default the server's `callTimeoutMs` */
  timeoutMs?: number;
}

/** Options of {@link DownstreamManager.listTools}. */
export interface ListToolsOptions {
  /** Only tools that can be called now. @default false (unavailable tools are listed with `available: false`) */
  availableOnly?: boolean;
}

/** Options of {@link createDownstreamManager}. */
export interface DownstreamManagerOptions {
  /** Where `downstream-connected`, `downstream-disconnected` and (by default) tool-call events go. */
  trace?: TraceContext;
  /** Random numbers in [0, 1) for backoff jitter. @default Math.random */
  random?: () => number;
  /**
   * Called after every successful call (not for `isError` results or failures), e.g. to feed tool
   * usage into the tool zoo's ranking. Exceptions it throws are ignored.
   */
  onToolCall?: (report: ToolCallReport) => void;
  /**
   * Receives the servers' log messages (`notifications/message`) that no {@link DownstreamCaller} took: sent while no call
   * was in flight, or while calls of several callers were. Data is redacted of the server's configured secrets.
   */
  onServerLog?: (message: DownstreamLogMessage) => void;
  /**
   * Resolves HTTP servers' host names for the outbound-address check (cloud metadata, link-local
   * and, under `allowedHosts: ["*"]`, private addresses are refused). @default `systemResolver` (`dns.lookup`)
   */
  resolveHost?: HostResolver;
}

/**
 * Connects to the configured downstream MCP servers and proxies their tools under namespaced names
 * (`server__tool`). Create with {@link createDownstreamManager}.
 */
export interface DownstreamManager {
  /** The validated configuration (defaults applied). */
  readonly config: DownstreamConfig;
  /**
   * Connects every hot server and (unless `discoverColdServers` is false) learns each cold server's tools by connecting it
   * once and disconnecting it again.
   */
  start(): Promise<void>;
  /** Disconnects every server (closing child processes) and stops all timers. Idempotent. */
  stop(): Promise<void>;
  /**
   * Every known tool of every enabled server, in configuration order, with allow/deny lists and overrides applied.
   */
  listTools(options?: ListToolsOptions): DownstreamTool[];
  /** The tool with this namespaced name, if it exists and is allowed. */
  getTool(namespacedName: string): DownstreamTool | undefined;
  /**
   * Calls a tool by its namespaced name; connects a cold server on demand and retries connection losses and timeouts
   * with backoff when that is safe (see `retryUnsafeCalls`). A result with `isError: true` is returned as-is.
   * @throws AfwError `TOOL_NOT_FOUND` when no enabled server offers an allowed tool of that name.
   * @throws AfwError `SERVER_CONNECTION_FAILED` when the server cannot be reached, lost the connection, or is unavailable.
   * @throws AfwError `TOOL_EXECUTION_FAILED` on a timeout or a protocol-level error; a JSON-RPC error of the server keeps
   * its `jsonRpcCode`, `jsonRpcMessage` and (redacted) `jsonRpcData` in `details`.
   * @throws AfwError `ABORTED` when `options.signal` aborts.
   * @example
   * ```ts
   * const result = await manager.callTool("files__read_text_file", { path: "/tmp/a.txt" }, { timeoutMs: 10_000 });
   * if (result.isError) console.error(result.content);
   * ```
   */
  callTool(namespacedName: string, args?: Record<string, unknown>, options?: DownstreamCallOptions): Promise<CallToolResult>;
  /**
   * The resources of every available server, each under its namespaced URI
   * `downstream://<server>/<uri>` . Synchronous, like `listTools`.
   */
  listResources(): Resource[];
  /** The resource templates of every available server, `uriTemplate` namespaced like resource URIs. */
  listResourceTemplates(): ResourceTemplate[];
  /** The prompts of every available server, named `server__prompt` (shortened to 64 characters like tool names). */
  listPrompts(): Prompt[];
  /**
   * Reads a resource by its namespaced URI (a concrete URI of a template too); the URIs in the
   * result are namespaced. Connects a cold server on demand.
   * @throws AfwError `TOOL_NOT_FOUND` when the URI names no enabled server; `SERVER_CONNECTION_FAILED`,
   * `TOOL_EXECUTION_FAILED` (the server's JSON-RPC error in `details`, as for `callTool`) or `ABORTED`.
   */
  readResource(uri: string, options?: DownstreamRequestOptions): Promise<ReadResourceResult>;
  /**
   * Gets a prompt by its namespaced name with its arguments; embedded resource URIs in the result
   * are namespaced. Errors as {@link DownstreamManager.readResource}.
   */
  getPrompt(name: string, args?: Record<string, string>, options?: DownstreamRequestOptions): Promise<GetPromptResult>;
  /**
   * Subscribes to changes of the resources, templates or prompts servers offer (they sent
   * `list_changed`, connected or became unavailable). Returns the unsubscribe function.
   */
  onCatalogChanged(listener: (event: CatalogChangedEvent) => void): () => void;
  /** The state of every configured server, in configuration order. */
  status(): DownstreamServerStatus[];
  /**
   * Subscribes to tool-set changes (use it to send `notifications/tools/list_changed` and to re-index the tool zoo). Fired
   * only when the exposed list or availability really changed. Returns the unsubscribe function.
   */
  onToolsChanged(listener: (event: ToolsChangedEvent) => void): () => void;
  /** Subscribes to server state changes (connecting, connected, idle, backing-off, …). Returns the unsubscribe function. */
  onStatusChanged(listener: (status: DownstreamServerStatus) => void): () => void;
}

function fingerprint(tool: DownstreamTool): string {
  return JSON.stringify([tool.description, tool.title, tool.inputSchema, tool.outputSchema, tool.annotations, tool.tags, tool.available]);
}

/**
 * Creates a {@link DownstreamManager} for the given configuration. Nothing connects until `start()` (or a call).
 * @param config - a {@link DownstreamConfig} or its input form (validated here).
 * @throws AfwError `CONFIG_INVALID` when the configuration is invalid.
 */
export function createDownstreamManager(config: DownstreamConfigInput | DownstreamConfig, options: DownstreamManagerOptions = {}): DownstreamManager {
  const parsed = parseDownstreamConfig(config);
  const random = options.random ?? Math.random;
  const toolsListeners = new Set<(event: ToolsChangedEvent) => void>();
  const statusListeners = new Set<(status: DownstreamServerStatus) => void>();
  const catalogListeners = new Set<(event: CatalogChangedEvent) => void>();
  const snapshots = new Map<string, Map<string, string>>();
  /** What each server said about itself at the last tools event (JSON). */
  const aboutSnapshots = new Map<string, string>();
  const catalogSnapshots = new Map<string, { resources: string; prompts: string }>();
  const supervisors = new Map<string, ServerSupervisor>();
  let started: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;

  const onChange = (supervisor: ServerSupervisor, reason: ToolsChangeReason) => {
    if (statusListeners.size > 0) emit(statusListeners, supervisor.status());
    const catalog = supervisor.catalog();
    const catalogPrint = { resources: JSON.stringify([catalog.resources, catalog.resourceTemplates]), prompts: JSON.stringify(catalog.prompts) };
    const catalogBefore = catalogSnapshots.get(supervisor.name) ?? { resources: "[[],[]]", prompts: "[]" };
    if (catalogPrint.resources !== catalogBefore.resources || catalogPrint.prompts !== catalogBefore.prompts) {
      catalogSnapshots.set(supervisor.name, catalogPrint);
      emit(catalogListeners, { server: supervisor.name, resources: catalogPrint.resources !== catalogBefore.resources, prompts: catalogPrint.prompts !== catalogBefore.prompts });
    }
    const tools = supervisor.tools();
    const next = new Map(tools.map((tool) => [tool.namespacedName, fingerprint(tool)]));
    const previous = snapshots.get(supervisor.name) ?? new Map<string, string>();
    const added: string[] = [];
    const removed: string[] = [];
    const updated: string[] = [];
    for (const [name, print] of next) {
      const before = previous.get(name);
      if (before === undefined) added.push(name);
      else if (before !== print) updated.push(name);
    }
    for (const name of previous.keys()) if (!next.has(name)) removed.push(name);
    const serverInfo = supervisor.about();
    const aboutPrint = JSON.stringify(serverInfo);
    const aboutChanged = aboutPrint !== (aboutSnapshots.get(supervisor.name) ?? "{}");
    if (added.length + removed.length + updated.length === 0 && !aboutChanged) return;
    snapshots.set(supervisor.name, next);
    aboutSnapshots.set(supervisor.name, aboutPrint);
    emit(toolsListeners, { server: supervisor.name, reason, added, removed, updated, tools, serverInfo });
  };

  for (const server of parsed.servers) {
    if (!server.enabled) continue;
    supervisors.set(
      server.name,
      new ServerSupervisor(server, {
        random,
        trace: options.trace,
        restartBackoff: parsed.restartBackoff,
        maxRestarts: parsed.maxRestarts,
        onChange,
        onServerLog: options.onServerLog,
        allowedHosts: parsed.allowedHosts,
        resolveHost: options.resolveHost,
      }),
    );
  }

  const notFound = (namespacedName: string, why: string) =>
    new AfwError("TOOL_NOT_FOUND", `unknown downstream tool "${namespacedName}": ${why}`, { details: { tool: namespacedName } });

  /** Servers whose names and URIs are exposed as they are (`namespace: false`), in configuration order. */
  const unprefixed = [...supervisors.values()].filter((supervisor) => !supervisor.config.namespace);

  /**
   * The server and tool of a listed tool that is not found by splitting its name: a name shortened
   * to 64 characters, or the own name of a tool of a `namespace: false` server (the first wins).
   */
  const shortened = (namespacedName: string): { supervisor: ServerSupervisor; tool: DownstreamTool } | undefined => {
    for (const supervisor of mayBeShortenedName(namespacedName) ? supervisors.values() : unprefixed) {
      const tool = supervisor.tools().find((candidate) => candidate.namespacedName === namespacedName);
      if (tool) return { supervisor, tool };
    }
    return undefined;
  };

  /**
   * The `namespace: false` server that serves a URI: the first that lists it, else the first with a
   * template that matches it, else the only such server.
   */
  const unprefixedOwner = (uri: string): ServerSupervisor | undefined =>
    unprefixed.find((supervisor) => supervisor.catalog().resources.some((resource) => resource.uri === uri)) ??
    unprefixed.find((supervisor) => supervisor.catalog().resourceTemplates.some((template) => new UriTemplate(template.uriTemplate).match(uri) !== null)) ??
    (unprefixed.length === 1 ? unprefixed[0] : undefined);

  const resolve = (namespacedName: string): { supervisor: ServerSupervisor; tool: string } => {
    const short = shortened(namespacedName);
    if (short) return { supervisor: short.supervisor, tool: short.tool.name };
    const parts = parseNamespacedToolName(namespacedName);
    if (!parts) throw notFound(namespacedName, "expected a namespaced name `server__tool`");
    const supervisor = supervisors.get(parts.server);
    if (!supervisor?.config.namespace) throw notFound(namespacedName, `no enabled downstream server "${parts.server}" with namespaced names`);
    if (!isToolAllowed(parts.tool, supervisor.config)) throw notFound(namespacedName, `tool "${parts.tool}" is not allowed on server "${parts.server}"`);
    return { supervisor, tool: parts.tool };
  };

  const manager: DownstreamManager = {
    config: parsed,

    start() {
      if (stopped) return Promise.resolve();
      started ??= Promise.all([...supervisors.values()].map((supervisor) => supervisor.start(parsed.discoverColdServers))).then(() => undefined);
      return started;
    },

    stop() {
      stopped ??= (async () => {
        await Promise.all([...supervisors.values()].map((supervisor) => supervisor.stop()));
      })();
      return stopped;
    },

    listTools(listOptions = {}) {
      const tools: DownstreamTool[] = [];
      for (const supervisor of supervisors.values()) {
        for (const tool of supervisor.tools()) {
          if (listOptions.availableOnly && !tool.available) continue;
          tools.push(tool);
        }
      }
      return firstOfEach(tools, (tool) => tool.namespacedName);
    },

    getTool(namespacedName) {
      try {
        const { supervisor, tool } = resolve(namespacedName);
        return supervisor.tools().find((candidate) => candidate.name === tool);
      } catch {
        return undefined;
      }
    },

    async callTool(namespacedName, args = {}, callOptions = {}) {
      const { supervisor, tool } = resolve(namespacedName);
      const config = supervisor.config;
      const trace = callOptions.trace ?? options.trace;
      let descriptor = supervisor.findTool(tool);
      if (!descriptor && supervisor.toolsKnown) {
        if (supervisor.toolListMayBeStale) {
          await supervisor.refreshTools();
          descriptor = supervisor.findTool(tool);
        }
        if (!descriptor) throw notFound(namespacedName, `server "${supervisor.name}" does not offer a tool "${tool}"`);
      }
      const safeToRepeat =
        config.retryUnsafeCalls || descriptor?.annotations?.readOnlyHint === true || descriptor?.annotations?.idempotentHint === true;
      const timeoutMs = callOptions.timeoutMs ?? config.callTimeoutMs;
      const startedAt = Date.now();
      for (let attempt = 1; ; attempt++) {
        emitTrace(trace, "tool-call-start", { server: supervisor.name, tool, attempt });
        const attemptStartedAt = Date.now();
        const ended = (outcome: "success" | "error" | "timeout" | "aborted", errorCode?: string) =>
          emitTrace(trace, "tool-call-end", {
            server: supervisor.name,
            tool,
            attempt,
            latencyMs: Math.max(0, Date.now() - attemptStartedAt),
            outcome,
            ...(errorCode === undefined ? {} : { errorCode }),
          });
        try {
          const result = await supervisor.callOnce(tool, args, {
            signal: callOptions.signal,
            timeoutMs,
            // A server backing off is waited for when that fits the call's budget and the call is safe to repeat.
            waitForRestartMs: attempt === 1 ? (safeToRepeat ? timeoutMs : 0) : RETRY_BACKOFF.maxDelayMs,
            onProgress: callOptions.onProgress,
            caller: callOptions.caller,
          });
          if (result.isError) ended("error", "TOOL_RESULT_IS_ERROR");
          else ended("success");
          if (!result.isError && options.onToolCall) {
            const report: ToolCallReport = {
              server: supervisor.name,
              tool,
              namespacedName,
              latencyMs: Math.max(0, Date.now() - startedAt),
              attempts: attempt,
            };
            if (callOptions.usageContext !== undefined) report.usageContext = callOptions.usageContext;
            try {
              options.onToolCall(report);
            } catch {
              // a usage hook must not fail the call
            }
          }
          return result;
        } catch (caught) {
          // `callOnce` throws every failure as an AttemptFailure.
          if (!(caught instanceof AttemptFailure)) throw caught;
          const failure = caught;
          ended(failure.outcome, failure.error.code);
          const retry =
            failure.retryable && attempt <= config.retries && (!failure.delivered || safeToRepeat) && !callOptions.signal?.aborted;
          if (!retry) throw failure.error;
          try {
            await sleep(computeBackoffDelay(attempt, RETRY_BACKOFF, random), undefined, { signal: callOptions.signal, ref: false });
          } catch {
            throw new AfwError("ABORTED", `call of "${namespacedName}" was aborted`, { details: { server: supervisor.name, tool } });
          }
        }
      }
    },

    listResources() {
      return firstOfEach([...supervisors.values()].flatMap((supervisor) => supervisor.catalog().resources), (resource) => resource.uri);
    },

    listResourceTemplates() {
      return firstOfEach([...supervisors.values()].flatMap((supervisor) => supervisor.catalog().resourceTemplates), (template) => template.uriTemplate);
    },

    listPrompts() {
      return firstOfEach([...supervisors.values()].flatMap((supervisor) => supervisor.catalog().prompts), (prompt) => prompt.name);
    },

    async readResource(uri, requestOptions = {}) {
      const parts = parseNamespacedResourceUri(uri);
      const supervisor = parts ? supervisors.get(parts.server) : unprefixedOwner(uri);
      if (!supervisor || (parts && !supervisor.config.namespace)) {
        throw new AfwError("TOOL_NOT_FOUND", `unknown downstream resource "${uri.slice(0, 200)}": expected downstream://<server>/<uri> of an enabled server`, { details: { uri: uri.slice(0, 200) } });
      }
      const own = parts ? parts.uri : uri;
      const result = await supervisor.request(
        `resources/read ${own.slice(0, 200)}`,
        (client, options) => client.readResource({ uri: own }, options),
        { signal: requestOptions.signal, timeoutMs: requestOptions.timeoutMs ?? supervisor.config.callTimeoutMs },
      );
      return exposeReadResult(supervisor.config, result);
    },

    async getPrompt(name, args = {}, requestOptions = {}) {
      let found: { supervisor: ServerSupervisor; prompt: string } | undefined;
      for (const supervisor of supervisors.values()) {
        const prompt = supervisor.findPrompt(name);
        if (prompt !== undefined) {
          found = { supervisor, prompt };
          break;
        }
      }
      if (!found) {
        const parts = parseNamespacedToolName(name);
        const supervisor = parts ? supervisors.get(parts.server) : undefined;
        if (parts && supervisor?.config.namespace && !supervisor.toolsKnown) found = { supervisor, prompt: parts.tool };
      }
      if (!found) throw new AfwError("TOOL_NOT_FOUND", `unknown downstream prompt "${name.slice(0, 200)}"`, { details: { prompt: name.slice(0, 200) } });
      const { supervisor, prompt } = found;
      const result = await supervisor.request(
        `prompts/get ${prompt}`,
        (client, options) => client.getPrompt({ name: prompt, arguments: args }, options),
        { signal: requestOptions.signal, timeoutMs: requestOptions.timeoutMs ?? supervisor.config.callTimeoutMs },
      );
      return exposePromptResult(supervisor.config, result);
    },

    onCatalogChanged: (listener) => subscribe(catalogListeners, listener),

    status() {
      return [...supervisors.values()].map((supervisor) => supervisor.status());
    },

    onToolsChanged: (listener) => subscribe(toolsListeners, listener),

    onStatusChanged: (listener) => subscribe(statusListeners, listener),
  };
  return manager;
}

/** Calls each listener with `event`; a throwing listener does not break the manager. */
function emit<T>(listeners: ReadonlySet<(event: T) => void>, event: T): void {
  for (const listener of [...listeners]) {
    try {
      listener(event);
    } catch {
      // listeners must not break the manager
    }
  }
}

/** Adds `listener`; returns the function that removes it. */
function subscribe<T>(listeners: Set<T>, listener: T): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The first item of each key, in order (`namespace: false` servers may expose one name twice: the first wins). */
function firstOfEach<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
