import { RedisConnection, type RedisClient } from "@afw/cache";
import { AfwError } from "@afw/contracts";

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

/** `@afw/cache`'s bounded {@link RedisConnection} with this package's key prefix. @internal */
export class BoundedRedis {
  private readonly connection: RedisConnection;
  private readonly keyPrefix: string;

  constructor(options: RedisStoreConnectionOptions, what: string) {
    try {
      this.connection = new RedisConnection({
        url: options.url,
        client: options.client,
        closeClient: options.closeClient,
        operationTimeoutMs: options.operationTimeoutMs ?? 500,
      });
    } catch (error) {
      throw new AfwError("CONFIG_INVALID", `${what}: ${(error as Error).message}`, { cause: error });
    }
    this.keyPrefix = options.keyPrefix ?? "afw:analytics:";
  }

  /** The full key of `name`. */
  key(name: string): string {
    return `${this.keyPrefix}${name}`;
  }

  /** Runs `fn` within the operation bound. Never rejects. */
  run<T>(fn: (client: RedisClient) => Promise<T>) {
    return this.connection.execute(fn);
  }

  /** Closes the client if this connection owns it. Idempotent. */
  close(): Promise<void> {
    return this.connection.close();
  }
}
