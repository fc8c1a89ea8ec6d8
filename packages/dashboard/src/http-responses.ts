import type { IncomingMessage, ServerResponse } from "node:http";

/** The code of a dashboard error body: the contracts codes it uses, plus HTTP-level ones. */
export type DashboardErrorCode =
  | "INVALID_INPUT"
  | "NOT_FOUND"
  | "FORBIDDEN"
  | "PAYLOAD_TOO_LARGE"
  | "INTERNAL"
  | "METHOD_NOT_ALLOWED"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "NOT_CONFIGURED"
  | "TOO_MANY_CLIENTS";

/** One validation problem: the path of the offending parameter or field, and what is wrong (never the value). */
export interface DashboardValidationIssue {
  path: string[];
  message: string;
}

/** An error answered as `{ "error": { code, message, issues? } }` with HTTP `status` and extra `headers` (e.g. `allow`). */
export class DashboardHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: DashboardErrorCode,
    message: string,
    readonly options: { issues?: DashboardValidationIssue[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "DashboardHttpError";
  }
}

/**
 * The Content-Security-Policy of every dashboard response: scripts, styles and connections from
 * the same origin only, no inline script or style, no plugins, no framing, and Trusted Types
 * enforced so no string can ever reach an HTML sink (`innerHTML`) in the page.
 */
export const DASHBOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy": DASHBOARD_CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
});

/** Writes the security headers shared by every dashboard response. */
export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}

const JSON_UNSAFE = /[<>&\u2028\u2029]/g;

/**
 * `JSON.stringify` with `<`, `>`, `&`, U+2028 and U+2029 escaped as `\uXXXX`, so a JSON body can
 * never be mistaken for markup even if a client sniffs it.
 */
export function toSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(JSON_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Sends a JSON response (never cached). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = toSafeJson(body);
  setSecurityHeaders(res);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

/** Sends the JSON body of `error`. */
export function sendError(res: ServerResponse, { status, code, message, options }: DashboardHttpError): void {
  sendJson(res, status, { error: { code, message, ...(options.issues ? { issues: options.issues } : {}) } }, options.headers);
}

/**
 * Reads a request body of at most `maxBytes` bytes and parses it as JSON.
 *
 * @throws DashboardHttpError 413 `PAYLOAD_TOO_LARGE` when the body is larger, 400 `INVALID_INPUT`
 * when it is not JSON.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    throw new DashboardHttpError(413, "PAYLOAD_TOO_LARGE", `request body must be at most ${maxBytes} bytes`, { headers: { connection: "close" } });
  }
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
        reject(new DashboardHttpError(413, "PAYLOAD_TOO_LARGE", `request body must be at most ${maxBytes} bytes`, { headers: { connection: "close" } }));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!tooLarge) resolve();
    });
    req.on("error", (error) => {
      if (!tooLarge) reject(error);
    });
  });
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DashboardHttpError(400, "INVALID_INPUT", "request body must be valid JSON");
  }
}
