import { ErrorCode as McpErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, LoggingLevel } from "@modelcontextprotocol/sdk/types.js";

/** A progress notification of a downstream server for one call (see `DownstreamCallOptions.onProgress`). */
export interface DownstreamProgress {
  /** Progress so far (increases with every notification). */
  progress: number;
  /** Total, when the server knows it. */
  total?: number;
  /** A human-readable message, when the server sends one. */
  message?: string;
}

/** A `notifications/message` (logging) notification of a downstream server. */
export interface DownstreamLogMessage {
  /** The server that sent it. */
  server: string;
  /** Its syslog severity. */
  level: LoggingLevel;
  /** The server's logger name, when it gave one. */
  logger?: string;
  /** The message data, redacted of the server's configured secrets. */
  data: unknown;
}

/** The upstream client on whose behalf a call runs (`DownstreamCallOptions.caller`). */
export interface DownstreamCaller {
  /** Identity of the upstream client or session: callers with the same key are one client. */
  readonly key: unknown;
  /** Forwards a log message of the server. Absent: messages go to `onServerLog`. */
  log?(message: DownstreamLogMessage): void;
  /**
   * Forwards a `sampling/createMessage` request of the server to the client. Absent when the
   * client did not declare the `sampling` capability (the server then gets an error).
   */
  createMessage?(params: CreateMessageRequest["params"], options: { signal: AbortSignal }): Promise<CreateMessageResult>;
  /**
   * Forwards an `elicitation/create` request of the server to the client. Absent when the client
   * did not declare the `elicitation` capability (the server then gets an error).
   */
  elicit?(params: ElicitRequest["params"], options: { signal: AbortSignal }): Promise<ElicitResult>;
}

/**
 * The callers of the calls in flight on one server, to route what the server sends back.
 * @internal
 */
export class CallerRegistry {
  private readonly callers = new Map<DownstreamCaller, number>();

  add(caller: DownstreamCaller): void {
    this.callers.set(caller, (this.callers.get(caller) ?? 0) + 1);
  }

  delete(caller: DownstreamCaller): void {
    const count = this.callers.get(caller) ?? 0;
    if (count <= 1) this.callers.delete(caller);
    else this.callers.set(caller, count - 1);
  }

  /**
   * The caller to forward to: the latest one, when all callers in flight share its key.
   * `undefined` with the reason otherwise.
   */
  target(): { caller: DownstreamCaller } | { caller: undefined; reason: string } {
    const callers = [...this.callers.keys()];
    const latest = callers.at(-1);
    if (!latest) return { caller: undefined, reason: "no call of a client is in progress on this server" };
    if (callers.some((caller) => caller.key !== latest.key)) {
      return { caller: undefined, reason: "calls of several clients are in progress on this server, so the request cannot be attributed to one of them" };
    }
    return { caller: latest };
  }

  /** Routes a server-to-client request of `kind` to the target caller, or throws an `McpError` saying why not. */
  async forward<T>(
    server: string,
    kind: "sampling/createMessage" | "elicitation/create",
    pick: (caller: DownstreamCaller) => ((signal: AbortSignal) => Promise<T>) | undefined,
    signal: AbortSignal,
  ): Promise<T> {
    const target = this.target();
    if (!target.caller) throw new McpError(McpErrorCode.InvalidRequest, `the gateway cannot forward ${kind} of downstream server "${server}": ${target.reason}`);
    const forward = pick(target.caller);
    if (!forward) {
      const capability = kind === "sampling/createMessage" ? "sampling" : "elicitation";
      throw new McpError(McpErrorCode.MethodNotFound, `the client behind the gateway does not support ${kind} (it did not declare the ${capability} capability)`);
    }
    return forward(signal);
  }
}

/** A progress listener that hands `onProgress` the server's progress with its message redacted; a throwing hook does not break the call. @internal */
export function relayProgress(onProgress: (progress: DownstreamProgress) => void, redact: (text: string) => string): (progress: { progress: number; total?: number | undefined; message?: string | undefined }) => void {
  return (progress) => {
    try {
      onProgress({
        progress: progress.progress,
        ...(progress.total === undefined ? {} : { total: progress.total }),
        ...(progress.message === undefined ? {} : { message: redact(progress.message) }),
      });
    } catch {
      // a progress hook must not break the call
    }
  };
}
