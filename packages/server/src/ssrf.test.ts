import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { callTool, startTestGateway } from "../test/helpers.js";
import { checkBackendConnectUrl } from "./backend-tools.js";

type Started = Awaited<ReturnType<typeof startTestGateway>>;
let current: Started | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

const factory = (config: { id: string; kind: string }) => createFakeBackend({ id: config.id, kind: config.kind, flows: [{ id: "new", intents: ["conversation"] }] });

describe("backend_connect SSRF policy", () => {
  it("under '*' refuses metadata, link-local, private and loopback targets in every spelling", async () => {
    current = await startTestGateway({ backendFactory: factory, config: { backendConnect: { allowedHosts: ["*"] } } });
    const refused = [
      "http://169.254.169.254/latest/meta-data/",
      "http://[fd00:ec2::254]/",
      "http://2852039166/",
      "http://0xa9fea9fe/",
      "http://0251.0376.0251.0376/",
      "http://[::ffff:169.254.169.254]/",
      "http://169.254.1.1:3000/",
      "http://127.0.0.1:3000/",
      "http://2130706433:3000/",
      "http://0x7f.1:3000/",
      "http://0177.0.0.1:3000/",
      "http://127.1:3000/",
      "http://[::1]:3000/",
      "http://[::ffff:7f00:1]:3000/",
      "http://localhost:3000/",
      "http://localhost.:3000/",
      "http://api.localhost:3000/",
      `http://${hostname()}:3000/`, // a DNS name (here via /etc/hosts) that resolves to a loopback address
      "http://10.0.0.1/",
      "http://172.16.5.4/",
      "http://192.168.1.1/",
      "http://100.64.0.1/",
      "http://[fd12:3456::1]/",
      "http://0.0.0.0:3000/",
    ];
    for (const [index, baseURL] of refused.entries()) {
      const result = await callTool(current.client, "backend_connect", { id: `evil-${index}`, kind: "flowise", baseURL });
      expect(result.isError, baseURL).toBe(true);
      expect(result.body["code"], baseURL).toBe("FORBIDDEN");
    }
    const listed = await callTool(current.client, "list_flows");
    expect(listed.body["count"]).toBe(0);
  });

  it("allows loopback and private hosts named exactly, and metadata only through an exact address entry", async () => {
    current = await startTestGateway({ backendFactory: factory, config: { backendConnect: { allowedHosts: ["127.0.0.1:3000", "169.254.169.254"] } } });
    const viaDecimal = await callTool(current.client, "backend_connect", { id: "lo", kind: "flowise", baseURL: "http://2130706433:3000" });
    expect(viaDecimal.isError).toBe(false);
    const metadata = await callTool(current.client, "backend_connect", { id: "md", kind: "flowise", baseURL: "http://169.254.169.254" });
    expect(metadata.isError).toBe(false);
    const other = await callTool(current.client, "backend_connect", { id: "other", kind: "flowise", baseURL: "http://169.254.169.253" });
    expect(other.body["code"]).toBe("FORBIDDEN");
  });

  it("checks the addresses a name resolves to (injected resolver)", async () => {
    const resolve = async (host: string) => ({ "ok.flows.example": ["93.184.216.34"], "meta.flows.example": ["169.254.169.254"], "lan.flows.example": ["10.1.2.3"] })[host] ?? [];
    await expect(checkBackendConnectUrl(new URL("http://ok.flows.example"), ["*"], resolve)).resolves.toBeUndefined();
    await expect(checkBackendConnectUrl(new URL("http://lan.flows.example"), ["*"], resolve)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(checkBackendConnectUrl(new URL("http://lan.flows.example"), ["*.flows.example"], resolve)).resolves.toBeUndefined();
    await expect(checkBackendConnectUrl(new URL("http://meta.flows.example"), ["*.flows.example"], resolve)).rejects.toThrow(/cloud metadata/);
    await expect(checkBackendConnectUrl(new URL("http://other.example"), ["*.flows.example"], resolve)).rejects.toThrow(/not in backendConnect.allowedHosts/);
  });
});
