import { describe, expect, it } from "vitest";
import { createFlowiseBackend } from "../flowise-backend.js";
import { demoFlows } from "./demo-flows.js";
import { startFlowiseServer } from "./flowise-server.js";

describe("demoFlows", () => {
  it("covers every routing intent with distinct stable ids", async () => {
    const server = await startFlowiseServer({ flows: demoFlows("f") });
    try {
      const flows = await createFlowiseBackend({ id: "demo", baseURL: server.url }).discoverFlows();
      const firstIntents = new Set(flows.map((flow) => flow.intents[0]));
      expect([...firstIntents].sort()).toEqual(["conversation", "creative-orientation", "data-processing", "rag-retrieval", "structural-thinking", "technical-analysis"]);
      expect(new Set(demoFlows("f").map((flow) => flow.id)).size).toBe(7);
      expect(demoFlows("a")[0]!.id).not.toBe(demoFlows("f")[0]!.id);
    } finally {
      await server.close();
    }
  });
});
