/**
 * API keys and bearer tokens never leave the gateway: a run with keys configured (real adapters
 * against the local Flowise/Langflow reproductions, over Streamable HTTP) is scanned everywhere
 * output goes — every log line (pino destination captured at debug level), the trace ring buffer,
 * the audit log, tool results and errors (including platform errors that quote the key),
 * `explain_routing`, `/metrics`, `/readyz` and the dashboard API.
 */
import { demoFlows, startFlowiseServer, startLangflowServer, type MockPlatformServer } from "@afw/backends/test/servers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAfter, testConfig } from "../test/helpers.js";
import { parseGatewayConfig } from "./config-loader.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { startHttpTransport, type HttpTransportHandle } from "./http-transport.js";

const FLOWISE_KEY = "afw-test-secret-flowise-key-7d1e";
const LANGFLOW_KEY = "afw-test-secret-langflow-key-41a9";
const TOKEN = "afw-test-secret-bearer-redaction-01";
const SECRETS = [FLOWISE_KEY, LANGFLOW_KEY, TOKEN];
/** Also catch a secret cut short or re-encoded on the way out. */
const FRAGMENTS = SECRETS.flatMap((secret) => [
  secret.slice(-12),
  encodeURIComponent(secret),
  // base64 and base64url of the secret at each of the three byte offsets inside a longer string
  ...[0, 1, 2].flatMap((offset) => {
    const bytes = Buffer.concat([Buffer.alloc(offset), Buffer.from(secret)]);
    return [bytes.toString("base64").slice(4, 20), bytes.toString("base64url").slice(4, 20)];
  }),
]);
const b64 = (text: string) => Buffer.from(text).toString("base64");

let flowise: MockPlatformServer;
let langflow: MockPlatformServer;
let gateway: GatewayServer;
let http: HttpTransportHandle;
let client: Client;
const logLines: string[] = [];
const outputs: { where: string; text: string }[] = [];
const record = (where: string, value: unknown) => outputs.push({ where, text: typeof value === "string" ? value : JSON.stringify(value) });

const track = closeAfter(afterAll);
beforeAll(async () => {
  const flowiseFlows = demoFlows("f");
  flowise = track(await startFlowiseServer({ flows: flowiseFlows, apiKey: FLOWISE_KEY }));
  langflow = track(await startLangflowServer({ flows: demoFlows("a"), apiKey: LANGFLOW_KEY }));
  const config = parseGatewayConfig(
    testConfig({
      backends: [
        { id: "flowise", kind: "flowise", baseURL: flowise.url, apiKey: FLOWISE_KEY },
        { id: "langflow", kind: "langflow", baseURL: langflow.url, apiKey: LANGFLOW_KEY },
      ],
      http: { authTokens: [{ token: TOKEN, name: "ops" }] },
      routing: { classifierEmbedder: "hashing" },
      logging: { level: "debug" },
    }),
    { env: {} },
  );
  gateway = track(await createGatewayServer({ config, logDestination: { write: (line: string) => void logLines.push(line) } }));
  http = track(await startHttpTransport(gateway, { port: 0 }));
  client = track(new Client({ name: "redaction-test", version: "1.0.0" }));
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
});


async function call(name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  record(`tool ${name}`, result);
  return result;
}

describe("secrets in every output", () => {
  // About 15 tool calls against two platform reproductions: minutes on a loaded 2-core machine is not a hang.
  it("are absent from logs, traces, the audit log, tool results, errors, explain_routing, metrics and the dashboard", { timeout: 60_000 }, async () => {
    // Successful queries on both platforms, a session, routing explanations.
    await call("universal_query", { question: "What does the documentation say about routing? cite sources", backend: "flowise", session_id: "redaction-1" });
    await call("universal_query", { question: "Summarise this text for me please", backend: "langflow", session_id: "redaction-1" });
    await call("explain_routing", { question: "How do I restart a pod?" });
    // Platform errors that quote the key back (as misconfigured proxies and platforms do).
    // Raw, and encoded: base64, base64 of `Bearer <key>`, base64url of `user:<key>`, URL-encoded.
    flowise.setFaults([
      { route: "run", status: 500, message: `upstream rejected Authorization: Bearer ${FLOWISE_KEY} (key ${FLOWISE_KEY}) sent ${b64(`Bearer ${FLOWISE_KEY}`)} raw ${b64(FLOWISE_KEY)}` },
    ]);
    langflow.setFaults([
      { route: "run", status: 401, message: `invalid x-api-key ${LANGFLOW_KEY} basic ${Buffer.from(`user:${LANGFLOW_KEY}`).toString("base64url")} q=${encodeURIComponent(`${LANGFLOW_KEY}/+`)}` },
    ]);
    await call("universal_query", { question: "this one fails everywhere", backend: "flowise" });
    await call("universal_query", { question: "and this one too", backend: "langflow" });
    flowise.setFaults([{ status: 503, message: `down, key=${FLOWISE_KEY}` }]);
    langflow.setFaults([{ status: 503, message: `down, key=${LANGFLOW_KEY}` }]);
    await call("health_check");
    await call("backend_status");
    await call("list_flows", { refresh: true });
    flowise.clearFaults();
    langflow.clearFaults();
    await call("get_session", { session_id: "redaction-1" });
    await call("backend_performance_compare");
    // A runtime backend with its own key (added to the redactor when connected; refused here).
    await call("backend_connect", { id: "extra", kind: "flowise", baseURL: "http://127.0.0.1:1", apiKey: "afw-test-secret-runtime-key-99" });

    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const path of ["/metrics", "/readyz", "/healthz", "/api/overview", "/api/queries", "/api/backends", "/api/traces"]) {
      const response = await fetch(new URL(path, http.url), { headers: auth });
      record(`GET ${path}`, await response.text());
    }
    record("trace ring buffer", gateway.traces?.recent({ limit: 10_000 }) ?? []);
    const audit = (await gateway.auditLog.query()).map((event) => JSON.stringify(event)).join("\n");
    expect(audit.length).toBeGreaterThan(100);
    record("audit log", audit);
    for (const line of logLines) record("log line", line);

    expect(logLines.length).toBeGreaterThan(10); // the debug log really was captured
    expect(outputs.some((o) => o.where === "trace ring buffer" && o.text.length > 100)).toBe(true);
    // The faults really carried the keys to the gateway: their (redacted) messages reached the output.
    if (process.env["AFW_DEBUG_REDACTION"]) for (const o of outputs) console.log(o.where, o.text.slice(0, 600));
    expect(outputs.some((o) => /\[redacted\]/i.test(o.text))).toBe(true);

    const leaks = outputs.flatMap((o) => [...SECRETS, "afw-test-secret-runtime-key-99", ...FRAGMENTS].filter((s) => o.text.includes(s)).map(() => o.where));
    expect(leaks).toEqual([]);
  });
});
