import { describe, expect, it } from "vitest";
import { checkOutboundUrl, classifyAddress, matchHostPattern, parseIpAddress, type HostResolver } from "./network-policy.js";

describe("parseIpAddress", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["017700000001", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["10.0.1", "10.0.0.1"],
    ["169.254.169.254.", "169.254.169.254"],
    ["0xA9FEA9FE", "169.254.169.254"],
    ["2852039166", "169.254.169.254"],
  ])("reads the IPv4 form %s as %s", (text, canonical) => {
    expect(parseIpAddress(text)).toMatchObject({ family: 4, canonical });
  });

  it.each([
    ["::1", "0:0:0:0:0:0:0:1"],
    ["[::1]", "0:0:0:0:0:0:0:1"],
    ["::ffff:127.0.0.1", "0:0:0:0:0:ffff:7f00:1"],
    ["::ffff:7f00:1", "0:0:0:0:0:ffff:7f00:1"],
    ["fe80::1%eth0", "fe80:0:0:0:0:0:0:1"],
    ["FD00:EC2::254", "fd00:ec2:0:0:0:0:0:254"],
    ["1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"],
  ])("reads the IPv6 form %s", (text, canonical) => {
    expect(parseIpAddress(text)).toMatchObject({ family: 6, canonical });
  });

  it.each(["localhost", "example.com", "dead.beef", "256.1.1.1", "1.2.3.4.5", "0x1.0x100.1.1", "08.1.1.1", "4294967296", "", "1::2::3", "::g", "[::1"])(
    "refuses %j",
    (text) => {
      expect(parseIpAddress(text)).toBeUndefined();
    },
  );
});

describe("classifyAddress", () => {
  it.each([
    ["8.8.8.8", "public"],
    ["93.184.216.34", "public"],
    ["2606:4700::1111", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["2130706433", "loopback"],
    ["0x7f.1", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["2002:7f00:1::", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["fd12:3456::1", "private"],
    ["fc00::1", "private"],
    ["::ffff:10.0.0.1", "private"],
    ["169.254.169.254", "metadata"],
    ["0xa9fea9fe", "metadata"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:a9fe:a9fe", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["100.100.100.200", "metadata"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["192.0.2.1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["2001:0:4136:e378::1", "reserved"],
  ])("%s is %s", (text, expected) => {
    expect(classifyAddress(text)).toBe(expected);
  });

  it("does not classify host names", () => {
    expect(classifyAddress("metadata.google.internal")).toBeUndefined();
  });

  it("agrees with the WHATWG URL parser on exotic IPv4 spellings", () => {
    for (const host of ["2130706433", "0x7f.1", "0177.0.0.01", "127.1", "0x7f.0.0.0x1"]) {
      const url = new URL(`http://${host}:8080/`);
      expect(url.hostname, host).toBe("127.0.0.1");
      expect(parseIpAddress(host)?.canonical, host).toBe(url.hostname);
    }
  });
});

describe("matchHostPattern", () => {
  const patterns = ["localhost", "*.example.com", "10.0.0.5:8080", "[::1]:3000"];
  it.each([
    ["http://localhost:9999", "exact"],
    ["http://LOCALHOST.:9999", "exact"],
    ["https://a.b.example.com", "domain"],
    ["https://example.com", undefined],
    ["https://badexample.com", undefined],
    ["https://example.com.evil.net", undefined],
    ["http://10.0.0.5:8080", "exact"],
    ["http://0xa.0.0.5:8080", "exact"],
    ["http://167772165:8080", "exact"],
    ["http://10.0.0.5", undefined],
    ["http://[::1]:3000", "exact"],
    ["http://[::1]:3001", undefined],
    ["http://127.0.0.1:3000@evil.com/", undefined],
  ])("%s -> %s", (url, expected) => {
    expect(matchHostPattern(new URL(url), patterns)).toBe(expected);
  });

  it("prefers the most specific entry and never lets a wildcard match an address", () => {
    expect(matchHostPattern(new URL("http://flows.internal"), ["*", "flows.internal"])).toBe("exact");
    expect(matchHostPattern(new URL("http://x.flows.internal"), ["*", "*.flows.internal"])).toBe("domain");
    expect(matchHostPattern(new URL("http://10.0.0.5"), ["*.5"])).toBeUndefined();
    expect(matchHostPattern(new URL("http://anything"), ["*"])).toBe("any");
  });
});

describe("checkOutboundUrl", () => {
  const resolver =
    (table: Record<string, string[]>): HostResolver =>
    async (host) => {
      const found = table[host];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
      return found;
    };
  const resolve = resolver({
    "public.example.com": ["93.184.216.34"],
    "rebind.example.com": ["93.184.216.34", "10.0.0.7"],
    "meta.example.com": ["169.254.169.254"],
    "lo.example.com": ["::ffff:127.0.0.1"],
    "flowise.internal": ["10.0.0.5"],
    "metadata.google.internal": ["169.254.169.254"],
  });

  it("lets '*' reach public addresses only, whatever the spelling or DNS name", async () => {
    const any = { allowedHosts: ["*"], resolve };
    expect(await checkOutboundUrl("http://public.example.com/", any)).toMatchObject({ allowed: true, match: "any" });
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://[fd00:ec2::254]/",
      "http://2852039166/",
      "http://0xa9.0xfe.0xa9.0xfe/",
      "http://[::ffff:169.254.169.254]/",
      "http://127.0.0.1:3000/",
      "http://2130706433/",
      "http://0177.0.0.1/",
      "http://127.1/",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://localhost/",
      "http://api.localhost/",
      "http://10.0.0.1/",
      "http://192.168.0.10/",
      "http://[fd12::1]/",
      "http://169.254.10.10/",
      "http://0.0.0.0/",
      "http://meta.example.com/",
      "http://lo.example.com/",
      "http://rebind.example.com/",
      "http://nowhere.example.com/",
    ]) {
      const decision = await checkOutboundUrl(url, any);
      expect(decision.allowed, url).toBe(false);
    }
  });

  it("lets named hosts and domains reach private addresses, but metadata only through an exact entry", async () => {
    expect(await checkOutboundUrl("http://flowise.internal:3000", { allowedHosts: ["flowise.internal"], resolve })).toMatchObject({ allowed: true, match: "exact" });
    expect(await checkOutboundUrl("http://flowise.internal:3000", { allowedHosts: ["*.internal"], resolve })).toMatchObject({ allowed: true, match: "domain" });
    expect(await checkOutboundUrl("http://127.0.0.1:3000", { allowedHosts: ["127.0.0.1:3000"], resolve })).toMatchObject({ allowed: true });
    const viaDomain = await checkOutboundUrl("http://metadata.google.internal/", { allowedHosts: ["*.internal"], resolve });
    expect(viaDomain).toMatchObject({ allowed: false });
    expect(viaDomain.allowed ? "" : viaDomain.reason).toContain("cloud metadata");
    expect(await checkOutboundUrl("http://169.254.169.254/", { allowedHosts: ["169.254.169.254"], resolve })).toMatchObject({ allowed: true, match: "exact" });
    expect(await checkOutboundUrl("http://unresolved.internal/", { allowedHosts: ["*.internal"], resolve })).toMatchObject({ allowed: true, targets: [] });
  });

  it("allows operator-configured URLs (no allowlist) to private hosts but never to metadata or link-local", async () => {
    expect(await checkOutboundUrl("http://127.0.0.1:8931/mcp", { resolve })).toMatchObject({ allowed: true, match: "configured" });
    expect(await checkOutboundUrl("http://flowise.internal/mcp", { resolve })).toMatchObject({ allowed: true });
    expect(await checkOutboundUrl("http://169.254.169.254/", { resolve })).toMatchObject({ allowed: false });
    expect(await checkOutboundUrl("http://meta.example.com/", { resolve })).toMatchObject({ allowed: false });
    expect(await checkOutboundUrl("http://[fe80::1]/", { resolve })).toMatchObject({ allowed: false });
  });

  it("refuses hosts off the allowlist and non-http schemes", async () => {
    expect(await checkOutboundUrl("http://public.example.com/", { allowedHosts: ["other.example.com"], resolve })).toMatchObject({ allowed: false });
    expect(await checkOutboundUrl("file:///etc/passwd", { allowedHosts: ["*"], resolve })).toMatchObject({ allowed: false });
    expect(await checkOutboundUrl("not a url", { allowedHosts: ["*"], resolve })).toMatchObject({ allowed: false });
  });

  it("uses the system resolver by default (localhost names never reach the resolver)", async () => {
    const decision = await checkOutboundUrl("http://localhost:1/", { allowedHosts: ["*"] });
    expect(decision).toMatchObject({ allowed: false, targets: [{ address: "127.0.0.1", class: "loopback" }] });
  });
});

describe("downstream HTTP servers and the outbound address policy", () => {
  it("refuses special addresses and hosts off the allowlist at configuration time", async () => {
    const { parseDownstreamConfig } = await import("./config.js");
    const server = (url: string) => ({ name: "web", transport: "http" as const, url });
    expect(() => parseDownstreamConfig({ servers: [server("http://169.254.169.254/mcp")] })).toThrow(/metadata address/);
    expect(() => parseDownstreamConfig({ servers: [server("http://[::ffff:a9fe:a9fe]/mcp")] })).toThrow(/metadata address/);
    expect(() => parseDownstreamConfig({ servers: [server("http://[fe80::1]/mcp")] })).toThrow(/link-local/);
    expect(() => parseDownstreamConfig({ servers: [server("http://tools.example.com/mcp")], allowedHosts: ["*.internal"] })).toThrow(/not in downstream.allowedHosts/);
    expect(parseDownstreamConfig({ servers: [server("http://127.0.0.1:8931/mcp")] }).servers).toHaveLength(1);
    expect(parseDownstreamConfig({ servers: [server("http://169.254.169.254/mcp")], allowedHosts: ["169.254.169.254"] }).allowedHosts).toEqual(["169.254.169.254"]);
  });

  it("never connects to a server whose name resolves to a metadata address", async () => {
    const { createDownstreamManager } = await import("./downstream-manager.js");
    const asked: string[] = [];
    const manager = createDownstreamManager(
      { servers: [{ name: "web", transport: "http", url: "http://tools.example.com:1/mcp", connectTimeoutMs: 2_000 }], maxRestarts: 0 },
      {
        resolveHost: async (host) => {
          asked.push(host);
          return ["169.254.169.254"];
        },
      },
    );
    try {
      await manager.start();
      const [status] = manager.status();
      expect(asked).toContain("tools.example.com");
      expect(JSON.stringify(status)).toContain("outbound address policy");
    } finally {
      await manager.stop();
    }
  });
});
