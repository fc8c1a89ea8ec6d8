/** The lifecycle state of a downstream server. */
export type DownstreamServerState = "idle" | "connecting" | "connected" | "backing-off" | "crashed" | "stopped";

/** Why a server's tool list (or the availability of its tools) may have changed. */
export type ToolsChangeReason = "connected" | "list-changed" | "failed" | "recovering" | "disconnected" | "stopped";

/** A point-in-time view of one downstream server, for status tools, health endpoints and tests. */
export interface DownstreamServerStatus {
  /** The configured name (the namespace prefix of its tools). */
  name: string;
  /** `stdio` or `http`. */
  transport: "stdio" | "http";
  /** `hot` or `cold`. */
  mode: "hot" | "cold";
  /** Lifecycle state; see {@link DownstreamServerState}. */
  state: DownstreamServerState;
  /** Whether its tools can be called now (see {@link DownstreamTool.available}). */
  available: boolean;
  /** Number of its tools that are exposed (after allow/deny lists); 0 while unknown. */
  toolCount: number;
  /** Whether its tool list is known (false for a cold server never connected). */
  toolsKnown: boolean;
  /** Reconnections after a failure since the manager was created. */
  restarts: number;
  /** Failures in a row (reset once a connection stays up for 30 s). */
  consecutiveFailures: number;
  /** The last failure, with secrets redacted. */
  lastError?: string;
  /** When the last failure happened (ISO 8601). */
  lastErrorAt?: string;
  /** When the current connection was established (ISO 8601). */
  connectedSince?: string;
  /** When the scheduled restart is due (ISO 8601), while `backing-off`. */
  nextRestartAt?: string;
  /** Tool calls in progress. */
  inFlightCalls: number;
  /** The child process id (stdio, while connecting or connected). */
  pid?: number;
  /** Bytes the server wrote to stderr (stdio), counted over its whole life. */
  stderrBytes: number;
  /** The last lines of its stderr (at most 2 KiB, secrets redacted). Never forwarded to our stdout. */
  stderrTail: string;
  /** Stdout lines that were not valid JSON-RPC (ignored), and other transport errors. */
  transportErrors: number;
}
