import { lookup as dnsLookup } from "node:dns";
import { isIP, type LookupFunction } from "node:net";

/**
 * Decides, at connection time, whether the client may open a TCP connection to `address` (the
 * IP address the host name resolved to, or the literal address of the URL). `host` is the URL's
 * host name (IPv6 without brackets). Return `true` to allow; `false` or a reason (text) to refuse.
 * The reason is shown in the error, so it must not contain secrets.
 *
 * Applied to every new connection, after DNS resolution: a name that resolved to an allowed
 * address when it was checked and to `127.0.0.1` now (DNS rebinding) is refused. Kept-alive
 * connections are reused only for the same host and port, so a reused socket is always one whose
 * address was checked.
 *
 * @example
 * ```ts
 * const publicOnly: ConnectPolicy = (address) => !address.startsWith("127.") || "loopback is not allowed";
 * ```
 */
export type ConnectPolicy = (address: string, family: 4 | 6, host: string) => boolean | string;

/**
 * A `dns.lookup`-compatible function (the `lookup` option of `net.connect`). Must honour
 * `options.all` (answer an array of `{ address, family }`) as `dns.lookup` does.
 */
export type HostLookup = LookupFunction;

const CONNECT_REFUSED_MARKER = Symbol.for("afw.error.connect-refused");

/**
 * Raised by a {@link checkedLookup} when the {@link ConnectPolicy} refuses the resolved address.
 * The HTTP client maps it to a non-retryable `FORBIDDEN` `BackendError`.
 */
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
    super(`connecting to ${host} (${address}) is refused by the connection policy: ${reason}`);
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

/**
 * Applies `policy` to one address. Returns the refusal, or undefined when allowed (a throwing
 * policy refuses).
 */
export function decideConnect(policy: ConnectPolicy, address: string, family: number, host: string): ConnectRefusedError | undefined {
  let verdict: boolean | string;
  try {
    verdict = policy(address, family === 6 ? 6 : 4, host);
  } catch (error) {
    verdict = `the connection policy failed (${error instanceof Error ? error.name : "error"})`;
  }
  if (verdict === true) return undefined;
  return new ConnectRefusedError(host, address, typeof verdict === "string" && verdict ? verdict : "not allowed");
}

/**
 * Checks a URL host that is an IP literal (sockets do not look those up, so {@link checkedLookup}
 * never sees them). Returns the refusal, or undefined when allowed or when `hostname` is a name.
 */
export function checkLiteralHost(policy: ConnectPolicy, hostname: string): ConnectRefusedError | undefined {
  const host = hostname.replace(/^\[|\]$/g, "");
  const family = isIP(host);
  return family === 0 ? undefined : decideConnect(policy, host, family, host);
}

/**
 * Wraps a lookup function so that every address it answers passes `policy` before a socket
 * connects to it; one refused address refuses the whole answer (as the configuration-time check
 * does). Use it as the `lookup` of a `node:http` agent or an `undici` `Agent`'s `connect` options.
 *
 * @param policy - the connection policy.
 * @param lookup - the resolver. @default `dns.lookup`
 * @example
 * ```ts
 * const agent = new http.Agent({ keepAlive: true, lookup: checkedLookup((address) => address !== "169.254.169.254") });
 * ```
 */
export function checkedLookup(policy: ConnectPolicy, lookup: HostLookup = dnsLookup as HostLookup): HostLookup {
  return (hostname, options, callback) => {
    lookup(hostname, options, (error, address, family) => {
      if (error) {
        callback(error, address, family);
        return;
      }
      const entries = Array.isArray(address) ? address : [{ address, family: family ?? (isIP(address) || 4) }];
      for (const entry of entries) {
        const refusal = decideConnect(policy, entry.address, entry.family, hostname);
        if (refusal) {
          callback(refusal, options.all ? [] : "", family);
          return;
        }
      }
      callback(null, address, family);
    });
  };
}
