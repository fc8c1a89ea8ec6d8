import { z } from "zod";
import { AfwError, GlobPatternSchema } from "@afw/contracts";
import { NAMESPACE_SEPARATOR } from "./namespacing.js";
import { classifyAddress, matchHostPattern, normalizeHostName } from "@afw/backends";

/** Zod schema of a downstream server name. */
export const DownstreamServerNameSchema = z
  .string()
  .min(1, "server name must not be empty")
  .max(64, "server name must be at most 64 characters")
  .regex(/^[A-Za-z0-9_-]+$/, "server name may only contain letters, digits, '_' and '-'")
  .refine((name) => !name.includes(NAMESPACE_SEPARATOR), `server name must not contain '${NAMESPACE_SEPARATOR}' (it separates server and tool)`)
  .refine((name) => !name.endsWith("_"), "server name must not end with '_'");

/** Zod schema of one entry of {@link DownstreamServerConfig}'s `toolOverrides`. */
export const ToolOverrideSchema = z
  .object({
    description: z.string().optional().describe("Replaces the tool's description (what agents and the tool search see)."),
    title: z.string().optional().describe("Replaces the tool's title."),
    tags: z.array(z.string().min(1)).optional().describe("Extra tags for this tool (added to the server's tags)."),
  })
  .strict();

const stringRecord = z.record(z.string(), z.string());

const commonShape = {
  name: DownstreamServerNameSchema,
  enabled: z.boolean().default(true).describe("A disabled server is ignored entirely."),
  required: z
    .boolean()
    .default(false)
    .describe("The gateway is not ready (`/readyz` 503) while this server is not connected. Optional servers are reported in `/readyz` without failing it."),
  mode: z
    .enum(["hot", "cold"])
    .default("hot")
    .describe("`hot`: connected at start and kept connected. `cold`: connected on first use, disconnected after `idleTimeoutMs` without calls."),
  idleTimeoutMs: z.number().int().positive().default(300_000).describe("Cold servers only: disconnect after this long without calls."),
  connectTimeoutMs: z.number().int().positive().default(30_000).describe("Limit for spawning/connecting, the initialize handshake and listing tools."),
  callTimeoutMs: z.number().int().positive().default(60_000).describe("Default limit for one attempt of one tool call."),
  retries: z.number().int().min(0).max(10).default(2).describe("Retries after the first attempt for retryable failures."),
  retryUnsafeCalls: z
    .boolean()
    .default(false)
    .describe(
      "Also retry calls that may already have reached the server (connection lost mid-call, timeout) for tools not annotated readOnlyHint or idempotentHint. Off by default: retrying such a tool can repeat its side effect.",
    ),
  pingIntervalMs: z.number().int().nonnegative().default(30_000).describe("Health ping period while connected; 0 disables. A failed ping restarts the server."),
  pingTimeoutMs: z.number().int().positive().default(5_000).describe("Limit for one health ping."),
  allow: z.array(GlobPatternSchema).optional().describe("Glob patterns (`*`, `?`) of tool names to expose; absent = all."),
  deny: z.array(GlobPatternSchema).default([]).describe("Glob patterns of tool names to hide. Deny wins over allow."),
  toolOverrides: z.record(z.string().min(1), ToolOverrideSchema).default({}).describe("Per-tool overrides keyed by the tool's own (not namespaced) name."),
  tags: z.array(z.string().min(1)).default([]).describe("Tags added to every tool of this server."),
  namespace: z
    .boolean()
    .default(true)
    .describe(
      "`false`: this server's tools and prompts keep their own names and its resources their own URIs (a gateway in front of one server, or of servers whose names cannot collide). Where two servers expose one name, the first in this list wins; the gateway's own tools win over any.",
    ),
} as const;

/** Zod schema of a downstream MCP server reached by spawning a process and speaking MCP over its stdin/stdout. */
export const StdioDownstreamServerConfigSchema = z
  .object({
    ...commonShape,
    transport: z.literal("stdio"),
    command: z.string().min(1, "command must not be empty").describe("Executable to spawn (no shell)."),
    args: z.array(z.string()).default([]),
    env: stringRecord.default({}).describe("Extra environment; the child also gets HOME, PATH, SHELL, TERM, USER, LOGNAME (nothing else of ours)."),
    cwd: z.string().min(1).optional(),
    maxMessageBytes: z
      .number()
      .int()
      .min(1024 * 1024, "maxMessageBytes must be at least 1 MiB (1048576)")
      .default(8 * 1024 * 1024)
      .describe(
        "Bound on buffered stdout (one JSON-RPC line plus one 64 KiB read); a server writing a longer line is disconnected and restarted.",
      ),
    stderrTailBytes: z.number().int().nonnegative().default(8192).describe("How much of the server's stderr is kept (the rest is counted and dropped)."),
  })
  .strict();

/** Zod schema of a downstream MCP server reached over HTTP (Streamable HTTP, or legacy SSE). */
export const HttpDownstreamServerConfigSchema = z
  .object({
    ...commonShape,
    transport: z.literal("http"),
    url: z.url({ protocol: /^https?$/, error: "url must be an http(s) URL" }),
    headers: stringRecord.default({}).describe("Sent with every request (e.g. Authorization). Never logged."),
    protocol: z
      .enum(["streamable-http", "sse"])
      .default("streamable-http")
      .describe("`streamable-http` (current MCP spec) or the legacy `sse` transport."),
  })
  .strict();

/** Zod schema of one downstream server entry: a union discriminated on `transport`. */
export const DownstreamServerConfigSchema = z.discriminatedUnion("transport", [StdioDownstreamServerConfigSchema, HttpDownstreamServerConfigSchema], {
  error: 'transport must be "stdio" (with command) or "http" (with url)',
});

/** One configured downstream MCP server (defaults applied). */
export type DownstreamServerConfig = z.infer<typeof DownstreamServerConfigSchema>;
/** Input form of one server entry (see {@link DownstreamServerConfigSchema}): only `name`, `transport` and `command` / `url` are required. */
export type DownstreamServerConfigInput = z.input<typeof DownstreamServerConfigSchema>;

/** Zod schema of {@link DownstreamConfig}. */
export const DownstreamConfigSchema = z
  .object({
    servers: z.array(DownstreamServerConfigSchema).default([]),
    restartBackoff: z
      .object({ initialDelayMs: z.number().int().nonnegative().default(500), maxDelayMs: z.number().int().nonnegative().default(30_000) })
      .strict()
      .default({ initialDelayMs: 500, maxDelayMs: 30_000 })
      .describe("Delay before restarting a crashed or hung server, doubling per consecutive failure (reset once a connection lasted 30 s)."),
    maxRestarts: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe("Consecutive failed restarts after which a server stays `crashed`; absent = keep trying (at the capped delay)."),
    discoverColdServers: z
      .boolean()
      .default(true)
      .describe("At start, connect each cold server once to learn its tools, then disconnect it; otherwise its tools are unknown until first use."),
    allowedHosts: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "Hosts HTTP servers may use (`host`, `host:port`, `*.domain`, `*`). Absent: any configured host, except cloud-metadata, link-local and other special addresses, which always need an exact entry.",
      ),
  })
  .strict()
  .superRefine((config, context) => {
    const seen = new Map<string, number>();
    config.servers.forEach((server, index) => {
      if (server.transport === "http") {
        const url = new URL(server.url);
        const match = config.allowedHosts === undefined ? undefined : matchHostPattern(url, config.allowedHosts);
        const addressClass = classifyAddress(normalizeHostName(url.hostname));
        if (config.allowedHosts !== undefined && match === undefined) {
          context.addIssue({ code: "custom", path: ["servers", index, "url"], message: `host '${url.host}' is not in downstream.allowedHosts` });
        } else if (addressClass !== undefined && !["public", "private", "loopback"].includes(addressClass) && match !== "exact") {
          context.addIssue({
            code: "custom",
            path: ["servers", index, "url"],
            message: `host '${url.host}' is a ${addressClass} address; list it exactly in downstream.allowedHosts to allow it`,
          });
        }
      }
      const previous = seen.get(server.name);
      if (previous !== undefined) {
        context.addIssue({
          code: "custom",
          path: ["servers", index, "name"],
          message: `duplicate server name (also used by servers[${previous}])`,
        });
      } else {
        seen.set(server.name, index);
      }
    });
  });

/** The downstream section of the gateway configuration (defaults applied). */
export type DownstreamConfig = z.infer<typeof DownstreamConfigSchema>;
/** Input form of {@link DownstreamConfig}. */
export type DownstreamConfigInput = z.input<typeof DownstreamConfigSchema>;

/** Formats zod issues with the server each one concerns: `server "web" (servers[1]): url: …`. */
function describeConfigIssues(error: z.ZodError, input: unknown): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String);
    if (path[0] !== "servers" || path.length < 2) return `${path.length ? path.join(".") : "(root)"}: ${issue.message}`;
    const entries = (input as { servers?: unknown } | undefined)?.servers;
    const name = (Array.isArray(entries) ? (entries[Number(path[1])] as { name?: unknown } | undefined) : undefined)?.name;
    const where = `${typeof name === "string" ? `server "${name}"` : "server"} (servers[${path[1]}])`;
    const field = path.slice(2).join(".");
    return `${where}${field ? `: ${field}` : ""}: ${issue.message}`;
  });
}

/**
 * Validates a downstream configuration and applies defaults.
 * @throws AfwError `CONFIG_INVALID` naming each offending server and field, e.g. `server "web" (servers[1]): url: url
 * must be an http(s) URL`.
 */
export function parseDownstreamConfig(input: unknown): DownstreamConfig {
  const result = DownstreamConfigSchema.safeParse(input);
  if (result.success) return result.data;
  const problems = describeConfigIssues(result.error, input);
  throw new AfwError("CONFIG_INVALID", `invalid downstream config: ${problems.join("; ")}`, { details: { problems } });
}
