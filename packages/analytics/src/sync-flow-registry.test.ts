import { describe, expect, it } from "vitest";
import { UniversalFlowSchema, type UniversalFlow, type UniversalFlowInput } from "@afw/contracts";
import { type ConfiguredBackendFlows } from "./index.js";
import { syncFlowRegistry } from "./sync-flow-registry.js";
import { createTrafficGenerator } from "./test.js";

const flow = (input: Omit<UniversalFlowInput, "id" | "backendKind"> & { backendKind?: string }): UniversalFlow =>
  UniversalFlowSchema.parse({ backendKind: "flowise", ...input, id: `${input.backendId}:${input.backendFlowId}` });

function fixture() {
  const configured: ConfiguredBackendFlows[] = [
    {
      backendId: "flowise",
      flows: [
        // on the platform, fully configured: no change
        { id: "docs", name: "Docs QA", intents: ["rag-retrieval"], keywords: ["handbook"], parameterMapping: { temperature: { param: "temperature" } } },
        // on the platform, configured without intents: update with inferred intents and the platform's name
        { id: "coder", intents: [] },
        // deleted on the platform: remove
        { id: "gone", name: "Old flow", intents: ["conversation"] },
      ],
    },
    // this backend's discovery did not answer: its entries are left alone
    { backendId: "langflow", flows: [{ id: "etl", intents: ["data-processing"] }] },
  ];
  const discovered: UniversalFlow[] = [
    flow({ backendId: "flowise", backendFlowId: "docs", name: "Docs QA", intents: ["rag-retrieval"], source: "merged" }),
    flow({ backendId: "flowise", backendFlowId: "coder", name: "Code Reviewer", intents: ["technical-analysis"], streaming: true, source: "merged" }),
    // configured-only entries come back with source "configured": not on the platform
    flow({ backendId: "flowise", backendFlowId: "gone", name: "Old flow", intents: ["conversation"], source: "configured" }),
    // new on the platform: add, with intents inferred from usage first
    flow({ backendId: "flowise", backendFlowId: "sheets", name: "Spreadsheet helper", intents: ["conversation"], keywords: ["spreadsheet"], source: "discovered" }),
    flow({ backendId: "flowise", backendFlowId: "poet", name: "Poem writer", intents: [], source: "discovered" }),
  ];
  // usage: the unconfigured "sheets" flow answered 6 data-processing questions
  const traffic = createTrafficGenerator({ flows: [{ flowId: "flowise:sheets", intents: ["data-processing"] }], start: Date.UTC(2025, 0, 1) });
  traffic.run(6, () => ({ intent: "data-processing" }));
  return { configured, discovered, events: traffic.events };
}

describe("syncFlowRegistry", () => {
  it("proposes adds, updates and removals with inferred intents, and a dry run changes nothing", () => {
    const { configured, discovered, events } = fixture();
    const before = structuredClone(configured);
    const plan = syncFlowRegistry({ discovered, configured, events });
    expect(plan.applied).toBe(false);
    expect(plan.invalidateFlowIds).toEqual([]);
    expect(configured).toEqual(before);
    expect(plan.registry).toEqual(before);
    expect(plan.unchanged).toBe(2); // flowise:docs, langflow:etl
    expect(plan.changes.map((c) => `${c.action} ${c.flowId}`)).toEqual(["update flowise:coder", "remove flowise:gone", "add flowise:sheets", "add flowise:poet"]);

    const [coder, gone, sheets, poet] = plan.changes;
    expect(coder!.fields).toEqual([
      { field: "intents", from: [], to: ["technical-analysis"] },
      { field: "name", from: undefined, to: "Code Reviewer" },
      { field: "streaming", from: undefined, to: true },
    ]);
    expect(coder!.entry).toEqual({ id: "coder", intents: ["technical-analysis"], name: "Code Reviewer", streaming: true });
    expect(coder!.inferredIntents).toEqual([{ intent: "technical-analysis", source: "discovery" }]);
    expect(gone!.previous).toEqual({ id: "gone", name: "Old flow", intents: ["conversation"] });
    expect(sheets!.inferredIntents).toEqual([
      { intent: "data-processing", source: "usage", evidence: 6 },
      { intent: "conversation", source: "discovery" },
    ]);
    expect(sheets!.entry).toMatchObject({ id: "sheets", name: "Spreadsheet helper", intents: ["data-processing", "conversation"], keywords: ["spreadsheet"] });
    expect(poet!.inferredIntents).toEqual([]); // discovery found no intents and nothing used it
  });

  it("applies exactly what it proposed and names the flows whose cache to invalidate", () => {
    const { configured, discovered, events } = fixture();
    const before = structuredClone(configured);
    const plan = syncFlowRegistry({ discovered, configured, events });
    const done = syncFlowRegistry({ discovered, configured, events, apply: true });
    expect(configured).toEqual(before); // inputs are never mutated
    expect(done.applied).toBe(true);
    expect(done.changes).toEqual(plan.changes);
    expect(done.invalidateFlowIds).toEqual(plan.changes.map((c) => c.flowId));

    const flowise = done.registry.find((b) => b.backendId === "flowise")!.flows;
    expect(flowise.map((e) => e.id)).toEqual(["docs", "coder", "sheets", "poet"]);
    expect(flowise[0]).toEqual(before[0]!.flows[0]); // untouched, parameterMapping kept
    for (const change of plan.changes) {
      const entry = flowise.find((e) => e.id === change.backendFlowId);
      if (change.action === "remove") expect(entry).toBeUndefined();
      else expect(entry).toEqual(change.entry);
    }
    expect(done.registry.find((b) => b.backendId === "langflow")).toEqual(before[1]);

    // applying the result again proposes nothing more for those flows
    const discoveredAfter = discovered.filter((f) => f.backendFlowId !== "gone");
    const again = syncFlowRegistry({ discovered: discoveredAfter, configured: done.registry, events });
    expect(again.changes).toEqual([]);
  });

  it("applies only the selected flows", () => {
    const { configured, discovered, events } = fixture();
    const done = syncFlowRegistry({ discovered, configured, events, apply: true, only: ["flowise:gone"] });
    expect(done.changes.map((c) => c.flowId)).toEqual(["flowise:gone"]);
    expect(done.skipped.map((c) => c.flowId)).toEqual(["flowise:coder", "flowise:sheets", "flowise:poet"]);
    expect(done.invalidateFlowIds).toEqual(["flowise:gone"]);
    expect(done.registry.find((b) => b.backendId === "flowise")!.flows.map((e) => e.id)).toEqual(["docs", "coder"]);
  });
});
