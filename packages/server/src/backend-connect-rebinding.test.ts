/**
 * DNS rebinding against `backend_connect`: the tool checks the addresses a name has when it is
 * called; the backend it adds checks the address of every connection it opens. Through a real MCP
 * client, the real Flowise adapter and the local Flowise reproduction (on 127.0.0.1). The name's
 * answers come from an injected `lookup` (no DNS), switched by the test.
 */
import type { LookupAddress } from "node:dns";
import type { FlowBackendV1, UniversalQueryResult } from "@afw/contracts";
import type { HostLookup } from "@afw/backends";
import { startFlowiseServer } from "@afw/backends/test/servers";
import { describe, expect, it } from "vitest";
import { defaultBackendFactory, type BackendFactoryOptions } from "./backend-factory.js";
import type { BackendConfig } from "./config-schema.js";
import { callTool, closeAfter, startTestGateway } from "../test/helpers.js";

const CHAT = "f0000000-0000-4000-8000-0000000c4a71";
const KEY = "afw-test-secret-rebinding-flowise-key";

const track = closeAfter();

/** A lookup whose answer the test sets; counts the lookups. */
function switchableLookup(initial: string) {
  const state = { answer: initial, lookups: 0 };
  const lookup = ((_host: string, options: { all?: boolean }, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    state.lookups++;
    const address = state.answer;
    queueMicrotask(() => (options.all ? callback(null, [{ address, family: 4 }]) : callback(null, address, 4)));
  }) as unknown as HostLookup;
  return { state, lookup };
}

/** The real adapters, with the test's lookup for connections; records the options the gateway passed. */
function recordingFactory(lookup: HostLookup) {
  const seen: { id: string; options: BackendFactoryOptions | undefined }[] = [];
  const factory = (config: BackendConfig, options?: BackendFactoryOptions): FlowBackendV1 | Promise<FlowBackendV1> => {
    seen.push({ id: config.id, options });
    return defaultBackendFactory(config, { ...options, lookup });
  };
  return { seen, factory };
}

describe("backend_connect and DNS rebinding", () => {
  it("a name allowed through a domain entry that later resolves to the metadata address is refused on the new connection", async () => {
    let flowise = track(await startFlowiseServer({ flows: [{ id: CHAT, name: "Support chat", answer: "hello from flowise" }], apiKey: KEY }));
    const port = Number(new URL(flowise.url).port);
    const dns = switchableLookup("127.0.0.1");
    const { seen, factory } = recordingFactory(dns.lookup);
    const { client } = track(await startTestGateway({ backendFactory: factory, config: { backendConnect: { allowedHosts: ["*.localhost"] }, cache: { enabled: false } } }));

    // Loopback through a domain entry is allowed: the backend connects and answers.
    const connected = await callTool(client, "backend_connect", { id: "remote", kind: "flowise", baseURL: `http://flows.localhost:${port}`, apiKey: KEY });
    expect(connected.isError).toBe(false);
    expect(connected.body).toMatchObject({ connected: true, flows: 1 });
    expect(seen).toHaveLength(1);
    expect(typeof seen[0]!.options?.connectPolicy).toBe("function");
    const first = await callTool<UniversalQueryResult>(client, "universal_query", { question: "hello?", flow_id: CHAT });
    expect(first.isError).toBe(false);
    expect(JSON.stringify(first.body)).toContain("hello from flowise");

    // The name now answers the cloud metadata address, and the kept-alive connection is gone
    // (the platform restarts on the same port): the next connection must be refused.
    dns.state.answer = "169.254.169.254";
    await flowise.close();
    flowise = track(await startFlowiseServer({ flows: [{ id: CHAT, name: "Support chat", answer: "hello from flowise" }], apiKey: KEY, port }));
    const lookupsBefore = dns.state.lookups;
    const refused = await callTool(client, "universal_query", { question: "hello again?", flow_id: CHAT });
    expect(refused.isError).toBe(true);
    expect(dns.state.lookups).toBeGreaterThan(lookupsBefore);
    expect(refused.text).toContain("169.254.169.254");
    expect(refused.text).toContain("flows.localhost");
    expect(refused.text).not.toContain(KEY);
    expect(flowise.requests).toEqual([]);

    const health = await callTool<{ backends: { backend_id?: string; id?: string; status: string; error?: string }[] }>(client, "health_check", {});
    expect(JSON.stringify(health.body)).toContain("FORBIDDEN");
    expect(flowise.requests).toEqual([]);
  });

  it("a configured backend gets no connection policy: loopback keeps working (no regression)", async () => {
    const flowise = track(await startFlowiseServer({ flows: [{ id: CHAT, name: "Support chat", answer: "configured answer" }] }));
    const dns = switchableLookup("127.0.0.1");
    const { seen, factory } = recordingFactory(dns.lookup);
    const started = track(
      await startTestGateway({
        backendFactory: factory,
        config: { backends: [{ id: "local", kind: "flowise", baseURL: flowise.url }], backendConnect: { allowedHosts: ["*"] }, cache: { enabled: false } },
      }),
    );
    const answer = await callTool<UniversalQueryResult>(started.client, "universal_query", { question: "hi", flow_id: CHAT });
    expect(answer.isError).toBe(false);
    expect(JSON.stringify(answer.body)).toContain("configured answer");
    expect(seen.map((s) => [s.id, s.options?.connectPolicy])).toEqual([["local", undefined]]);
  });
});
