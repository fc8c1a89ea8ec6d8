import { lookup as dnsLookup } from "node:dns";
import { isIP } from "node:net";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Agent as UndiciAgent, buildConnector as BuildConnector } from "undici";
import type { HostLookup, OutboundConnectPolicy } from "./network-policy.js";

const REFUSED_MARKER = Symbol.for("afw.error.connect-refused");

/** A connection the {@link OutboundConnectPolicy} refused: nothing was sent to `address`. */
export class OutboundAddressRefusedError extends Error {
  /** Stable code (an `ErrnoException`-style code, so sockets report it unchanged). */
  readonly code = "ERR_AFW_CONNECT_REFUSED";
  private readonly [REFUSED_MARKER] = true;

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
    super(`refused by the outbound address policy at connection time: ${reason}`);
    this.name = "OutboundAddressRefusedError";
  }

  /** True for an {@link OutboundAddressRefusedError} (or `@afw/backends`' `ConnectRefusedError`) from any copy of the package. */
  static isInstance(value: unknown): value is OutboundAddressRefusedError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[REFUSED_MARKER] === true;
  }
}

/** Finds an {@link OutboundAddressRefusedError} in `error`'s `cause` chain (`fetch` wraps connection errors). */
function findRefusal(error: unknown, depth = 0): OutboundAddressRefusedError | undefined {
  if (depth > 6 || typeof error !== "object" || error === null) return undefined;
  if (OutboundAddressRefusedError.isInstance(error)) return error;
  return findRefusal((error as { cause?: unknown }).cause, depth + 1);
}

/** Options of {@link createOutboundFetch}. */
export interface OutboundFetchOptions {
  /** Decides every new connection on the address it goes to (see {@link outboundConnectPolicy}). */
  policy: OutboundConnectPolicy;
  /** Host-name resolver of new connections. @default `dns.lookup` */
  lookup?: HostLookup | undefined;
}

/** A `fetch` whose connections are checked, and the pool behind it. */
export interface OutboundFetch {
  /** `fetch`-compatible; pass it to the MCP SDK's HTTP client transports. */
  readonly fetch: FetchLike;
  /** Closes the pooled connections. Idempotent. */
  close(): Promise<void>;
}

type Connector = ReturnType<typeof BuildConnector>;

/**
 * A `fetch` (`undici`'s, with its own connection pool) that applies `policy` to the address of
 * every new connection: host names through a checked `lookup` (after DNS resolution, so DNS
 * rebinding between a configuration-time check and the connection is refused), IP-literal hosts
 * (which sockets do not look up) directly, and redirects the same way as the first request. A
 * refusal rejects with an {@link OutboundAddressRefusedError} before any byte is sent.
 *
 * @example
 * ```ts
 * const outbound = createOutboundFetch({ policy: outboundConnectPolicy(url, { allowedHosts }) });
 * const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: outbound.fetch });
 * // …
 * await outbound.close();
 * ```
 */
export function createOutboundFetch(options: OutboundFetchOptions): OutboundFetch {
  const { policy } = options;
  const lookup = options.lookup ?? (dnsLookup as HostLookup);
  let agent: UndiciAgent | undefined;
  let closed = false;

  const decide = (address: string, family: number, host: string, port: string): OutboundAddressRefusedError | undefined => {
    let verdict: true | string;
    try {
      verdict = policy(address, family === 6 ? 6 : 4, host, port);
    } catch (error) {
      verdict = `the connection policy failed (${error instanceof Error ? error.name : "error"})`;
    }
    return verdict === true ? undefined : new OutboundAddressRefusedError(host, address, verdict || "not allowed");
  };

  const checkedLookup =
    (port: string): HostLookup =>
    (hostname, lookupOptions, callback) => {
      lookup(hostname, lookupOptions, (error, address, family) => {
        if (error) {
          callback(error, address, family);
          return;
        }
        const entries = Array.isArray(address) ? address : [{ address, family: family ?? (isIP(address) || 4) }];
        for (const entry of entries) {
          const refusal = decide(entry.address, entry.family, hostname, port);
          if (refusal) {
            callback(refusal, lookupOptions.all ? [] : "", family);
            return;
          }
        }
        callback(null, address, family);
      });
    };

  const getAgent = async (): Promise<UndiciAgent> => {
    if (agent) return agent;
    // Loaded on first use: a gateway without HTTP downstream servers never pays for it.
    const undici = await import("undici");
    // One connector per origin, so the lookup knows the port the allowlist may name.
    const connectors = new Map<string, Connector>();
    const connect = (connectOptions: Parameters<Connector>[0], callback: Parameters<Connector>[1]): void => {
      const host = connectOptions.hostname.replace(/^\[|\]$/g, "");
      const port = String(connectOptions.port || (connectOptions.protocol === "https:" ? 443 : 80));
      const family = isIP(host);
      if (family !== 0) {
        const refusal = decide(host, family, host, port);
        if (refusal) {
          callback(refusal, null);
          return;
        }
      }
      const key = `${connectOptions.protocol}//${host}:${port}`;
      let connector = connectors.get(key);
      if (!connector) {
        connector = undici.buildConnector({ lookup: checkedLookup(port) });
        connectors.set(key, connector);
      }
      connector(connectOptions, callback);
    };
    agent ??= new undici.Agent({ connect });
    return agent;
  };

  const fetch: FetchLike = async (input, init) => {
    if (closed) throw new Error("the outbound fetch is closed");
    const undici = await import("undici");
    const dispatcher = await getAgent();
    try {
      const response = await undici.fetch(input instanceof URL ? input.toString() : input, { ...(init as Record<string, unknown>), dispatcher });
      return response as unknown as Response;
    } catch (error) {
      // `fetch failed` says nothing: surface the refusal itself (host, address and rule).
      throw findRefusal(error) ?? error;
    }
  };

  return {
    fetch,
    async close() {
      closed = true;
      const current = agent;
      agent = undefined;
      await current?.destroy().catch(() => undefined);
    },
  };
}
