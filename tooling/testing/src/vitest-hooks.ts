import { afterAll, afterEach, beforeAll } from "vitest";
import { deleteRedisKeys, getTestRedis, type TestRedis } from "./redis.js";

/** Registers `hook` (after each test by default) to close, last first, every resource the returned function was given. */
export function closeAfter(hook: (run: () => Promise<void>) => void = afterEach): <T extends { close(): unknown }>(resource: T) => T {
  const open: { close(): unknown }[] = [];
  hook(async () => {
    for (const resource of open.splice(0).reverse()) await resource.close();
  });
  return (resource) => {
    open.push(resource);
    return resource;
  };
}

/** The suite's test Redis and a fresh key prefix (set before the suite's own `beforeAll` hooks run); its keys are deleted and the handle
 * released after the suite's own `afterAll` hooks. */
export function useTestRedis(): { url: string; prefix: string } {
  const suite = { url: "", prefix: "" };
  let redis: TestRedis | undefined;
  beforeAll(async () => {
    redis = await getTestRedis();
    suite.url = redis.url;
    suite.prefix = redis.prefix();
  });
  afterAll(async () => {
    if (!redis) return;
    await deleteRedisKeys(redis.url, suite.prefix);
    await redis.dispose();
  });
  return suite;
}
