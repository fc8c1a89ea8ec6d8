import { AfwError } from "@afw/contracts";
import { z } from "zod";

/** A JSON-RPC error raised from the `tools/call` handler: the MCP SDK answers it with this `code`, the message as it
 * is (no `MCP error <code>:` prefix, unlike the SDK's `McpError`) and `data`. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The downstream server's own JSON-RPC error that an `AfwError` carries (`details.jsonRpcCode`, `jsonRpcMessage`, `jsonRpcData`), if any. */
export function forwardedJsonRpcError(error: unknown): JsonRpcError | undefined {
  const details = AfwError.isInstance(error) ? error.details : undefined;
  if (typeof details?.["jsonRpcCode"] !== "number" || typeof details["jsonRpcMessage"] !== "string") return undefined;
  return new JsonRpcError(details["jsonRpcCode"], details["jsonRpcMessage"], details["jsonRpcData"]);
}

/** JSON-RPC "Invalid params" (-32602) raised from the `tools/call` handler; the MCP SDK answers it with this code and the message, a single readable line. */
export class InvalidParamsError extends JsonRpcError {
  constructor(message: string) {
    super(-32602, message);
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `"question" is required` / `"limit": Too small: expected number to be >=1`. */
function issueLine(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join(".");
  if (issue.code === "invalid_type" && /received undefined$/.test(issue.message)) return path ? `"${path}" is required` : "a value is required";
  return path ? `"${path}": ${issue.message}` : issue.message;
}

/** The typed `INVALID_INPUT` error for arguments that fail a tool's schema: one readable line (`Invalid arguments
 * for tool universal_query: "question" is required`) and the issues as details. */
export function invalidArguments(tool: string, error: z.ZodError): AfwError {
  const issues = error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));
  return new AfwError("INVALID_INPUT", `Invalid arguments for tool ${tool.slice(0, 100)}: ${error.issues.map(issueLine).join("; ")}`, { details: { issues } });
}

/** `tools/call` params checked before the SDK's own schema sees them, so malformed params (not an object, no tool name,
 * non-object `arguments`) answer -32602 with one line instead of -32603 and a raw zod dump. */
export const ToolsCallRequestSchema = z.object({
  method: z.literal("tools/call"),
  params: z.unknown().transform((params) => {
    if (!isPlainObject(params)) throw new InvalidParamsError("Invalid params for tools/call: params must be an object");
    const { name, arguments: args } = params;
    if (typeof name !== "string") throw new InvalidParamsError('Invalid params for tools/call: "name" must be a string');
    if (args !== undefined && !isPlainObject(args)) {
      throw new InvalidParamsError(`Invalid arguments for tool ${name.slice(0, 100)}: "arguments" must be an object`);
    }
    return { ...params, name, arguments: args };
  }),
});
