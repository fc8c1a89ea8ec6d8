import { readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { AfwError } from "@afw/contracts";
import { LineCounter, parseDocument, type Document } from "yaml";
import type { z } from "zod";
import { GatewayConfigSchema, type GatewayConfig } from "./config-schema.js";

/** Environment variables read by {@link loadGatewayConfig}, and what each overrides. */
export const CONFIG_ENV_VARIABLES = {
  FLOWISE_BASE_URL: "baseURL of the Flowise backend (id `flowise`, else the first of kind flowise; added when absent)",
  FLOWISE_API_KEY: "apiKey of that Flowise backend",
  LANGFLOW_BASE_URL: "baseURL of the Langflow backend (id `langflow`, else the first of kind langflow; added when absent)",
  LANGFLOW_API_KEY: "apiKey of that Langflow backend",
  REDIS_URL: "redis.url",
  AFW_REDIS_OPERATION_TIMEOUT_MS: "redis.operationTimeoutMs (when Redis is configured)",
  CHROMA_URL: "chroma.url",
  AFW_HTTP_PORT: "http.port",
  AFW_AUTH_TOKENS: "http.authTokens (comma-separated; replaces the file's list)",
} as const;

/** One problem found in a configuration: the dotted path of the offending value (e.g. `backends.0.baseURL`, empty for the root), what is
 * wrong (never the value: it may be a secret) and, from a YAML file, the 1-based line and column. */
interface ConfigIssue {
  path: string;
  message: string;
  line?: number;
  column?: number;
}

/** Where a configuration comes from: the `source` named in errors (default `<config>`), the `env` of `${VAR}` and the overrides (default
 * `process.env`), the `baseDir` of relative catalog paths (default the working directory), and `locate` (path to line and column, from YAML). */
interface ParseGatewayConfigOptions {
  source?: string;
  env?: Readonly<Record<string, string | undefined>>;
  baseDir?: string;
  locate?: (path: readonly PropertyKey[]) => { line: number; column: number } | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

function configError(source: string, issues: ConfigIssue[]): AfwError {
  const lines = issues.map((issue) => {
    const where = issue.line !== undefined ? `${source}:${issue.line}:${issue.column ?? 1}` : source;
    return `${where}: ${issue.path || "(root)"}: ${issue.message}`;
  });
  return new AfwError("CONFIG_INVALID", `invalid configuration: ${lines.join("; ")}`, {
    details: { source, issues: issues.map((issue) => ({ ...issue })) },
  });
}

/** Largest configuration file read (a gateway config is a few kilobytes). */
export const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;

/** Deepest nesting of a configuration (the schema needs far less). */
const MAX_CONFIG_DEPTH = 64;

function depthOf(value: unknown, limit: number): number {
  // Iterative, so a hostile file cannot overflow the stack here.
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    if (current !== null && typeof current === "object") for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}

const INTERPOLATION = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Replaces `${VAR}` and `${VAR:-default}` in every string of `value`. Records unset variables. */
function interpolate(value: unknown, env: Env, path: PropertyKey[], issues: ConfigIssue[]): unknown {
  if (typeof value === "string") {
    if (!value.includes("${")) return value;
    return value.replace(INTERPOLATION, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== "") return found;
      if (fallback !== undefined) return fallback;
      issues.push({ path: path.map(String).join("."), message: `environment variable ${name} is not set` });
      return "";
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolate(item, env, [...path, index], issues));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    // defineProperty, not assignment: a `__proto__` key must stay an (unknown, refused) own key instead of
    // becoming the object's prototype and smuggling inherited settings in.
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, { value: interpolate(item, env, [...path, key], issues), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

function nonEmpty(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/** Applies the {@link CONFIG_ENV_VARIABLES} overrides to a raw (unvalidated) config object. */
function applyEnvOverrides(raw: Record<string, unknown>, env: Env, issues: ConfigIssue[]): Record<string, unknown> {
  const config: Record<string, unknown> = { ...raw };
  const section = (key: string): Record<string, unknown> => {
    const current = config[key];
    const copy = current !== null && typeof current === "object" && !Array.isArray(current) ? { ...(current as Record<string, unknown>) } : {};
    config[key] = copy;
    return copy;
  };
  for (const kind of ["flowise", "langflow"] as const) {
    const prefix = kind.toUpperCase();
    const baseURL = nonEmpty(env, `${prefix}_BASE_URL`);
    const apiKey = nonEmpty(env, `${prefix}_API_KEY`);
    if (baseURL === undefined && apiKey === undefined) continue;
    const backends = Array.isArray(config["backends"]) ? [...(config["backends"] as unknown[])] : [];
    const isObject = (b: unknown): b is Record<string, unknown> => b !== null && typeof b === "object";
    let index = backends.findIndex((b) => isObject(b) && b["id"] === kind);
    if (index < 0) index = backends.findIndex((b) => isObject(b) && b["kind"] === kind);
    if (index < 0) {
      if (baseURL === undefined) continue; // an API key alone has nothing to apply to
      backends.push({ id: kind, kind, baseURL, ...(apiKey === undefined ? {} : { apiKey }) });
    } else {
      const backend = { ...(backends[index] as Record<string, unknown>) };
      if (baseURL !== undefined) backend["baseURL"] = baseURL;
      if (apiKey !== undefined) backend["apiKey"] = apiKey;
      backends[index] = backend;
    }
    config["backends"] = backends;
  }
  const redisUrl = nonEmpty(env, "REDIS_URL");
  if (redisUrl !== undefined) section("redis")["url"] = redisUrl;
  const operationTimeout = nonEmpty(env, "AFW_REDIS_OPERATION_TIMEOUT_MS");
  if (operationTimeout !== undefined && config["redis"] !== undefined) {
    if (/^\d{1,5}$/.test(operationTimeout)) section("redis")["operationTimeoutMs"] = Number(operationTimeout);
    else issues.push({ path: "redis.operationTimeoutMs", message: "environment variable AFW_REDIS_OPERATION_TIMEOUT_MS must be an integer (milliseconds)" });
  }
  const chromaUrl = nonEmpty(env, "CHROMA_URL");
  if (chromaUrl !== undefined) section("chroma")["url"] = chromaUrl;
  const port = nonEmpty(env, "AFW_HTTP_PORT");
  if (port !== undefined) {
    if (/^\d{1,5}$/.test(port) && Number(port) <= 65_535) section("http")["port"] = Number(port);
    else issues.push({ path: "http.port", message: "environment variable AFW_HTTP_PORT must be an integer 0..65535" });
  }
  const tokens = env["AFW_AUTH_TOKENS"];
  if (tokens !== undefined && tokens.trim() !== "") {
    section("http")["authTokens"] = tokens.split(",").map((token) => token.trim()).filter((token) => token.length > 0);
  }
  return config;
}

function zodIssues(error: z.ZodError, locate: ParseGatewayConfigOptions["locate"]): ConfigIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path as PropertyKey[];
    const position = locate?.(path);
    return {
      path: path.map(String).join("."),
      message: issue.message,
      ...(position ? { line: position.line, column: position.column } : {}),
    };
  });
}

function resolvePaths(config: GatewayConfig, baseDir: string): GatewayConfig {
  const resolveAll = (paths: string[]) => paths.map((p) => (isAbsolute(p) ? p : resolve(baseDir, p)));
  return {
    ...config,
    tools: {
      ...config.tools,
      catalogs: resolveAll(config.tools.catalogs),
      ...(config.tools.vectorCacheDir === undefined ? {} : { vectorCacheDir: resolveAll([config.tools.vectorCacheDir])[0]! }),
    },
    workflows: { ...config.workflows, catalogs: resolveAll(config.workflows.catalogs) },
    ...(config.downstream.mcpJson === undefined
      ? {}
      : { downstream: { ...config.downstream, mcpJson: isAbsolute(config.downstream.mcpJson) ? config.downstream.mcpJson : resolve(baseDir, config.downstream.mcpJson) } }),
  };
}

/** Validates an already-parsed configuration object (e.g. from JSON or a test): interpolates `${VAR}` / `${VAR:-default}` in strings, applies the {@link CONFIG_ENV_VARIABLES} overrides,
 * validates with {@link GatewayConfigSchema} and resolves relative catalog paths. @throws AfwError `CONFIG_INVALID` naming the source, each path and the problem. */
export function parseGatewayConfig(input: unknown, options: ParseGatewayConfigOptions = {}): GatewayConfig {
  const source = options.source ?? "<config>";
  const env = options.env ?? process.env;
  if (input === undefined || input === null) input = {};
  if (typeof input !== "object" || Array.isArray(input)) {
    throw configError(source, [{ path: "", message: "the configuration must be a mapping (YAML object)" }]);
  }
  if (depthOf(input, MAX_CONFIG_DEPTH) > MAX_CONFIG_DEPTH) {
    throw configError(source, [{ path: "", message: `the configuration is nested deeper than ${MAX_CONFIG_DEPTH} levels` }]);
  }
  const issues: ConfigIssue[] = [];
  const interpolated = interpolate(input, env, [], issues) as Record<string, unknown>;
  const withEnv = applyEnvOverrides(interpolated, env, issues);
  if (issues.length > 0) throw configError(source, issues);
  const parsed = GatewayConfigSchema.safeParse(withEnv);
  if (!parsed.success) throw configError(source, zodIssues(parsed.error, options.locate));
  return resolvePaths(parsed.data, options.baseDir ?? process.cwd());
}

/** The line and column of the deepest node of `path` that the YAML document has. */
function yamlLocator(document: Document, lineCounter: LineCounter): (path: readonly PropertyKey[]) => { line: number; column: number } | undefined {
  return (path) => {
    for (let depth = path.length; depth >= 0; depth--) {
      const range = (document.getIn(path.slice(0, depth), true) as { range?: [number, number, number] } | undefined)?.range;
      if (range) {
        const { line, col } = lineCounter.linePos(range[0]);
        return { line, column: col };
      }
    }
    return undefined;
  };
}

/**
 * Loads the gateway configuration: the YAML (or JSON) `file` when given, then as {@link parseGatewayConfig}, with catalog paths
 * relative to the file. `env` defaults to `process.env`.
 * @example
 * ```ts
 * const gateway = await createGatewayServer(await loadGatewayConfig("afw.yaml"));
 * ```
 * @throws AfwError `CONFIG_INVALID` naming the file, line, path and problem, e.g. `afw.yaml:4:14: backends.0.baseURL: baseURL must be an http(s) URL`.
 */
export async function loadGatewayConfig(file?: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<GatewayConfig> {
  if (file === undefined) return parseGatewayConfig({}, { source: "<defaults>", env });
  let text: string;
  try {
    const info = await stat(file);
    if (info.isFile() && info.size > MAX_CONFIG_FILE_BYTES) {
      throw configError(file, [{ path: "", message: `the file is larger than ${MAX_CONFIG_FILE_BYTES} bytes` }]);
    }
    text = await readFile(file, "utf8");
  } catch (error) {
    if (AfwError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
    throw configError(file, [{ path: "", message: `cannot read the file (${code})` }]);
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw configError(
      file,
      document.errors.map((error) => {
        const position = error.linePos?.[0] ?? lineCounter.linePos(error.pos[0]);
        // Only the first line of the parser's message: later lines may quote the source (secrets).
        const message = `YAML syntax error: ${error.message.split("\n")[0] ?? error.code}`;
        return { path: "", message, ...(position ? { line: position.line, column: position.col } : {}) };
      }),
    );
  }
  let raw: unknown;
  try {
    raw = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // e.g. "Excessive alias count" (a billion-laughs file), or a stack overflow on absurd nesting.
    const reason = error instanceof RangeError ? "the document is nested too deeply" : `YAML error: ${String((error as Error)?.message ?? error).split("\n")[0]}`;
    throw configError(file, [{ path: "", message: reason }]);
  }
  return parseGatewayConfig(raw, {
    source: file,
    env,
    baseDir: dirname(resolve(file)),
    locate: yamlLocator(document, lineCounter),
  });
}
