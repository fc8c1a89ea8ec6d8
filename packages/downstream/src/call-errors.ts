import { AfwError, type ErrorCode, type Redactor } from "@afw/contracts";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode as McpErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/**
 * The outcome of one failed call attempt, with what retry needs to decide.
 * @internal
 */
export class AttemptFailure extends Error {
  constructor(
    readonly error: AfwError,
    /** Whether the request may have reached the server (a retry could repeat its effect). */
    readonly delivered: boolean,
    /** Whether another attempt may succeed. */
    readonly retryable: boolean,
    readonly outcome: "error" | "timeout" | "aborted",
  ) {
    super(error.message);
  }
}

/** The text of any thrown value. @internal */
export function message(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** `MCP error -32602: MCP error -32602: bad` → `bad` (the SDK prefixes the code at each hop). */
function withoutMcpPrefix(text: string): string {
  return text.replace(/^(?:MCP error -?\d{1,12}: ?)+/, "");
}

function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** What {@link classifyCallError} needs of the server it classifies for. @internal */
export interface CallErrorContext {
  server: string;
  redactor: Redactor;
  /** A call timed out: a ping tells a slow tool from a hung server. */
  onTimeout(): void;
  /** The connection is broken: tear it down and restart. */
  onBroken(text: string): void;
}

/**
 * Turns an error thrown by one tool call into an {@link AttemptFailure}: what happened, whether
 * the request may have reached the server, and whether another attempt may succeed.
 * @internal
 */
export function classifyCallError(error: unknown, context: CallErrorContext, toolName: string, timeoutMs: number): AttemptFailure {
  const details = { server: context.server, tool: toolName };
  const failure = (code: ErrorCode, text: string, delivered: boolean, retryable: boolean, outcome: "error" | "timeout" = "error") =>
    new AttemptFailure(new AfwError(code, context.redactor.redact(text), { cause: error, details }), delivered, retryable, outcome);
  if (error instanceof McpError) {
    if (error.code === McpErrorCode.RequestTimeout) {
      // A slow tool or a hung server? A ping tells; a hung server is restarted.
      context.onTimeout();
      return failure("TOOL_EXECUTION_FAILED", `tool "${toolName}" on downstream server "${context.server}" timed out after ${timeoutMs} ms`, true, true, "timeout");
    }
    if (error.code === McpErrorCode.ConnectionClosed) {
      return failure("SERVER_CONNECTION_FAILED", `downstream server "${context.server}" closed the connection during the call of "${toolName}"`, true, true);
    }
    // The server's own error: kept (code, message once, redacted data) so the gateway can forward it.
    const rpcMessage = context.redactor.redact(withoutMcpPrefix(error.message));
    const rpc = { jsonRpcCode: error.code, jsonRpcMessage: rpcMessage, ...(error.data === undefined ? {} : { jsonRpcData: context.redactor.redactValue(error.data) }) };
    return new AttemptFailure(
      new AfwError("TOOL_EXECUTION_FAILED", `downstream server "${context.server}" rejected the call of "${toolName}": ${rpcMessage}`, { cause: error, details: { ...details, ...rpc } }),
      true,
      false,
      "error",
    );
  }
  if (error instanceof StreamableHTTPError) {
    const status = typeof error.code === "number" ? error.code : 0;
    if (status === 404) {
      // The server forgot our session (restarted?): reconnect.
      context.onBroken(`HTTP session expired (404)`);
      return failure("SERVER_CONNECTION_FAILED", `downstream server "${context.server}" lost the session during the call of "${toolName}"`, false, true);
    }
    if (status === 401 || status === 403) {
      return failure("SERVER_CONNECTION_FAILED", `downstream server "${context.server}" refused the credentials (HTTP ${status})`, false, false);
    }
    const transient = status === 408 || status === 429 || status >= 500;
    return failure(
      transient ? "SERVER_CONNECTION_FAILED" : "TOOL_EXECUTION_FAILED",
      `downstream server "${context.server}" answered HTTP ${status || "error"} to the call of "${toolName}": ${error.message}`,
      true,
      transient,
    );
  }
  const networkCode = networkErrorCode(error);
  const notConnected = error instanceof Error && /not connected/i.test(error.message);
  if (notConnected || (networkCode !== undefined && /^(ECONN|EPIPE|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|UND_ERR)/.test(networkCode)) || (error instanceof TypeError && /fetch failed/i.test(error.message))) {
    context.onBroken(`connection failed: ${message(error)}${networkCode ? ` (${networkCode})` : ""}`);
    const delivered = !(notConnected || networkCode === "ECONNREFUSED");
    return failure("SERVER_CONNECTION_FAILED", `downstream server "${context.server}" could not be reached for the call of "${toolName}": ${message(error)}`, delivered, true);
  }
  return failure("TOOL_EXECUTION_FAILED", `call of "${toolName}" on downstream server "${context.server}" failed: ${message(error)}`, true, false);
}
