import { describe, expect, it } from "vitest";
import { toUniversalFlow } from "./universal-flow.js";

const backend = { id: "fw", kind: "flowise" };
const discovered = (name: string) => ({ backendFlowId: "f1", name, tags: [], nodeHints: [], metadata: {} });

describe("toUniversalFlow", () => {
  it("infers intents and catch-all status from what discovery found", () => {
    expect(toUniversalFlow(backend, "f1", discovered("Untitled 7"), undefined)).toMatchObject({ intents: ["conversation"], generalPurpose: true, source: "discovered" });
    expect(toUniversalFlow(backend, "f1", discovered("Docs QA"), undefined)).toMatchObject({ intents: ["rag-retrieval"], generalPurpose: false });
  });

  it("does not make a flow with configured intents a catch-all unless the entry says so", () => {
    expect(toUniversalFlow(backend, "f1", discovered("Untitled 7"), { intents: ["technical-analysis"], enabled: true })).toMatchObject({
      intents: ["technical-analysis"],
      generalPurpose: false,
      source: "merged",
    });
    expect(toUniversalFlow(backend, "f1", discovered("Untitled 7"), { intents: ["technical-analysis"], generalPurpose: true, enabled: true }).generalPurpose).toBe(true);
  });
});
