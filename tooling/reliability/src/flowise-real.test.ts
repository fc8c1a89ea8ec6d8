/**
 * Opt-in: the whole gateway against a real Flowise 3.1.2 (an OpenAI-compatible stub as its LLM).
 *
 *   AFW_FLOWISE_REAL=1 pnpm --filter @afw/reliability exec vitest run src/flowise-real.test.ts
 *
 * Flowise must be installed once (`AFW_FLOWISE_REAL=1 pnpm --filter @afw/backends test:flowise-real`).
 * With `AFW_FLOWISE_RECORD=1` the gateway's exchanges with Flowise are written to
 * `fixtures/flowise-3.1.2-gateway.json`, which `flowise-replay.test.ts` serves in CI.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, it } from "vitest";
import { startRecordingProxy, type FlowiseRecording } from "./harness/flowise-recording.js";
import { FLOWISE_VERSION, startRealFlowise } from "./harness/flowise-real.js";
import { runFlowiseScenario } from "./harness/flowise-scenario.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/flowise-3.1.2-gateway.json", import.meta.url));

const ENABLED = process.env["AFW_FLOWISE_REAL"] === "1";
if (!ENABLED) {
  console.warn("[@afw/reliability] real-Flowise suite skipped: set AFW_FLOWISE_REAL=1 to run it (installs Flowise 3.1.2 from npm on first use; its recorded replay, src/flowise-replay.test.ts, always runs).");
}

describe.skipIf(!ENABLED)("the gateway against a real Flowise 3.1.2", () => {
  it("session memory, parameters, streaming, a deleted chatflow and a wrong key", async () => {
    const flowise = await startRealFlowise();
    const front = await startRecordingProxy(flowise.url, flowise.apiKey);
    try {
      await runFlowiseScenario({ front, apiKey: flowise.apiKey, ids: flowise.ids, llm: flowise.llm, deleteFlow: () => flowise.deleteFlow() });
      if (process.env["AFW_FLOWISE_RECORD"] === "1") {
        const recording: FlowiseRecording = { flowise: FLOWISE_VERSION, recordedAt: new Date().toISOString(), ids: flowise.ids, exchanges: front.exchanges };
        // The key is recorded only as valid/invalid; the replay gets a key of its own.
        writeFileSync(FIXTURE, `${JSON.stringify(recording, null, 1).replaceAll(flowise.apiKey, "<api-key>")}\n`);
      }
    } finally {
      await front.close();
      await flowise.close();
    }
  }, 600_000);
});
