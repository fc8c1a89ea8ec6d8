import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AfwError } from "@afw/contracts";
import { afterAll, describe, expect, it } from "vitest";
import { loadGatewayConfig, parseGatewayConfig } from "./config-loader.js";
import { configSecrets } from "./redactor.js";

const dir = mkdtempSync(join(tmpdir(), "afw-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The `AfwError` that `promise` rejects with. */
const configError = (promise: Promise<unknown>): Promise<AfwError> =>
  promise.then(
    () => Promise.reject(new Error("expected a CONFIG_INVALID error")),
    (error: unknown) => (AfwError.isInstance(error) ? error : Promise.reject(error)),
  );

describe("loadGatewayConfig", () => {
  it("returns embedded defaults without a file", async () => {
    const config = await loadGatewayConfig(undefined, {});
    expect(config.http.host).toBe("127.0.0.1");
    expect(config.http.port).toBe(8787);
    expect(config.http.stateless).toBe(true);
    expect(config.backends).toEqual([]);
    expect(config.routing.weights).toEqual({ flow_match: 0.4, health: 0.3, performance: 0.2, capability: 0.1 });
    expect(config.redis).toBeUndefined();
  });

  it("defaults cache and session lifetimes as the design specifies", async () => {
    const { cache, sessions } = await loadGatewayConfig(undefined, {});
    const day = 86_400;
    // Answer TTL by flow type: technical 7 days, creative/strategic 30 days, volatile/document-QA 1 day.
    expect(cache.ttlByClass).toEqual({ technical: 7 * day, creative: 30 * day, strategic: 30 * day, volatile: day, "document-qa": day });
    expect(cache.defaultTtlSeconds).toBe(day);
    // The last 5 turns go to the backend; idle sessions live 7 days (as the session store and the guide say).
    expect(sessions.contextTurns).toBe(5);
    expect(sessions.ttlSeconds).toBe(7 * day);
  });

  it("reads a full YAML file with several backends of one kind and resolves catalog paths", async () => {
    const file = write(
      "full.yaml",
      `
backends:
  - id: flowise-a
    kind: flowise
    baseURL: http://127.0.0.1:3000
    apiKey: key-aaaaaaaa
    flows:
      - id: abc
        intents: [technical-analysis]
        keywords: [stack trace]
        cacheClass: technical
  - id: flowise-b
    kind: flowise
    baseURL: http://127.0.0.1:3001
  - id: lf
    kind: langflow
    baseURL: http://127.0.0.1:7860
http:
  port: 9000
  authTokens: ["afw-test-secret-0123456789abcdef0123", { token: "afw-test-secret-fedcba9876543210fedc", name: ci, tenant: acme }]
  cors: { origins: ["https://app.example"] }
routing:
  weights: { flow_match: 0.5 }
  intentPatterns:
    data-processing: ["\\\\bcsv\\\\b"]
cache:
  ttlByClass: { technical: 100 }
tools:
  catalogs: [catalogs/tools.json]
workflows:
  catalogs: [/abs/workflows.yaml]
`,
    );
    const config = await loadGatewayConfig(file, {});
    expect(config.backends.map((b) => b.id)).toEqual(["flowise-a", "flowise-b", "lf"]);
    expect(config.backends[0]?.flows[0]?.intents).toEqual(["technical-analysis"]);
    expect(config.backends[0]?.requestTimeoutMs).toBe(30_000);
    expect(config.http.port).toBe(9000);
    expect(config.http.authTokens).toHaveLength(2);
    expect(config.routing.weights.flow_match).toBe(0.5);
    expect(config.routing.weights.health).toBe(0.3);
    expect(config.routing.intentPatterns["data-processing"]).toEqual(["\\bcsv\\b"]);
    expect(config.tools.catalogs).toEqual([join(dir, "catalogs/tools.json")]);
    expect(config.workflows.catalogs).toEqual(["/abs/workflows.yaml"]);
  });

  it("applies environment overrides to the matching backend and adds missing ones", async () => {
    const file = write(
      "env.yaml",
      `
backends:
  - { id: main, kind: flowise, baseURL: "http://127.0.0.1:1" }
  - { id: flowise, kind: flowise, baseURL: "http://127.0.0.1:2" }
`,
    );
    const config = await loadGatewayConfig(file, {
      FLOWISE_BASE_URL: "http://127.0.0.1:3000",
      FLOWISE_API_KEY: "afw-test-secret-flowise-secret-key",
      LANGFLOW_BASE_URL: "http://127.0.0.1:7860",
      LANGFLOW_API_KEY: "afw-test-secret-langflow-secret-key",
      REDIS_URL: "redis://127.0.0.1:6380",
      CHROMA_URL: "http://127.0.0.1:8000",
      AFW_HTTP_PORT: "9911",
      AFW_AUTH_TOKENS: "tok-aaaaaaaaaaaaaaaa, tok-bbbbbbbbbbbbbbbb",
      AFW_REDIS_OPERATION_TIMEOUT_MS: "250",
    });
    // id `flowise` wins over the first backend of kind flowise
    expect(config.backends.find((b) => b.id === "main")?.baseURL).toBe("http://127.0.0.1:1");
    expect(config.backends.find((b) => b.id === "flowise")).toMatchObject({ baseURL: "http://127.0.0.1:3000", apiKey: "afw-test-secret-flowise-secret-key" });
    expect(config.backends.find((b) => b.id === "langflow")).toMatchObject({ kind: "langflow", apiKey: "afw-test-secret-langflow-secret-key" });
    expect(config.redis?.url).toBe("redis://127.0.0.1:6380");
    expect(config.redis?.operationTimeoutMs).toBe(250);
    expect(config.chroma?.url).toBe("http://127.0.0.1:8000");
    expect(config.http.port).toBe(9911);
    expect(config.http.authTokens).toEqual(["tok-aaaaaaaaaaaaaaaa", "tok-bbbbbbbbbbbbbbbb"]);
  });

  it("accepts Sentinel and Cluster Redis URLs and refuses other schemes without echoing the URL", () => {
    const sentinel = "redis+sentinel://:s3cret-pw@127.0.0.1:26379,127.0.0.1:26380/mymaster";
    expect(parseGatewayConfig({ redis: { url: sentinel } }, { env: {} }).redis?.url).toBe(sentinel);
    expect(parseGatewayConfig({ redis: { url: "redis+cluster://127.0.0.1:7000,127.0.0.1:7001" } }, { env: {} }).redis?.url).toBe("redis+cluster://127.0.0.1:7000,127.0.0.1:7001");
    let message = "";
    try {
      parseGatewayConfig({ redis: { url: "http://user:s3cret-pw@127.0.0.1:6379" } }, { env: {} });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/redis\.url must be a redis:\/\/, rediss:\/\/, redis\+sentinel/);
    expect(message).not.toContain("s3cret-pw");
  });

  it("interpolates ${VAR} and ${VAR:-default}", () => {
    const config = parseGatewayConfig(
      { backends: [{ id: "f", kind: "flowise", baseURL: "${FLOWISE_URL:-http://127.0.0.1:3000}", apiKey: "${MY_KEY}" }] },
      { env: { MY_KEY: "afw-test-secret-from-env-key" } },
    );
    expect(config.backends[0]).toMatchObject({ baseURL: "http://127.0.0.1:3000", apiKey: "afw-test-secret-from-env-key" });
    expect(() => parseGatewayConfig({ redis: { url: "${NOPE}" } }, { env: {} })).toThrow(/redis\.url: environment variable NOPE is not set/);
  });

  it("names the file, line, path and problem of an invalid value, without the value", async () => {
    const file = write(
      "bad.yaml",
      `backends:
  - id: flowise
    kind: flowise
    baseURL: not-a-url-secret-value
http:
  port: 99999
`,
    );
    const error = await configError(loadGatewayConfig(file, {}));
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain(`${file}:4:14: backends.0.baseURL: baseURL must be an http(s) URL`);
    expect(error.message).toMatch(new RegExp(`${file}:6:9: http\\.port: `));
    expect(error.message).not.toContain("not-a-url-secret-value");
    const issues = (error.details as { issues: { path: string; line?: number }[] }).issues;
    expect(issues.map((i) => i.path).sort()).toEqual(["backends.0.baseURL", "http.port"]);
  });

  it("rejects unknown keys, duplicate ids, bad regexes and short tokens", () => {
    const attempt = (input: unknown) => {
      try {
        parseGatewayConfig(input, { env: {}, source: "x.yaml" });
      } catch (error) {
        return (error as Error).message;
      }
      return "no error";
    };
    expect(attempt({ htp: {} })).toMatch(/x\.yaml: \(root\): Unrecognized key: "htp"/);
    expect(
      attempt({
        backends: [
          { id: "a", kind: "flowise", baseURL: "http://h" },
          { id: "a", kind: "langflow", baseURL: "http://h" },
        ],
      }),
    ).toMatch(/backends\.1\.id: duplicate backend id 'a'/);
    expect(attempt({ routing: { intentPatterns: { conversation: ["(unclosed"] } } })).toMatch(
      /routing\.intentPatterns\.conversation\.0: must be a valid regular expression/,
    );
    expect(attempt({ http: { authTokens: ["short"] } })).toMatch(/http\.authTokens\.0: .*at least 16/);
    expect(attempt([1, 2])).toMatch(/must be a mapping/);
  });

  it("reports YAML syntax errors and unreadable files as CONFIG_INVALID", async () => {
    const broken = write("broken.yaml", "http:\n  port: 1\n  port: 2\n");
    const syntax = await configError(loadGatewayConfig(broken, {}));
    expect(syntax.code).toBe("CONFIG_INVALID");
    expect(syntax.message).toMatch(/broken\.yaml:3:\d+: \(root\): YAML syntax error/);
    const missing = await configError(loadGatewayConfig(join(dir, "missing.yaml"), {}));
    expect(missing.message).toMatch(/missing\.yaml: \(root\): cannot read the file \(ENOENT\)/);
  });

  it("defaults the Redis operation bound to 100 ms and rejects a non-integer AFW_REDIS_OPERATION_TIMEOUT_MS", async () => {
    expect(parseGatewayConfig({ redis: { url: "redis://127.0.0.1:6379" } }).redis).toMatchObject({ operationTimeoutMs: 100, sessionBuffer: { maxTurns: 10_000 } });
    const error = await configError(loadGatewayConfig(undefined, { REDIS_URL: "redis://127.0.0.1:6379", AFW_REDIS_OPERATION_TIMEOUT_MS: "fast" }));
    expect(error.message).toMatch(/redis\.operationTimeoutMs: environment variable AFW_REDIS_OPERATION_TIMEOUT_MS must be an integer/);
  });

  it("rejects a non-integer AFW_HTTP_PORT", async () => {
    const error = await configError(loadGatewayConfig(undefined, { AFW_HTTP_PORT: "eighty" }));
    expect(error.message).toMatch(/http\.port: environment variable AFW_HTTP_PORT must be an integer/);
  });
});

describe("downstream and dashboard sections", () => {
  it("resolves downstream.mcpJson against the config file and collects downstream secrets", async () => {
    const directory = mkdtempSync(join(tmpdir(), "afw-config-downstream-"));
    try {
      const file = join(directory, "afw.yaml");
      writeFileSync(
        file,
        [
          "downstream:",
          "  mcpJson: clients/mcp.json",
          "  servers:",
          "    - { name: gh, transport: stdio, command: node, env: { GITHUB_TOKEN: ghp-downstream-secret-value, LOG_LEVEL: info } }",
          "    - { name: docs, transport: http, url: 'https://docs.example.com/mcp', headers: { Authorization: 'Bearer docs-secret-value' } }",
          "tools: { exposure: routed }",
          "dashboard: { redact: true }",
        ].join("\n"),
      );
      const config = await loadGatewayConfig(file, {});
      expect(config.downstream.mcpJson).toBe(join(directory, "clients", "mcp.json"));
      expect(config.tools.exposure).toBe("routed");
      expect(config.dashboard).toEqual({ enabled: true, basePath: "/dashboard", apiPath: "/api", redact: true });
      const secrets = configSecrets(config);
      expect(secrets).toContain("ghp-downstream-secret-value");
      expect(secrets.some((secret) => secret.includes("docs-secret-value"))).toBe(true);
      expect(secrets).not.toContain("info");
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
