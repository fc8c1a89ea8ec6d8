import type { UniversalQueryError, UniversalQueryResult } from "@afw/contracts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** Opens a real MCP client over Streamable HTTP to `url` (the gateway's `/mcp`). */
export async function connectClient(url: string, name = "reliability"): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** A parsed tool result: its JSON body and whether it is an error. */
export interface ToolReply<T> {
  isError: boolean;
  body: T;
}

/** Parses the single JSON text content of a tool result. */
export function parseReply<T>(result: unknown): ToolReply<T> {
  const call = result as CallToolResult;
  const first = call.content[0];
  if (!first || first.type !== "text") throw new Error(`expected one text content, got ${JSON.stringify(call.content).slice(0, 200)}`);
  return { isError: call.isError === true, body: JSON.parse(first.text) as T };
}

/** The outcome of one `universal_query`: an answer, a tool error, or a transport failure. */
export type QueryReply =
  | { kind: "answer"; result: UniversalQueryResult; latencyMs: number; progress: string[] }
  | { kind: "tool-error"; error: UniversalQueryError; latencyMs: number }
  | { kind: "transport-error"; message: string; latencyMs: number };

/**
 * Calls `universal_query` with `args`. With `stream: true` it asks for streamed tokens
 * (`parameters.stream` and a progress token) and collects the progress messages. Never throws.
 */
export async function universalQuery(client: Client, args: Record<string, unknown>, options: { stream?: boolean; timeoutMs?: number } = {}): Promise<QueryReply> {
  const started = performance.now();
  const progress: string[] = [];
  try {
    const callArgs = options.stream ? { ...args, parameters: { ...(args["parameters"] as object | undefined), stream: true } } : args;
    const raw = await client.callTool({ name: "universal_query", arguments: callArgs }, undefined, {
      timeout: options.timeoutMs ?? 60_000,
      ...(options.stream ? { onprogress: (p: { message?: string }) => void progress.push(p.message ?? "") } : {}),
    });
    const latencyMs = performance.now() - started;
    const reply = parseReply<UniversalQueryResult & UniversalQueryError>(raw);
    if (reply.isError) return { kind: "tool-error", error: reply.body, latencyMs };
    return { kind: "answer", result: reply.body, latencyMs, progress };
  } catch (error) {
    return { kind: "transport-error", message: error instanceof Error ? error.message : String(error), latencyMs: performance.now() - started };
  }
}

/**
 * Runs `total` jobs on `concurrency` workers; `job(i, worker)` gets the job index and the
 * worker index. Resolves when all are done.
 */
export async function runPool(total: number, concurrency: number, job: (index: number, worker: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async (_, worker) => {
      for (;;) {
        const index = next++;
        if (index >= total) return;
        await job(index, worker);
      }
    }),
  );
}
