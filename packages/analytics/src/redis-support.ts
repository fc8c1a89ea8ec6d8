import { RedisConnection, type RedisConnectionOptions } from "@afw/cache";

/**
 * How the Redis-backed stores of this package reach Redis: `@afw/cache`'s {@link RedisConnectionOptions} (give `url` or
 * `client`; `operationTimeoutMs` defaults to 500 here) and the prefix of their keys.
 */
export interface RedisStoreConnectionOptions extends RedisConnectionOptions {
  /** Prefix of every key the store writes. @default "afw:analytics:" */
  keyPrefix?: string | undefined;
}

/**
 * `@afw/cache`'s bounded {@link RedisConnection} for a store of this package (`execute` never rejects), and the full key
 * of a name under the store's prefix. @internal
 * @throws AfwError `CONFIG_INVALID` when neither or both of `url` and `client` are given.
 */
export function connectStore(options: RedisStoreConnectionOptions): { connection: RedisConnection; key: (name: string) => string } {
  const { keyPrefix = "afw:analytics:", operationTimeoutMs = 500, ...connection } = options;
  return { connection: new RedisConnection({ ...connection, operationTimeoutMs }), key: (name) => `${keyPrefix}${name}` };
}
