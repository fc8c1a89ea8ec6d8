import { AfwError } from "@afw/contracts";
import { DownstreamServerConfigSchema, DownstreamServerNameSchema, parseDownstreamConfig, type DownstreamConfig, type DownstreamServerConfigInput } from "./config.js";

/** Options of {@link importMcpJson}. */
export interface ImportMcpJsonOptions {
  /**
   * Variables for `${VAR}` and `${VAR:-default}` in `command`, `args`, `env`, `cwd`, `url` and `headers` (as Claude Code
   * does), e.g. `process.env`.
   */
  env?: Record<string, string | undefined>;
}

const TYPE_ALIASES: Record<string, "stdio" | "streamable-http" | "sse"> = {
  stdio: "stdio",
  http: "streamable-http",
  "streamable-http": "streamable-http",
  streamablehttp: "streamable-http",
  streamable_http: "streamable-http",
  sse: "sse",
};

/**
 * A name safe for namespacing, suggested for an invalid one: invalid characters become `_`, runs of `_` collapse to one,
 * trailing `_` is dropped and the result is cut to 64 characters.
 */
function sanitizeName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9_-]/g, "_")
    .replace(/_+/g, "_")
    .replace(/_+$/, "")
    .slice(0, 64)
    .replace(/_+$/, "");
  return cleaned.length > 0 ? cleaned : "server";
}

function expandVariables(value: string, env: Record<string, string | undefined>, missing: Set<string>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== "") return found;
    if (fallback !== undefined) return fallback;
    missing.add(name);
    return "";
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Converts the `mcpServers` format that MCP clients use (Claude Desktop, Claude Code's `.mcp.json`, Cursor; VS Code's
 * `servers` key is accepted too) into a {@link DownstreamConfig}.
 * @param json - the parsed file, or its text.
 * @throws AfwError `CONFIG_INVALID` listing every problem with the server and field it concerns, e.g. `server "github":
 * url: url must be an http(s) URL`.
 */
export function importMcpJson(json: unknown, options: ImportMcpJsonOptions = {}): DownstreamConfig {
  let document: unknown = json;
  if (typeof json === "string") {
    try {
      document = JSON.parse(json);
    } catch (error) {
      throw new AfwError("CONFIG_INVALID", `mcp.json is not valid JSON: ${(error as Error).message}`);
    }
  }
  if (!isRecord(document)) throw new AfwError("CONFIG_INVALID", "mcp.json must be a JSON object with an `mcpServers` object");
  const serversKey = isRecord(document.mcpServers) ? "mcpServers" : isRecord(document.servers) ? "servers" : undefined;
  if (serversKey === undefined) {
    throw new AfwError("CONFIG_INVALID", "mcp.json must have an `mcpServers` object (or `servers`) mapping names to server entries");
  }
  const entries = document[serversKey] as Record<string, unknown>;
  const problems: string[] = [];
  const servers: DownstreamServerConfigInput[] = [];

  for (const [name, entry] of Object.entries(entries)) {
    const where = `server "${name}"`;
    if (!isRecord(entry)) {
      problems.push(`${where}: must be an object with command or url`);
      continue;
    }
    if (entry.disabled === true || entry.enabled === false) continue;

    const nameCheck = DownstreamServerNameSchema.safeParse(name);
    if (!nameCheck.success) {
      problems.push(`${where}: name: ${nameCheck.error.issues[0]?.message ?? "invalid"} (rename it, e.g. "${sanitizeName(name)}")`);
      continue;
    }

    const rawType = typeof entry.type === "string" ? entry.type : typeof entry.transport === "string" ? entry.transport : undefined;
    let kind: "stdio" | "streamable-http" | "sse";
    if (rawType !== undefined) {
      const mapped = TYPE_ALIASES[rawType.toLowerCase()];
      if (!mapped) {
        problems.push(`${where}: type: unknown type "${rawType}" (expected "stdio", "http", "streamable-http" or "sse")`);
        continue;
      }
      kind = mapped;
    } else if (entry.command !== undefined) {
      kind = "stdio";
    } else if (entry.url !== undefined || entry.serverUrl !== undefined) {
      kind = "streamable-http";
    } else {
      problems.push(`${where}: needs either "command" (stdio) or "url" (http)`);
      continue;
    }

    const missing = new Set<string>();
    const expand = <T>(value: T): T => {
      if (!options.env) return value;
      if (typeof value === "string") return expandVariables(value, options.env, missing) as T;
      if (Array.isArray(value)) return value.map((item) => expand(item)) as T;
      if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expand(item)])) as T;
      return value;
    };

    const candidate: Record<string, unknown> =
      kind === "stdio"
        ? {
            name,
            transport: "stdio",
            command: expand(entry.command),
            ...(entry.args === undefined ? {} : { args: expand(entry.args) }),
            ...(entry.env === undefined ? {} : { env: expand(entry.env) }),
            ...(entry.cwd === undefined ? {} : { cwd: expand(entry.cwd) }),
          }
        : {
            name,
            transport: "http",
            protocol: kind,
            url: expand(entry.url ?? entry.serverUrl),
            ...(entry.headers === undefined ? {} : { headers: expand(entry.headers) }),
          };
    if (missing.size > 0) {
      problems.push(`${where}: environment variable${missing.size > 1 ? "s" : ""} ${[...missing].map((v) => `\${${v}}`).join(", ")} not set and without default`);
      continue;
    }
    const parsed = DownstreamServerConfigSchema.safeParse(candidate);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path.map(String).join(".");
        problems.push(`${where}: ${field ? `${field}: ` : ""}${issue.message}`);
      }
      continue;
    }
    servers.push(candidate as DownstreamServerConfigInput);
  }

  if (problems.length > 0) {
    throw new AfwError("CONFIG_INVALID", `invalid mcp.json: ${problems.join("; ")}`, { details: { problems } });
  }
  return parseDownstreamConfig({ servers });
}
