import { BackendError, FlowExecutionRequestSchema, parseOrThrow, type BackendHealth, type ChatMessage, type FlowExecutionRequest, type HealthStatus } from "@afw/contracts";
import type { ConfiguredFlow, ParameterMapping, ParameterTarget } from "./settings.js";

/**
 * Validates an execution request.
 * @throws AfwError `INVALID_INPUT` when the request does not fit the contract.
 */
export function parseExecutionRequest(request: FlowExecutionRequest): FlowExecutionRequest {
  return parseOrThrow(FlowExecutionRequestSchema, request, "INVALID_INPUT", "flow execution request");
}

/**
 * Time limit of one call: the request's remaining budget (`timeoutMs`), but never more than the
 * backend's own `requestTimeoutMs`, so a hanging backend fails in its configured time and the
 * caller keeps the rest of its budget for a fallback.
 */
export function callTimeoutMs(requestTimeoutMs: number | undefined, configuredTimeoutMs: number): number {
  return requestTimeoutMs === undefined ? configuredTimeoutMs : Math.min(requestTimeoutMs, configuredTimeoutMs);
}

/** Reads the environment variable `name`, if `process` exists. */
export function readEnv(name: string): string | undefined {
  const value = typeof process !== "undefined" ? process.env[name] : undefined;
  return value && value.trim() ? value.trim() : undefined;
}

/** Milliseconds elapsed since `start` (from `performance.now()`), rounded to 0.1 ms. */
export function elapsedMs(start: number): number {
  return Math.max(0, Math.round((performance.now() - start) * 10) / 10);
}

/** Builds a health result. */
export function healthResult(
  backend: { id: string; kind: string },
  status: HealthStatus,
  latencyMs: number,
  extra: { version?: string | undefined; message?: string | undefined; errorCode?: string | undefined } = {},
): BackendHealth {
  return {
    backendId: backend.id,
    kind: backend.kind,
    status,
    latencyMs,
    checkedAt: new Date().toISOString(),
    ...(extra.version !== undefined ? { version: extra.version } : {}),
    ...(extra.message !== undefined ? { message: extra.message } : {}),
    ...(extra.errorCode !== undefined ? { errorCode: extra.errorCode } : {}),
  };
}

/** Health of a probe that failed with `error` (never throws, except for a caller's abort). */
export function downHealth(backend: { id: string; kind: string }, error: unknown, latencyMs: number): BackendHealth {
  if (BackendError.isInstance(error) && error.code === "ABORTED") throw error;
  const message = BackendError.isInstance(error) ? error.message : "health probe failed";
  const errorCode = BackendError.isInstance(error) ? error.code : "BACKEND_UNAVAILABLE";
  return healthResult(backend, "down", latencyMs, { message, errorCode });
}

/** `healthy` or `slow` for a probe that answered in `latencyMs`. */
export function upStatus(latencyMs: number, slowThresholdMs: number): HealthStatus {
  return latencyMs > slowThresholdMs ? "slow" : "healthy";
}

/** The parameter mapping of a flow: its own, else the backend default, else `fallback`. */
export function mappingFor(flow: ConfiguredFlow | undefined, backendDefault: ParameterMapping | undefined, fallback: ParameterMapping = {}): ParameterMapping {
  return { ...fallback, ...backendDefault, ...flow?.parameterMapping };
}

/**
 * Places `value` at `target` in a Flowise `overrideConfig` or Langflow `tweaks` object:
 * `{[param]: {[node]: value}}` (Flowise) when `nodeFirst` is false, `{[node]: {[param]: value}}`
 * (Langflow) when true; `{[param]: value}` without a node.
 */
export function placeParameter(target: ParameterTarget, value: unknown, into: Record<string, unknown>, nodeFirst: boolean): void {
  if (target.node === undefined) {
    into[target.param] = value;
    return;
  }
  const outer = nodeFirst ? target.node : target.param;
  const inner = nodeFirst ? target.param : target.node;
  const existing = into[outer];
  const bucket = typeof existing === "object" && existing !== null && !Array.isArray(existing) ? (existing as Record<string, unknown>) : {};
  bucket[inner] = value;
  into[outer] = bucket;
}

/** Formats history as a plain transcript (`User: …` / `Assistant: …`), for platforms without native history. */
export function historyTranscript(history: readonly ChatMessage[]): string {
  return history.map((message) => `${message.role === "user" ? "User" : message.role === "assistant" ? "Assistant" : "System"}: ${message.content}`).join("\n");
}

/** Codes of real calls that say the backend itself is failing (not the flow, the input or the caller). */
const BACKEND_FAILURE_CODES = new Set(["BACKEND_TIMEOUT", "BACKEND_UNAVAILABLE"]);

/** Passive health: the outcomes of the last `size` real calls (predictions), each kept `maxAgeMs`. */
export function createCallOutcomes(size = 5, maxAgeMs = 60_000) {
  const recent: Array<{ failed: boolean; at: number; code: string | undefined }> = [];
  return {
    /** Records a finished call: `error` undefined for a success. Ignores non-backend failures. */
    record(error?: unknown): void {
      const code = BackendError.isInstance(error) ? error.code : undefined;
      if (error !== undefined && (code === undefined || !BACKEND_FAILURE_CODES.has(code))) return;
      recent.push({ failed: error !== undefined, at: Date.now(), code });
      if (recent.length > size) recent.shift();
    },
    /** The failing streak, when each of the last `size` calls (all recent) failed. */
    failing(): { count: number; code: string } | undefined {
      const now = Date.now();
      if (recent.length < size || recent.some((outcome) => !outcome.failed || now - outcome.at > maxAgeMs)) return undefined;
      return { count: recent.length, code: recent.at(-1)?.code ?? "BACKEND_UNAVAILABLE" };
    },
  };
}
