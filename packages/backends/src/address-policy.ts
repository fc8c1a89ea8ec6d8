import { lookup as dnsLookup } from "node:dns/promises";
import { lookup as dnsLookupCallback } from "node:dns";
import { isIP, isIPv4, isIPv6, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { Agent, buildConnector } from "undici";

const { IPv4, IPv6, parseCIDR, subnetMatch } = ipaddr;
type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * The outbound address policy (SSRF and DNS-rebinding guard), one home for every outbound HTTP request of the gateway:
 * IP address classification, allowlist patterns, the configuration-time URL check ({@link checkOutboundUrl}), the same
 * rules at connection time ({@link outboundConnectPolicy}) and the `undici` agent that applies a policy to the address
 * of every new connection ({@link createOutboundAgent}).
 * @module
 */

/**
 * What an IP address is, for SSRF decisions: `private` is RFC 1918, CGNAT and IPv6 unique/site-local; `metadata` the
 * cloud instance-metadata services; `reserved` broadcast, 240/4, documentation, benchmarking, Teredo and discard.
 */
export type AddressClass = "public" | "private" | "loopback" | "link-local" | "metadata" | "unspecified" | "multicast" | "reserved";

function parseAddress(text: string): IPv4 | IPv6 | undefined {
  const value = text.trim().toLowerCase();
  if (value.includes(":")) {
    const bare = value.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
    // The URL parser's form has no dotted IPv4 tail (which ipaddr.js 1.9 misreads after a `::`).
    return isIPv6(bare) ? IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1)) : undefined;
  }
  // An IPv4 literal in any `inet_aton` spelling, read as the WHATWG URL parser reads it; host names are not addresses.
  if (!/^[0-9a-fx.]+$/.test(value) || !URL.canParse(`http://${value}/`)) return undefined;
  const host = new URL(`http://${value}/`).hostname;
  return isIPv4(host) ? IPv4.parse(host) : undefined;
}

/**
 * The canonical text of an IP address literal (a dotted quad, or the full lower-case IPv6 form: 8 groups, no compression):
 * IPv4 in any `inet_aton` form (dotted, decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`), or IPv6
 * (brackets and zone ids allowed, embedded IPv4 tails such as `::ffff:127.0.0.1`); undefined for anything else.
 * @example
 * ```ts
 * canonicalAddress("0x7f.1"); // "127.0.0.1"
 * ```
 */
export function canonicalAddress(text: string): string | undefined {
  return parseAddress(text)?.toNormalizedString();
}

/** The special ranges, first match wins; any other address is `public`. */
const RANGES: Record<Exclude<AddressClass, "public">, string[]> = {
  metadata: ["169.254.169.254/32", "169.254.170.2/32", "100.100.100.200/32", "192.0.0.192/32", "fd00:ec2::254/128"],
  unspecified: ["0.0.0.0/8", "::/128"],
  loopback: ["127.0.0.0/8", "::1/128"],
  private: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7", "fec0::/10"],
  "link-local": ["169.254.0.0/16", "fe80::/10"],
  multicast: ["224.0.0.0/4", "ff00::/8"],
  // 240/4 with broadcast, documentation, benchmarking, 6to4 relay; local-use NAT64, Teredo, discard.
  reserved: ["240.0.0.0/4", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "192.88.99.0/24", "64:ff9b:1::/48", "2001:db8::/32", "2001::/32", "100::/64"],
};
// One list of both families (`subnetMatch` skips the ranges of the other family); typed as IPv4 for the overload.
const RANGE_LIST = Object.fromEntries(Object.entries(RANGES).map(([name, cidrs]) => [name, cidrs.map((cidr) => parseCIDR(cidr) as [IPv4, number])]));
/** IPv6 prefixes whose last 32 bits are an IPv4 address that decides: IPv4-mapped, IPv4-compatible, NAT64. */
const EMBEDDING_V4 = ["::ffff:0:0/96", "::/96", "64:ff9b::/96"].map((cidr) => IPv6.parseCIDR(cidr));

function classify(address: IPv4 | IPv6): AddressClass {
  const named = subnetMatch(address as IPv4, RANGE_LIST, "public") as AddressClass;
  if (named !== "public" || address.kind() === "ipv4") return named;
  const bytes = address.toByteArray();
  if (EMBEDDING_V4.some((prefix) => (address as IPv6).match(prefix))) return classify(IPv4.parse(bytes.slice(12).join(".")));
  // 6to4 2002:a.b.c.d::/48 tunnels to the embedded IPv4 address.
  return bytes[0] === 0x20 && bytes[1] === 0x02 ? classify(IPv4.parse(bytes.slice(2, 6).join("."))) : "public";
}

/**
 * Classifies an IP address literal (IPv4 in any `inet_aton` form, or IPv6).
 * @example
 * ```ts
 * classifyAddress("2130706433"); // "loopback"
 * classifyAddress("[::ffff:a9fe:a9fe]"); // "metadata"
 * classifyAddress("93.184.216.34"); // "public"
 * ```
 */
export function classifyAddress(text: string): AddressClass | undefined {
  const address = parseAddress(text);
  return address && classify(address);
}

/** Host names that always mean this machine (RFC 6761), whatever DNS says. */
function isLoopbackName(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost") || host === "ip6-localhost" || host === "ip6-loopback";
}

/** Lower-cases a URL host name and drops IPv6 brackets and one trailing dot. */
export function normalizeHostName(host: string): string {
  const lower = host.trim().toLowerCase().replace(/^\[|\]$/g, "");
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/** How an allowlist entry matched a URL. */
export type HostMatch = "exact" | "domain" | "any";

/**
 * Matches a URL's host and port against allowlist patterns: `host`, `host:port`, `[v6]:port`, `*.domain` (sub-domains
 * only, any depth) and `*` (anything).
 * @example
 * ```ts
 * matchHostPattern(new URL("http://a.flows.internal"), ["*.flows.internal"]); // "domain"
 * matchHostPattern(new URL("http://10.0.0.5:8080"), ["10.0.0.5"]); // "exact"
 * ```
 */
export function matchHostPattern(url: URL, patterns: readonly string[]): HostMatch | undefined {
  const host = normalizeHostName(url.hostname);
  const hostAddress = canonicalAddress(host);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  let best: HostMatch | undefined;
  const rank = { any: 1, domain: 2, exact: 3 } as const;
  for (const raw of patterns) {
    const pattern = raw.trim().toLowerCase();
    if (pattern === "") continue;
    let patternHost: string;
    let patternPort: string | undefined;
    if (pattern.startsWith("[")) {
      const close = pattern.indexOf("]");
      if (close < 0) continue;
      patternHost = pattern.slice(1, close);
      const rest = pattern.slice(close + 1);
      patternPort = rest.startsWith(":") ? rest.slice(1) : undefined;
    } else if ((pattern.match(/:/g) ?? []).length > 1) {
      patternHost = pattern; // a bare IPv6 address
    } else {
      [patternHost = "", patternPort] = pattern.split(":");
    }
    if (patternPort !== undefined && patternPort !== "" && patternPort !== "*" && patternPort !== port) continue;
    patternHost = normalizeHostName(patternHost);
    let match: HostMatch | undefined;
    if (patternHost === "*") match = "any";
    else if (patternHost.startsWith("*.")) {
      const suffix = patternHost.slice(1);
      if (hostAddress === undefined && host.endsWith(suffix) && host.length > suffix.length) match = "domain";
    } else {
      const patternAddress = canonicalAddress(patternHost);
      if (patternAddress !== undefined ? patternAddress === hostAddress : host === patternHost) match = "exact";
    }
    if (match && (best === undefined || rank[match] > rank[best])) best = match;
  }
  return best;
}

/** Resolves a host name to its IP addresses (as `dns.lookup` with `all: true`). */
export type HostResolver = (hostname: string) => Promise<string[]>;

/** The system resolver (`dns.lookup`, so `/etc/hosts` counts, as it does for `fetch`). */
export const systemResolver: HostResolver = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** Options of {@link checkOutboundUrl}. */
export interface OutboundUrlPolicy {
  /**
   * Allowlist patterns (see {@link matchHostPattern}). Undefined: every host may be named (the
   * URL comes from the operator's own configuration), but the address rules still apply.
   */
  allowedHosts?: readonly string[] | undefined;
  /** Resolver for host names. @default `dns.lookup` */
  resolve?: HostResolver;
}

/** The address a URL's host resolved to, with its class. */
export interface ResolvedTarget {
  address: string;
  class: AddressClass;
}

/** Result of {@link checkOutboundUrl}. */
export type OutboundUrlDecision =
  | { allowed: true; match: HostMatch | "configured"; targets: ResolvedTarget[] }
  | { allowed: false; reason: string; targets: ResolvedTarget[] };

const ALWAYS_EXPLICIT: readonly AddressClass[] = ["metadata", "link-local", "unspecified", "multicast", "reserved"];

/**
 * Decides whether the gateway may send requests to `url` (SSRF guard). The host must match the allowlist (when one is
 * given), then every address it resolves to is classified: public passes; private and loopback need an `exact` or
 * `domain` entry or no allowlist (never the bare `*`); metadata, link-local and other special ranges need an `exact` one.
 * @example
 * ```ts
 * await checkOutboundUrl(new URL("http://169.254.169.254/latest"), { allowedHosts: ["*"] });
 * // { allowed: false, reason: "… cloud metadata …", … }
 * ```
 */
export async function checkOutboundUrl(url: URL | string, policy: OutboundUrlPolicy = {}): Promise<OutboundUrlDecision> {
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : url;
  } catch {
    return { allowed: false, reason: "not a valid URL", targets: [] };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return { allowed: false, reason: `scheme '${parsed.protocol}' is not allowed`, targets: [] };
  const host = normalizeHostName(parsed.hostname);
  const match: HostMatch | "configured" | undefined = policy.allowedHosts === undefined ? "configured" : matchHostPattern(parsed, policy.allowedHosts);
  if (match === undefined) return { allowed: false, reason: `host '${parsed.host}' is not in the allowlist`, targets: [] };

  let addresses: string[];
  const literal = canonicalAddress(host);
  if (literal) addresses = [literal];
  else if (isLoopbackName(host)) addresses = ["127.0.0.1"];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) {
      return match === "any" ? { allowed: false, reason: `host '${host}' does not resolve`, targets: [] } : { allowed: true, match, targets: [] };
    }
  }
  const targets = addresses.map((address) => ({ address, class: classifyAddress(address) ?? "reserved" }));
  for (const target of targets) {
    const reason = addressRefusal(target.class, target.address, match, host);
    if (reason !== undefined) return { allowed: false, reason, targets };
  }
  return { allowed: true, match, targets };
}

/** Why `address` (of class `addressClass`) may not be reached under `match`, or undefined when it may. */
function addressRefusal(addressClass: AddressClass, address: string, match: HostMatch | "configured", host: string): string | undefined {
  if (addressClass === "public") return undefined;
  if (ALWAYS_EXPLICIT.includes(addressClass) && match !== "exact") {
    const what = addressClass === "metadata" ? "a cloud metadata address" : `a ${addressClass} address`;
    return `host '${host}' is ${what} (${address}); only an exact allowlist entry permits it`;
  }
  if ((addressClass === "private" || addressClass === "loopback") && match === "any") {
    return `host '${host}' is a ${addressClass} address (${address}); the '*' entry covers public addresses only`;
  }
  return undefined;
}

/**
 * Decides, at connection time, whether a TCP connection may be opened to `address` (what `host` resolved to, or the host
 * itself when it is an IP literal; `port` as the connection has it).
 * @example
 * ```ts
 * const publicOnly: ConnectPolicy = (address) => !address.startsWith("127.") || "loopback is not allowed";
 * ```
 */
export type ConnectPolicy = (address: string, family: 4 | 6, host: string, port?: number | string) => boolean | string;

/**
 * The connection-time half of {@link checkOutboundUrl}: the same address rules, applied to the address each new
 * connection actually goes to (after DNS resolution), so a name that answered a public address when it was checked and
 * `127.0.0.1` or `169.254.169.254` now (DNS rebinding) is refused.
 * @example
 * ```ts
 * const policy = outboundConnectPolicy("http://flows.example.com", { allowedHosts: ["*"] });
 * policy("93.184.216.34", 4, "flows.example.com"); // true
 * policy("127.0.0.1", 4, "flows.example.com"); // "host 'flows.example.com' is a loopback address (127.0.0.1); …"
 * ```
 */
export function outboundConnectPolicy(url: URL | string, policy: Pick<OutboundUrlPolicy, "allowedHosts"> = {}): ConnectPolicy {
  let base: URL | undefined;
  try {
    base = typeof url === "string" ? new URL(url) : url;
  } catch {
    base = undefined;
  }
  const baseHost = base ? normalizeHostName(base.hostname) : undefined;
  const basePort = base ? base.port || (base.protocol === "https:" ? "443" : "80") : undefined;
  const baseMatch: HostMatch | "configured" | undefined = base === undefined ? undefined : policy.allowedHosts === undefined ? "configured" : matchHostPattern(base, policy.allowedHosts);
  return (address, _family, hostname, port) => {
    const host = normalizeHostName(hostname);
    const portText = port === undefined || port === "" ? basePort : String(port);
    let match: HostMatch | "configured" | undefined;
    if (base !== undefined && host === baseHost && portText === basePort) match = baseMatch;
    else if (base === undefined) match = undefined;
    else {
      const other = new URL(base.toString());
      try {
        other.hostname = host.includes(":") ? `[${host}]` : host;
        other.port = portText ?? "";
      } catch {
        return `host '${host}' is not a valid host`;
      }
      match = policy.allowedHosts === undefined ? "any" : matchHostPattern(other, policy.allowedHosts);
    }
    if (match === undefined) return `host '${host}' is not in the allowlist`;
    const reason = addressRefusal(classifyAddress(address) ?? "reserved", address, match, host);
    return reason ?? true;
  };
}

/** A `dns.lookup`-compatible function (the `lookup` option of `net.connect`; honours `options.all` and `options.family`). */
export type HostLookup = LookupFunction;

/**
 * Turns a {@link HostResolver} into a `dns.lookup`-compatible function, so one resolver serves both the
 * configuration-time check and the connections (tests inject one to simulate DNS answers).
 * @example
 * ```ts
 * const lookup = lookupFromResolver(async () => ["127.0.0.1"]);
 * ```
 */
export function lookupFromResolver(resolve: HostResolver): HostLookup {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const entries = addresses.map((address) => ({ address, family: isIP(address) })).filter((entry) => entry.family !== 0 && (wanted === 0 || entry.family === wanted));
        if (entries.length === 0) {
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname }), options.all ? [] : "", undefined);
          return;
        }
        if (options.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (error: unknown) => callback(Object.assign(error instanceof Error ? error : new Error(String(error)), { code: (error as { code?: string }).code ?? "ENOTFOUND" }), options.all ? [] : "", undefined),
    );
  };
}

const CONNECT_REFUSED_MARKER = Symbol.for("afw.error.connect-refused");

/** A connection the {@link ConnectPolicy} refused: nothing was sent to `address`. */
export class ConnectRefusedError extends Error {
  /** Stable code (an `ErrnoException`-style code, so sockets report it unchanged). */
  readonly code = "ERR_AFW_CONNECT_REFUSED";
  private readonly [CONNECT_REFUSED_MARKER] = true;

  /**
   * @param host - the host name of the URL.
   * @param address - the address that was refused.
   * @param reason - why (from the policy).
   */
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`connecting to ${host} (${address}) is refused by the outbound address policy at connection time: ${reason}`);
    this.name = "ConnectRefusedError";
  }

  /** True for a {@link ConnectRefusedError} from any copy of this package. */
  static isInstance(value: unknown): value is ConnectRefusedError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[CONNECT_REFUSED_MARKER] === true;
  }
}

/**
 * Finds a {@link ConnectRefusedError} in `error`, its `cause` chain or the `errors` of an
 * `AggregateError` (`fetch` wraps connection errors as `TypeError("fetch failed", { cause })`).
 */
export function findConnectRefusal(error: unknown, depth = 0): ConnectRefusedError | undefined {
  if (depth > 6 || typeof error !== "object" || error === null) return undefined;
  if (ConnectRefusedError.isInstance(error)) return error;
  const nested = (error as { errors?: unknown }).errors;
  if (Array.isArray(nested)) {
    for (const inner of nested) {
      const found = findConnectRefusal(inner, depth + 1);
      if (found) return found;
    }
  }
  return findConnectRefusal((error as { cause?: unknown }).cause, depth + 1);
}

/** Applies `policy` to one address: the refusal, or undefined when allowed (a throwing policy refuses). */
function decideConnect(policy: ConnectPolicy, address: string, family: number, host: string, port: string): ConnectRefusedError | undefined {
  let verdict: boolean | string;
  try {
    verdict = policy(address, family === 6 ? 6 : 4, host, port);
  } catch (error) {
    verdict = `the connection policy failed (${error instanceof Error ? error.name : "error"})`;
  }
  if (verdict === true) return undefined;
  return new ConnectRefusedError(host, address, typeof verdict === "string" && verdict ? verdict : "not allowed");
}

/** Wraps `lookup` so that every address it answers passes `policy`; one refused address refuses the whole answer. */
function checkedLookup(policy: ConnectPolicy, lookup: HostLookup, port: string): HostLookup {
  return (hostname, options, callback) => {
    lookup(hostname, options, (error, address, family) => {
      if (error) {
        callback(error, address, family);
        return;
      }
      const entries = Array.isArray(address) ? address : [{ address, family: family ?? (isIP(address) || 4) }];
      for (const entry of entries) {
        const refusal = decideConnect(policy, entry.address, entry.family, hostname, port);
        if (refusal) {
          callback(refusal, options.all ? [] : "", family);
          return;
        }
      }
      callback(null, address, family);
    });
  };
}

/** Options of {@link createOutboundAgent}. */
export interface OutboundAgentOptions {
  /** Decides every new connection on the address it goes to. @default undefined (every address) */
  policy?: ConnectPolicy | undefined;
  /** Host-name resolver of new connections (tests inject one to simulate DNS answers). @default `dns.lookup` */
  lookup?: HostLookup | undefined;
  /** Called when a new connection is opened (before the policy decides). */
  onConnect?: (() => void) | undefined;
}

type Connector = ReturnType<typeof buildConnector>;

/**
 * The `undici` connection pool of the gateway's outbound HTTP (backend adapters through `undici.request`, downstream MCP
 * servers through `undici.fetch`).
 * @example
 * ```ts
 * const agent = createOutboundAgent({ policy: outboundConnectPolicy(url, { allowedHosts: ["*"] }) });
 * const { statusCode, body } = await request(url, { dispatcher: agent });
 * ```
 */
export function createOutboundAgent(options: OutboundAgentOptions = {}): Agent {
  const { policy, onConnect } = options;
  const lookup = options.lookup ?? (dnsLookupCallback as HostLookup);
  // One connector per origin, so the lookup knows the port an allowlist entry may name.
  const connectors = new Map<string, Connector>();
  const plain = policy || options.lookup ? undefined : buildConnector({});
  const connect = (connectOptions: Parameters<Connector>[0], callback: Parameters<Connector>[1]): void => {
    onConnect?.();
    if (plain) return void plain(connectOptions, callback);
    const host = connectOptions.hostname.replace(/^\[|\]$/g, "");
    const port = String(connectOptions.port || (connectOptions.protocol === "https:" ? 443 : 80));
    const family = isIP(host);
    if (policy && family !== 0) {
      const refusal = decideConnect(policy, host, family, host, port);
      if (refusal) return void callback(refusal, null);
    }
    const key = `${connectOptions.protocol}//${host}:${port}`;
    let connector = connectors.get(key);
    if (!connector) {
      connector = buildConnector({ lookup: policy ? checkedLookup(policy, lookup, port) : lookup });
      connectors.set(key, connector);
    }
    connector(connectOptions, callback);
  };
  return new Agent({ connect });
}
