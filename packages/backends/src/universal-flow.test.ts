import { describe, expect, it } from "vitest";
import { UniversalFlowSchema } from "@afw/contracts";
import { applyConfiguredFlows, mergeFlows, toUniversalFlow } from "./universal-flow.js";

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

describe("applyConfiguredFlows", () => {
  const listed = [discovered("Docs QA"), { ...discovered("Untitled 7"), backendFlowId: "f2" }, { ...discovered("Old"), backendFlowId: "f3" }];
  const configured = {
    f1: { keywords: ["policy"], tags: ["hr"], enabled: true },
    f3: { enabled: false },
    f4: { name: "General helper", streaming: true, enabled: true },
  };

  it("changes nothing in what mergeFlows built (the gateway applies it again over the built-in adapters)", () => {
    const merged = mergeFlows(backend, listed, configured);
    expect(merged.map((flow) => [flow.backendFlowId, flow.source])).toEqual([["f1", "merged"], ["f2", "discovered"], ["f4", "configured"]]);
    expect(merged[0]).toMatchObject({ intents: ["rag-retrieval"], keywords: ["policy"], tags: ["hr"] });
    expect(merged[2]).toMatchObject({ generalPurpose: true, capabilities: ["streaming"], metadata: { discovered: false } });
    expect(applyConfiguredFlows(backend, merged, configured)).toEqual(merged);
  });

  it("lays entries over a custom adapter's discovered flows: set fields win, lists replaced, unset ones kept; disabled dropped", () => {
    const custom = (backendFlowId: string, source: "discovered" | "merged") =>
      UniversalFlowSchema.parse({ id: `fw:${backendFlowId}`, backendId: "fw", backendKind: "custom", backendFlowId, name: backendFlowId, intents: ["creative-orientation"], keywords: ["poem"], generalPurpose: true, source });
    const flows = applyConfiguredFlows(backend, [custom("f1", "discovered"), custom("f2", "merged"), custom("f3", "discovered")], {
      ...configured,
      f2: { keywords: ["ignored"] },
    });
    expect(flows.map((flow) => flow.backendFlowId)).toEqual(["f1", "f2", "f4"]);
    expect(flows[0]).toMatchObject({ intents: ["creative-orientation"], keywords: ["policy"], tags: ["hr"], generalPurpose: true, source: "merged" });
    expect(flows[1]).toEqual(custom("f2", "merged"));
  });
});
