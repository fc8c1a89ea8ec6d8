/**
 * The whole gateway against the recorded replies of a real Flowise 3.1.2
 * (`fixtures/flowise-3.1.2-gateway.json`, written by `flowise-real.test.ts` with
 * `AFW_FLOWISE_RECORD=1`): the same scenario, asserting on the gateway's answers and on what it
 * sent to Flowise.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startReplayServer, type FlowiseRecording } from "./harness/flowise-recording.js";
import { runFlowiseScenario } from "./harness/flowise-scenario.js";

const recording = JSON.parse(readFileSync(new URL("../fixtures/flowise-3.1.2-gateway.json", import.meta.url), "utf8")) as FlowiseRecording;
const KEY = "afw-test-secret-flowise-replay-key";

describe("the gateway against recorded Flowise 3.1.2 replies", () => {
  it("session memory, parameters, streaming, a deleted chatflow and a wrong key", async () => {
    expect(recording.flowise).toBe("3.1.2");
    const front = await startReplayServer(recording, KEY);
    try {
      await runFlowiseScenario({ front, apiKey: KEY, ids: recording.ids as FlowiseRecording["ids"] & { memory: string; locked: string; deleted: string } });
      expect(front.unmatched).toEqual([]);
    } finally {
      await front.close();
    }
  }, 120_000);
});
