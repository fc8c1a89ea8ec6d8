import { AfwError, computeBackoffDelay, createRedactor, emitTrace, type Redactor } from "@afw/contracts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { BoundedTail } from "./bounded-tail.js";
import { AttemptFailure, classifyCallError, message } from "./call-errors.js";
import type { DownstreamServerConfig } from "./config.js";
import { toDownstreamTools, type DownstreamTool } from "./downstream-tool.js";
import { isToolAllowed } from "./tool-filter.js";
import { collectSecrets } from "./collect-secrets.js";
import { EMPTY_CATALOG, exposeCatalog, listCatalog, type ServerCatalog } from "./catalog.js";
import { CallerRegistry, relayProgress, type DownstreamCaller, type DownstreamLogMessage, type DownstreamProgress } from "./forwarding.js";
import type { DownstreamServerState, DownstreamServerStatus, ToolsChangeReason } from "./server-status.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { closeConnection, coalesced, listAllTools, openClient, type Connection, type ServerAbout, type SupervisorDependencies } from "./supervisor-transport.js";

const STATUS_STDERR_CHARS = 2_048;
/** A server connected at least this long before failing starts its restart backoff from the beginning again. */
const RESTART_STABLE_AFTER_MS = 30_000;

/**
 * Supervises one downstream server: connection, tool list, idle disconnect, health pings,
 * restarts with backoff, and single call attempts.
 * @internal
 */
export class ServerSupervisor {
  state: DownstreamServerState = "idle";
  private connection: Connection | undefined;
  private connectPromise: Promise<Connection> | undefined;
  /** The connection being opened (spawned, not yet initialized): closed at once by `stop()`. */
  private opening: Connection | undefined;
  private closingPromise: Promise<void> | undefined;
  private generation = 0;
  private rawTools: Tool[] | undefined;
  /** Resources, resource templates and prompts as the server listed them. */
  private rawCatalog: ServerCatalog = EMPTY_CATALOG;
  /** What the server said about itself when it last connected (kept while a cold server is disconnected). */
  private serverAbout: ServerAbout = {};
  private healthy = true;
  private recovering = false;
  private restarts = 0;
  private consecutiveFailures = 0;
  private lastError: string | undefined;
  private lastErrorAt: number | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private nextRestartAt: number | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private inFlight = 0;
  private stopped = false;
  private readonly stateWaiters = new Set<() => void>();
  private readonly stderr: BoundedTail;
  private transportErrors = 0;
  private lastTransportError: string | undefined;
  private readonly redactor: Redactor;
  /** Callers of the calls in flight: where log messages and server-to-client requests go. */
  private readonly callers = new CallerRegistry();
  /** Progress listeners of the calls in flight, by our progress token. */
  private readonly progressListeners = new Map<string, (progress: DownstreamProgress) => void>();
  private progressCounter = 0;

  constructor(
    readonly config: DownstreamServerConfig,
    private readonly deps: SupervisorDependencies,
  ) {
    this.stderr = new BoundedTail(config.transport === "stdio" ? config.stderrTailBytes : 0);
    this.redactor = createRedactor(collectSecrets(config.transport === "stdio" ? { env: config.env } : { headers: config.headers, url: config.url }));
  }

  get name(): string {
    return this.config.name;
  }

  /** Whether the server's tool list is known. */
  get toolsKnown(): boolean {
    return this.rawTools !== undefined;
  }

  /**
   * Whether a tool missing from the cached list might exist anyway: the server is connected but
   * does not announce tool list changes, so the list may be stale.
   */
  get toolListMayBeStale(): boolean {
    return this.connection !== undefined && !this.connection.notifiesToolChanges;
  }

  /** Whether calls may be attempted now. */
  get available(): boolean {
    if (this.stopped) return false;
    if (this.state === "connected") return true;
    return (this.state === "idle" || this.state === "connecting") && this.healthy;
  }

  /** Redacts this server's secrets (and generic secret shapes) from `text`. */
  redact(text: string): string {
    return this.redactor.redact(text);
  }

  /** The exposed tools (allow/deny lists and overrides applied). */
  tools(): DownstreamTool[] {
    return this.rawTools ? toDownstreamTools(this.config, this.rawTools, this.available) : [];
  }

  /** What the server said about itself (`serverInfo` title, `instructions`) when it last connected. */
  about(): ServerAbout {
    return this.serverAbout;
  }

  /** Resources, templates and prompts under namespaced URIs and names (empty while unavailable). */
  catalog(): ServerCatalog {
    return this.available ? exposeCatalog(this.config, this.rawCatalog) : EMPTY_CATALOG;
  }

  /** The server's own name of a prompt listed under `exposedName`. */
  findPrompt(exposedName: string): string | undefined {
    const index = exposeCatalog(this.config, { ...EMPTY_CATALOG, prompts: this.rawCatalog.prompts }).prompts.findIndex((prompt) => prompt.name === exposedName);
    return index < 0 ? undefined : this.rawCatalog.prompts[index]!.name;
  }

  /** Re-lists the resources, templates and prompts (coalescing concurrent requests). */
  readonly refreshCatalog = coalesced(async () => {
    const connection = this.connection;
    if (!connection) return false;
    const catalog = await listCatalog(connection.client, this.config.connectTimeoutMs);
    if (this.connection !== connection) return false;
    this.rawCatalog = catalog;
    this.deps.onChange(this, "list-changed");
    return true;
  });

  /**
   * One request other than a tool call (`resources/read`, `prompts/get`), connecting a cold
   * server on demand; fails at once while the server is backing off. Throws `AfwError`.
   */
  async request<T>(what: string, run: (client: Client, options: { signal: AbortSignal; timeout: number }) => Promise<T>, options: { signal?: AbortSignal | undefined; timeoutMs: number }): Promise<T> {
    try {
      return await this.attempt(what, { ...options, waitForRestartMs: 0 }, (connection, signal) => run(connection.client, { signal, timeout: options.timeoutMs }));
    } catch (error) {
      throw error instanceof AttemptFailure ? error.error : error;
    }
  }

  /** The raw tool `name` as the server listed it, if it exists and passes the allow/deny lists. */
  findTool(name: string): Tool | undefined {
    if (!isToolAllowed(name, this.config)) return undefined;
    return this.rawTools?.find((tool) => tool.name === name);
  }

  status(): DownstreamServerStatus {
    const status: DownstreamServerStatus = {
      name: this.name,
      transport: this.config.transport,
      mode: this.config.mode,
      state: this.state,
      available: this.available,
      toolCount: this.tools().length,
      toolsKnown: this.toolsKnown,
      restarts: this.restarts,
      consecutiveFailures:
        this.connection && Date.now() - this.connection.connectedAt >= RESTART_STABLE_AFTER_MS ? 0 : this.consecutiveFailures,
      inFlightCalls: this.inFlight,
      stderrBytes: this.stderr.totalBytes,
      stderrTail: this.redact(this.stderr.text().slice(-STATUS_STDERR_CHARS)),
      transportErrors: this.transportErrors,
    };
    if (this.lastError !== undefined) status.lastError = this.lastError;
    if (this.lastErrorAt !== undefined) status.lastErrorAt = new Date(this.lastErrorAt).toISOString();
    if (this.connection) status.connectedSince = new Date(this.connection.connectedAt).toISOString();
    const opening = this.opening?.transport;
    const pid = this.connection?.pid ?? (opening instanceof StdioClientTransport ? (opening.pid ?? undefined) : undefined);
    if (pid !== undefined) status.pid = pid;
    if (this.nextRestartAt !== undefined && this.state === "backing-off") status.nextRestartAt = new Date(this.nextRestartAt).toISOString();
    return status;
  }

  /** Connects a hot server; discovers a cold server's tools (connect, list, disconnect). Never throws. */
  async start(discoverCold: boolean): Promise<void> {
    if (this.stopped) return;
    if (this.config.mode === "hot") {
      await this.connect().catch(() => undefined);
      return;
    }
    if (!discoverCold || this.rawTools !== undefined) return;
    try {
      await this.connect();
    } catch {
      return;
    }
    if (this.inFlight === 0) await this.disconnect("idle");
  }

  /** Disconnects and never reconnects. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.clearTimer("restartTimer");
    this.nextRestartAt = undefined;
    this.clearTimer("idleTimer");
    this.clearTimer("pingTimer");
    // A server still connecting (maybe never answering initialize) is killed, not waited for.
    const opening = this.opening;
    if (opening && !opening.closing) {
      opening.closing = true;
      await closeConnection(opening, true);
    }
    if (this.connectPromise) await this.connectPromise.catch(() => undefined);
    const connection = this.connection;
    if (connection && this.detach(connection, "shutdown")) await closeConnection(connection, false);
    if (this.closingPromise) await this.closingPromise;
    this.setState("stopped", "stopped");
  }

  /** Ensures a connection (deduplicating concurrent attempts). */
  connect(): Promise<Connection> {
    if (this.stopped) return Promise.reject(this.unavailableError());
    if (this.connection) return Promise.resolve(this.connection);
    if (this.connectPromise) return this.connectPromise;
    this.clearTimer("restartTimer");
    this.nextRestartAt = undefined;
    if (this.recovering) this.restarts++;
    const generation = ++this.generation;
    this.setState("connecting", "recovering");
    const promise: Promise<Connection> = this.openConnection(generation).finally(() => {
      if (this.connectPromise === promise) this.connectPromise = undefined;
    });
    this.connectPromise = promise;
    return promise;
  }

  /** Re-lists the server's tools (coalescing concurrent requests); a failure counts as a transport error. */
  readonly refreshTools = coalesced(async () => {
    const connection = this.connection;
    if (!connection) return false;
    try {
      const tools = await listAllTools(connection.client, this.config.connectTimeoutMs);
      if (this.connection !== connection) return false;
      this.rawTools = tools;
      this.deps.onChange(this, "list-changed");
      return true;
    } catch {
      if (this.connection === connection) this.transportErrors++;
      return false;
    }
  });

  /** Disconnects (idle or shutdown); the process is closed gracefully. */
  async disconnect(reason: "idle"): Promise<void> {
    const connection = this.connection;
    if (!connection) return;
    if (Date.now() - connection.connectedAt >= RESTART_STABLE_AFTER_MS) this.consecutiveFailures = 0;
    this.detach(connection, reason);
    const closing = closeConnection(connection, false);
    this.closingPromise = closing;
    await closing;
    if (this.closingPromise === closing) this.closingPromise = undefined;
    if (!this.stopped && !this.connection && !this.connectPromise && this.state === "connected") this.setState("idle", "disconnected");
  }

  /**
   * One call attempt: acquires a connection (connecting a cold server on demand) and calls the
   * tool. Throws {@link AttemptFailure}.
   */
  async callOnce(
    toolName: string,
    args: Record<string, unknown>,
    options: {
      signal: AbortSignal | undefined;
      timeoutMs: number;
      waitForRestartMs: number;
      onProgress?: ((progress: DownstreamProgress) => void) | undefined;
      caller?: DownstreamCaller | undefined;
    },
  ): Promise<CallToolResult> {
    return this.attempt(toolName, options, async (connection, signal) => {
      if (this.rawTools !== undefined && !this.findTool(toolName)) {
        const error = new AfwError("TOOL_NOT_FOUND", `tool "${toolName}" is not offered by downstream server "${this.name}"`, { details: { server: this.name, tool: toolName } });
        throw new AttemptFailure(error, false, false, "error");
      }
      const onProgress = options.onProgress;
      // Our own progress token, matched where messages arrive (see `interceptProgress`): the SDK's
      // own progress handling drops notifications that arrive together with the result.
      const progressToken = onProgress ? `afw-progress-${++this.progressCounter}` : undefined;
      if (progressToken !== undefined && onProgress) this.progressListeners.set(progressToken, relayProgress(onProgress, (text) => this.redact(text)));
      try {
        const params = { name: toolName, arguments: args, ...(progressToken === undefined ? {} : { _meta: { progressToken } }) };
        return (await connection.client.callTool(params, CallToolResultSchema, { signal, timeout: options.timeoutMs })) as CallToolResult;
      } finally {
        if (progressToken !== undefined) this.progressListeners.delete(progressToken);
      }
    });
  }

  /**
   * One attempt on a connection, connecting a cold server on demand: the caller's abort, in-flight
   * and idle bookkeeping, and every failure as an {@link AttemptFailure}.
   */
  private async attempt<T>(
    what: string,
    options: { signal?: AbortSignal | undefined; timeoutMs: number; waitForRestartMs: number; caller?: DownstreamCaller | undefined },
    run: (connection: Connection, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    this.inFlight++;
    const caller = options.caller;
    if (caller) this.callers.add(caller);
    this.clearTimer("idleTimer");
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) controller.abort(options.signal.reason);
    let connection: Connection | undefined;
    try {
      connection = await this.acquire(controller.signal, options.waitForRestartMs);
      return await run(connection, controller.signal);
    } catch (error) {
      if (error instanceof AttemptFailure) throw error;
      if (controller.signal.aborted) {
        const aborted = new AfwError("ABORTED", `call of "${what}" on downstream server "${this.name}" was aborted`, { details: { server: this.name, tool: what } });
        throw new AttemptFailure(aborted, false, false, "aborted");
      }
      if (connection) {
        const current = connection;
        const context = { server: this.name, redactor: this.redactor, onTimeout: () => void this.checkHealth(current), onBroken: (text: string) => void this.failConnection(current, text) };
        throw classifyCallError(error, context, what, options.timeoutMs);
      }
      const failure = AfwError.isInstance(error) ? error : new AfwError("TOOL_EXECUTION_FAILED", this.redact(`${what} failed: ${message(error)}`), { cause: error });
      throw new AttemptFailure(failure, false, false, "error");
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      if (caller) this.callers.delete(caller);
      this.inFlight--;
      this.scheduleIdle();
    }
  }

  private unavailableError(): AfwError {
    const state = this.state;
    const retryInMs = this.nextRestartAt === undefined ? undefined : Math.max(0, this.nextRestartAt - Date.now());
    const why =
      this.stopped || state === "stopped"
        ? "the downstream manager is stopped"
        : state === "crashed"
          ? "it failed too often and is not restarted"
          : `it is restarting after a failure${retryInMs === undefined ? "" : ` (next attempt in ${retryInMs} ms)`}`;
    return new AfwError("SERVER_CONNECTION_FAILED", `downstream server "${this.name}" is unavailable: ${why}${this.lastError ? `; last error: ${this.lastError}` : ""}`, {
      details: { server: this.name, state, ...(retryInMs === undefined ? {} : { retryInMs }) },
    });
  }

  private async acquire(signal: AbortSignal, waitForRestartMs: number): Promise<Connection> {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      if (this.connection?.healthCheck) await this.connection.healthCheck;
      if (this.stopped || this.state === "stopped" || this.state === "crashed") {
        throw new AttemptFailure(this.unavailableError(), false, false, "error");
      }
      if (this.state === "backing-off") {
        const wait = (this.nextRestartAt ?? Number.POSITIVE_INFINITY) - Date.now();
        if (wait > waitForRestartMs) throw new AttemptFailure(this.unavailableError(), false, false, "error");
        await this.waitForStateChange(signal, Math.max(0, wait) + this.config.connectTimeoutMs);
        continue;
      }
      if (this.connection && !this.connection.healthCheck) return this.connection;
      if (this.connection) continue;
      try {
        return await this.connect();
      } catch (error) {
        if (AfwError.isInstance(error)) throw new AttemptFailure(error, false, !this.stopped, "error");
        throw error;
      }
    }
  }

  private waitForStateChange(signal: AbortSignal, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.stateWaiters.delete(done);
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs).unref();
      this.stateWaiters.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  private setState(state: DownstreamServerState, reason: ToolsChangeReason): void {
    this.state = state;
    for (const waiter of [...this.stateWaiters]) waiter();
    this.deps.onChange(this, reason);
  }

  private async openConnection(generation: number): Promise<Connection> {
    if (this.closingPromise) await this.closingPromise;
    this.lastTransportError = undefined;
    let opened: Connection | undefined;
    try {
      if (this.stopped) throw new Error("the downstream manager is stopped");
      const { connection, tools, catalog, about } = await openClient(this.name, this.config, {
        ...this.deps,
        callers: this.callers,
        progressListeners: this.progressListeners,
        onOpening: (connection) => (this.opening = opened = connection),
        onStderr: (chunk) => this.stderr.append(chunk),
        onClose: (connection) => this.handleClose(connection),
        onError: (error) => {
          this.transportErrors++;
          // An oversized message makes the SDK close the transport: keep that as the reason.
          if (!this.lastTransportError?.includes("exceeded maximum size")) this.lastTransportError = message(error).slice(0, 300);
        },
        onListChanged: (connection, list) => {
          if (this.connection !== connection) return;
          if (list === "tools") void this.refreshTools();
          else void this.refreshCatalog().catch(() => undefined);
        },
        onLog: ({ level, logger, data }) => this.forwardLog({ server: this.name, level, ...(logger === undefined ? {} : { logger }), data: this.redactor.redactValue(data) }),
      });
      if (this.stopped || generation !== this.generation) throw new Error("connection superseded");
      this.rawCatalog = catalog;
      this.serverAbout = about;
      connection.connectedAt = Date.now();
      this.connection = connection;
      this.rawTools = tools;
      this.healthy = true;
      this.recovering = false;
      emitTrace(this.deps.trace, "downstream-connected", { server: this.name, transport: this.config.transport, toolCount: this.tools().length });
      this.setState("connected", "connected");
      this.schedulePing(connection);
      this.scheduleIdle();
      return connection;
    } catch (error) {
      if (opened && !opened.closing) {
        opened.closing = true;
        await closeConnection(opened, true);
      }
      if (this.stopped) throw new AfwError("SERVER_CONNECTION_FAILED", `downstream server "${this.name}" is unavailable: the downstream manager is stopped`);
      const description = this.describeFailure(`could not connect: ${message(error)}`);
      if (generation === this.generation) this.recordFailure(description, undefined);
      throw new AfwError("SERVER_CONNECTION_FAILED", `downstream server "${this.name}" ${description}`, {
        cause: error,
        details: { server: this.name, state: this.state },
      });
    } finally {
      if (opened && this.opening === opened) this.opening = undefined;
    }
  }

  /** Adds the last stderr lines (a crashing server usually says why there) and redacts. */
  private describeFailure(text: string): string {
    const lines = this.stderr.lastLines(3);
    const withStderr = lines.length > 0 ? `${text} (stderr: ${lines.join(" | ").slice(-500)})` : text;
    return this.redact(withStderr);
  }

  private handleClose(connection: Connection): void {
    const what = this.config.transport === "stdio" ? "process exited or closed its stdio" : "connection closed";
    this.detach(connection, "crash", this.lastTransportError ? `${what} (last transport error: ${this.lastTransportError})` : what);
  }

  /** Tears down a connection that misbehaves (hung, broken HTTP session) and schedules a restart. */
  private async failConnection(connection: Connection, text: string): Promise<void> {
    if (this.detach(connection, "error", text)) await closeConnection(connection, true);
  }

  /**
   * Detaches the current connection (its timers stopped) and traces why; a `failure` text records a failure and schedules
   * a restart. False when `connection` is no longer the current one.
   */
  private detach(connection: Connection, reason: "idle" | "shutdown" | "crash" | "error", failure?: string): boolean {
    if (connection.closing || this.connection !== connection) return false;
    this.connection = undefined;
    connection.closing = true;
    this.clearTimer("idleTimer");
    this.clearTimer("pingTimer");
    if (failure === undefined) {
      emitTrace(this.deps.trace, "downstream-disconnected", { server: this.name, reason });
      return true;
    }
    const description = this.describeFailure(failure);
    emitTrace(this.deps.trace, "downstream-disconnected", { server: this.name, reason, message: description });
    this.recordFailure(description, connection.connectedAt);
    return true;
  }

  private recordFailure(description: string, connectedAt: number | undefined): void {
    if (this.stopped) return;
    const now = Date.now();
    if (connectedAt !== undefined && connectedAt > 0 && now - connectedAt >= RESTART_STABLE_AFTER_MS) this.consecutiveFailures = 0;
    this.consecutiveFailures++;
    this.lastError = description;
    this.lastErrorAt = now;
    this.healthy = false;
    this.recovering = true;
    if (this.deps.maxRestarts !== undefined && this.consecutiveFailures > this.deps.maxRestarts) {
      this.nextRestartAt = undefined;
      this.setState("crashed", "failed");
      return;
    }
    const delay = computeBackoffDelay(this.consecutiveFailures, this.deps.restartBackoff, this.deps.random);
    this.clearTimer("restartTimer");
    this.nextRestartAt = now + delay;
    this.restartTimer = setTimeout(() => this.restartDue(), delay).unref();
    this.setState("backing-off", "failed");
  }

  private restartDue(): void {
    this.restartTimer = undefined;
    this.nextRestartAt = undefined;
    if (this.stopped || this.state !== "backing-off") return;
    if (this.config.mode === "hot") {
      this.connect().catch(() => undefined);
    } else {
      // A cold server is reconnected on its next use.
      this.healthy = true;
      this.setState("idle", "recovering");
    }
  }

  private clearTimer(which: "restartTimer" | "idleTimer" | "pingTimer"): void {
    if (this[which] !== undefined) {
      clearTimeout(this[which]);
      this[which] = undefined;
    }
  }

  private scheduleIdle(): void {
    if (this.config.mode !== "cold" || this.inFlight > 0 || !this.connection || this.stopped) return;
    this.clearTimer("idleTimer");
    const connection = this.connection;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.connection === connection && this.inFlight === 0) void this.disconnect("idle");
    }, this.config.idleTimeoutMs).unref();
  }

  private schedulePing(connection: Connection): void {
    if (this.config.pingIntervalMs <= 0 || this.stopped) return;
    this.clearTimer("pingTimer");
    this.pingTimer = setTimeout(() => {
      this.pingTimer = undefined;
      if (this.connection !== connection) return;
      void this.checkHealth(connection).then((healthy) => {
        if (healthy && this.connection === connection) this.schedulePing(connection);
      });
    }, this.config.pingIntervalMs).unref();
  }

  /** Pings the server; on failure it is torn down and restarted. Concurrent checks share one ping. */
  private checkHealth(connection: Connection): Promise<boolean> {
    if (connection.healthCheck) return connection.healthCheck;
    const check = (async () => {
      try {
        await connection.client.ping({ timeout: this.config.pingTimeoutMs });
        return true;
      } catch (error) {
        await this.failConnection(connection, `health ping failed (server hung?): ${message(error)}`);
        return false;
      } finally {
        connection.healthCheck = undefined;
      }
    })();
    connection.healthCheck = check;
    return check;
  }

  /** A log message goes to the caller of the calls in flight, else to `onServerLog`. */
  private forwardLog(log: DownstreamLogMessage): void {
    const target = this.callers.target().caller;
    try {
      if (target?.log) target.log(log);
      else this.deps.onServerLog?.(log);
    } catch {
      // a logging hook must not break the connection
    }
  }
}
