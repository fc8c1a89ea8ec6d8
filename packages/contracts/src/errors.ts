import { z } from "zod";

/** Every stable error code of the gateway. Clients branch on these, never on message text. */
export const ERROR_CODES = [
  "INVALID_INPUT",
  "NO_BACKENDS_AVAILABLE",
  "BACKEND_UNAVAILABLE",
  "BACKEND_TIMEOUT",
  "BACKEND_AUTH_FAILED",
  "BACKEND_BAD_RESPONSE",
  "BACKEND_RATE_LIMITED",
  "FLOW_NOT_FOUND",
  "CIRCUIT_OPEN",
  "ALL_BACKENDS_FAILED",
  "TOOL_NOT_FOUND",
  "SERVER_CONNECTION_FAILED",
  "TOOL_EXECUTION_FAILED",
  "CACHE_UNAVAILABLE",
  "CONFIG_INVALID",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "RATE_LIMITED",
  "PAYLOAD_TOO_LARGE",
  "ABORTED",
  "INTERNAL",
] as const;

/** Zod schema of {@link ErrorCode}. */
export const ErrorCodeSchema = z.enum(ERROR_CODES);

/** A stable string error code; see {@link ERROR_CODES}. */
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

const AFW_ERROR_MARKER = Symbol.for("afw.error");
const BACKEND_ERROR_MARKER = Symbol.for("afw.error.backend");

/** Options accepted by {@link AfwError}. */
export interface AfwErrorOptions {
  /** The underlying error, kept for diagnostics (never sent to clients as-is). */
  cause?: unknown;
  /** Structured, secret-free details safe to show to a client. */
  details?: Record<string, unknown>;
}

/**
 * Base class of every error the gateway raises on purpose. Carries a stable {@link ErrorCode}.
 * @example
 * ```ts
 * try { await run(); } catch (e) {
 *   if (AfwError.isInstance(e) && e.code === "FLOW_NOT_FOUND") { ... }
 * }
 * ```
 */
export class AfwError extends Error {
  /** Stable machine-readable code. */
  readonly code: ErrorCode;
  /** Secret-free details for clients. */
  readonly details: Record<string, unknown> | undefined;
  private readonly [AFW_ERROR_MARKER] = true;

  constructor(code: ErrorCode, message: string, options: AfwErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AfwError";
    this.code = code;
    this.details = options.details;
  }

  /** True when `error` is an {@link AfwError} (from any copy of this package). */
  static isInstance(error: unknown): error is AfwError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[AFW_ERROR_MARKER] === true;
  }

  /** A JSON-safe view: `{ code, message, details? }` (no stack, no cause). */
  toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message };
  }
}

/** Options accepted by {@link BackendError}. */
export interface BackendErrorOptions extends AfwErrorOptions {
  /** HTTP status the backend answered with, if any. */
  statusCode?: number;
  /** Whether trying again (same or another backend) may succeed. Defaults from the code/status. */
  isRetryable?: boolean;
  /** Id of the backend that failed. */
  backendId?: string;
  /** The platform flow id that failed, if any. */
  flowId?: string;
}

/** HTTP statuses after which a retry may succeed: 408, 409, 425, 429 and every 5xx. */
export function isRetryableStatus(statusCode: number): boolean {
  return statusCode === 408 || statusCode === 409 || statusCode === 425 || statusCode === 429 || statusCode >= 500;
}

const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "BACKEND_UNAVAILABLE",
  "BACKEND_TIMEOUT",
  "BACKEND_RATE_LIMITED",
  "BACKEND_BAD_RESPONSE",
]);

/**
 * An error from a backend call. The router's retry and fallback decide on `isRetryable`, `code` and `statusCode`, never
 * on message text. Messages never contain API keys.
 * @example
 * ```ts
 * throw new BackendError("BACKEND_TIMEOUT", "flowise did not answer within 30000 ms", { backendId: "flowise" });
 * ```
 */
export class BackendError extends AfwError {
  /** HTTP status, when the backend answered. */
  readonly statusCode: number | undefined;
  /** Whether a retry may succeed. */
  readonly isRetryable: boolean;
  /** The backend that failed. */
  readonly backendId: string | undefined;
  /** The flow that failed. */
  readonly flowId: string | undefined;
  private readonly [BACKEND_ERROR_MARKER] = true;

  constructor(code: ErrorCode, message: string, options: BackendErrorOptions = {}) {
    super(code, message, options);
    this.name = "BackendError";
    this.statusCode = options.statusCode;
    this.backendId = options.backendId;
    this.flowId = options.flowId;
    this.isRetryable =
      options.isRetryable ??
      (options.statusCode !== undefined && code !== "BACKEND_AUTH_FAILED" && code !== "FLOW_NOT_FOUND"
        ? isRetryableStatus(options.statusCode)
        : RETRYABLE_CODES.has(code));
  }

  /** True when `error` is a {@link BackendError} (from any copy of this package). */
  static override isInstance(error: unknown): error is BackendError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[BACKEND_ERROR_MARKER] === true;
  }

  override toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    const base = super.toJSON();
    return {
      ...base,
      details: { ...base.details, statusCode: this.statusCode, isRetryable: this.isRetryable, backendId: this.backendId },
    };
  }
}

/**
 * Wraps anything thrown into an {@link AfwError}: returns `error` itself when it already is one,
 * else an `INTERNAL` error whose message is generic (the original is kept as `cause`).
 */
export function toAfwError(error: unknown, fallbackCode: ErrorCode = "INTERNAL"): AfwError {
  if (AfwError.isInstance(error)) return error;
  return new AfwError(fallbackCode, fallbackCode === "INTERNAL" ? "internal error" : String((error as Error)?.message ?? error), {
    cause: error,
  });
}

/**
 * Formats a zod error as one readable line per problem: `path: message`.
 * @example
 * ```ts
 * formatZodError(UniversalQueryInputSchema.safeParse({}).error!) // "question: Invalid input: expected string, received undefined"
 * ```
 */
export function formatZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.map(String).join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}

/**
 * Parses `input` with `schema`, throwing an {@link AfwError} with `code` (default `INVALID_INPUT`) and a readable
 * message when it does not fit.
 * @throws AfwError with `code` when validation fails.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, code: ErrorCode = "INVALID_INPUT", what = "input"): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new AfwError(code, `invalid ${what}: ${formatZodError(result.error)}`, {
      details: { issues: result.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
    });
  }
  return result.data;
}
