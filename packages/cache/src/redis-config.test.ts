import { describe, expect, it } from "vitest";
import { Cluster, Redis } from "ioredis";
import { createRedisClient, parseRedisUrl } from "./redis-config.js";
import { RedisConnection } from "./redis-connection.js";

describe("parseRedisUrl", () => {
  it("parses standalone URLs with credentials, database and TLS", () => {
    expect(parseRedisUrl("redis://127.0.0.1:6380/2")).toEqual({ mode: "standalone", host: "127.0.0.1", port: 6380, db: 2 });
    expect(parseRedisUrl("rediss://user:p%40ss@cache.example.com")).toEqual({
      mode: "standalone",
      host: "cache.example.com",
      port: 6379,
      username: "user",
      password: "p@ss",
      tls: true,
    });
    expect(parseRedisUrl("redis://:secret@[::1]:7000")).toEqual({ mode: "standalone", host: "::1", port: 7000, password: "secret" });
  });

  it("parses Sentinel URLs: several sentinels, master name, database, sentinel credentials", () => {
    expect(parseRedisUrl("redis+sentinel://:pw@s1:26379,s2,s3:26380/mymaster/1?sentinelPassword=spw")).toEqual({
      mode: "sentinel",
      sentinels: [
        { host: "s1", port: 26_379 },
        { host: "s2", port: 26_379 },
        { host: "s3", port: 26_380 },
      ],
      name: "mymaster",
      db: 1,
      password: "pw",
      sentinelPassword: "spw",
    });
  });

  it("parses Cluster URLs", () => {
    const nodes = ["n1", "n2"].map((host, i) => ({ host, port: 7000 + i }));
    expect(parseRedisUrl("redis+cluster://n1:7000,n2:7001")).toEqual({ mode: "cluster", nodes });
  });

  it("rejects malformed URLs without echoing credentials", () => {
    for (const url of ["http://x", "redis://a:1,b:2", "redis+sentinel://s1", "redis://host:99999", "not a url"]) {
      expect(() => parseRedisUrl(url), url).toThrowError(expect.objectContaining({ code: "CONFIG_INVALID" }));
    }
    try {
      parseRedisUrl("redis://user:topsecret@host:0");
    } catch (error) {
      expect(String(error)).not.toContain("topsecret");
    }
  });
});

describe("createRedisClient", () => {
  it("configures fail-fast commands and reconnect backoff", () => {
    const client = createRedisClient("redis://h:1", { lazyConnect: true, operationTimeoutMs: 150, reconnect: { initialDelayMs: 10, maxDelayMs: 300 } }) as Redis;
    expect(client.options).toMatchObject({ host: "h", port: 1, enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 150, autoResendUnfulfilledCommands: false });
    const delays = [1, 2, 3, 10, 50].map((attempt) => client.options.retryStrategy!(attempt) as number);
    expect(delays[0]).toBeLessThanOrEqual(10);
    expect(delays[2]).toBeGreaterThan(delays[0]!);
    expect(Math.max(...delays)).toBeLessThanOrEqual(300);
    expect(delays[4]).toBeGreaterThanOrEqual(240);
    client.disconnect();
  });

  it("configures Sentinel and Cluster clients", () => {
    const sentinel = createRedisClient("redis+sentinel://s1,s2/main", { lazyConnect: true }) as Redis;
    expect(sentinel.options).toMatchObject({ sentinels: [{ host: "s1" }, { host: "s2" }], name: "main", enableOfflineQueue: false });
    const cluster = createRedisClient("rediss+cluster://:pw@n1:7000", { lazyConnect: true }) as Cluster;
    expect(cluster.options).toMatchObject({ enableOfflineQueue: false, redisOptions: { password: "pw", tls: {}, maxRetriesPerRequest: 0 } });
    // Node connections run CLUSTER SLOTS while connecting: not under the 100 ms operation bound.
    expect(cluster.options.redisOptions?.commandTimeout).toBeGreaterThanOrEqual(1000);
    sentinel.disconnect();
    cluster.disconnect();
  });
});

describe("createRedisClient / RedisConnection", () => {
  it("constructs a Redis for standalone and Sentinel and a Cluster for Cluster URLs (lazily, without connecting)", () => {
    const standalone = createRedisClient("redis://127.0.0.1:1", { lazyConnect: true });
    const sentinel = createRedisClient("redis+sentinel://127.0.0.1:1/main", { lazyConnect: true });
    const cluster = createRedisClient("redis+cluster://127.0.0.1:1,127.0.0.1:2", { lazyConnect: true });
    try {
      expect(standalone).toBeInstanceOf(Redis);
      expect(sentinel).toBeInstanceOf(Redis);
      expect((sentinel as Redis).options.sentinels).toEqual([{ host: "127.0.0.1", port: 1 }]);
      expect(cluster).toBeInstanceOf(Cluster);
      expect([standalone.status, sentinel.status, cluster.status]).toEqual(["wait", "wait", "wait"]);
    } finally {
      standalone.disconnect();
      sentinel.disconnect();
      cluster.disconnect();
    }
  });

  it("reports the mode of sentinel and cluster URLs", async () => {
    const sentinel = new RedisConnection({ url: "redis+sentinel://127.0.0.1:1/main", lazyConnect: true });
    const cluster = new RedisConnection({ url: "redis+cluster://127.0.0.1:1", lazyConnect: true });
    expect([sentinel.mode, cluster.mode]).toEqual(["sentinel", "cluster"]);
    expect(cluster.client).toBeInstanceOf(Cluster);
    await Promise.all([sentinel.close(), cluster.close()]);
  });

  it("requires exactly one connection source and valid bounds", () => {
    expect(() => new RedisConnection({})).toThrowError(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => new RedisConnection({ url: "redis://h", client: new Redis({ lazyConnect: true }) })).toThrowError(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => new RedisConnection({ url: "redis://h", operationTimeoutMs: 0 })).toThrowError(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});
