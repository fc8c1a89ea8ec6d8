import { RedisConnection, type RedisClient } from "@afw/cache";

export type { RedisClient };

/** How the Redis-backed stores of this package reach Redis. Give `url` or `client`. */
export interface RedisStoreConnectionOptions {
  /** `redis://` or `rediss://` URL. The store creates (and closes) its own client. */
  url?: string | undefined;
  /** An existing ioredis client (e.g. the gateway's shared one), closed with the store only if `closeClient`. */
  client?: RedisClient | undefined;
  /** Close a given `client` when the store is closed. @default false */
  closeClient?: boolean | undefined;
  /** Prefix of every key the store writes. @default "afw:analytics:" */
  keyPrefix?: string | undefined;
  /** Bound of every Redis operation; past it the operation fails and the store degrades. @default 500 */
  operationTimeoutMs?: number | undefined;
}

/**
 * `@afw/cache`'s bounded {@link RedisConnection} for a store of this package (`execute` never rejects), and the full key
 * of a name under the store's prefix. @internal
 * @throws AfwError `CONFIG_INVALID` when neither or both of `url` and `client` are given.
 */
export function connectStore(options: RedisStoreConnectionOptions): { connection: RedisConnection; key: (name: string) => string } {
  const { url, client, closeClient, operationTimeoutMs = 500, keyPrefix = "afw:analytics:" } = options;
  return { connection: new RedisConnection({ url, client, closeClient, operationTimeoutMs }), key: (name) => `${keyPrefix}${name}` };
}
