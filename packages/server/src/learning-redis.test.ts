import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { testConfig, useTestRedis } from "../test/helpers.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";

const redis = useTestRedis();
const gateways: GatewayServer[] = [];

beforeAll(async () => {
  const backend = createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"] }] });
  for (let i = 0; i < 2; i++) {
    gateways.push(await createGatewayServer({ backends: [backend], config: testConfig({ redis: { url: redis.url, keyPrefix: redis.prefix } }) }));
  }
});

afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
});

describe("learned prior with redis", () => {
  it("is shared: what one instance learns, the other adjusts by", async () => {
    const [a, b] = gateways as [GatewayServer, GatewayServer];
    for (let i = 0; i < 40; i++) {
      a.learning.prior!.observe({ intent: "conversation", flowId: "f:chat", success: i % 4 !== 0, latencyMs: 100 });
      a.learning.prior!.observe({ intent: "conversation", flowId: "f:other", success: true, latencyMs: 100 });
    }
    await a.learning.prior!.flush();
    await b.learning.prior!.refresh();
    const adjustment = b.learning.prior!.adjust("conversation", "f:chat");
    expect(adjustment.samples).toBeCloseTo(40, 0);
    expect(adjustment.successRate).toBeCloseTo(0.75, 2);
    expect(adjustment.flow_match).toBeLessThan(0);
  });
});
