import { describe, expect, it } from "vitest";
import { INTENTS } from "@afw/contracts";
import { buildFlowProfile } from "./flow-profiles.js";
import { toFlows } from "../test/fake-backend.js";

describe("buildFlowProfile", () => {
  const [flow] = toFlows("flowise", "flowise", [{ id: "abc", name: "Support Bot", intents: ["conversation"], keywords: ["Refund Policy"] }]);

  it("uses the flow's own intents, with keywords folded into words", () => {
    const p = buildFlowProfile(flow!);
    expect(p.intents).toEqual(["conversation"]);
    expect(p.primaryIntentIndex).toBe(INTENTS.indexOf("conversation"));
    expect([...p.keywords].sort()).toEqual(["policy", "refund"]);
  });
  it("takes intents and general purpose as given (inference is the backend adapter's, not the router's)", () => {
    const [bare, general] = toFlows("lf", "langflow", [
      { id: "x", name: "Knowledge base search", description: "RAG over the wiki" },
      { id: "y", name: "Anything", generalPurpose: true },
    ]);
    expect(buildFlowProfile(bare!)).toMatchObject({ intents: [], intentMask: 0, primaryIntentIndex: -1, generalPurpose: false });
    expect(buildFlowProfile(general!).generalPurpose).toBe(true);
  });
});
