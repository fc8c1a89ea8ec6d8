import { describe, expect, it } from "vitest";
import { INTENTS } from "@afw/contracts";
import { buildFlowProfile, inferFlowIntents, looksGeneralPurpose } from "./flow-profiles.js";
import { toFlows } from "../test/fake-backend.js";

describe("inferFlowIntents", () => {
  it("reads intents from name, description and tags", () => {
    expect(inferFlowIntents({ name: "Docs QA", description: "Answers questions from the HR handbook PDFs" })[0]).toBe("rag-retrieval");
    expect(inferFlowIntents({ name: "code-reviewer", tags: ["debugging"] })[0]).toBe("technical-analysis");
    expect(inferFlowIntents({ name: "CSV cleaner", description: "ETL helper for spreadsheets" })[0]).toBe("data-processing");
    expect(inferFlowIntents({ name: "Story Writer", description: "creative brainstorming partner" })[0]).toBe("creative-orientation");
    expect(inferFlowIntents({ name: "Solution Architect", description: "system design reviews" })[0]).toBe("structural-thinking");
    expect(inferFlowIntents({ name: "Friendly chatbot" })[0]).toBe("conversation");
  });
  it("returns nothing when there is no clear signal", () => {
    expect(inferFlowIntents({ name: "flow-7f3a" })).toEqual([]);
  });
});

describe("buildFlowProfile", () => {
  const [flow] = toFlows("flowise", "flowise", [{ id: "abc", name: "Support Bot", intents: ["conversation"], keywords: ["Refund Policy"] }]);

  it("uses the flow's own intents, with keywords folded into words", () => {
    const p = buildFlowProfile(flow!);
    expect(p.intents).toEqual(["conversation"]);
    expect(p.primaryIntentIndex).toBe(INTENTS.indexOf("conversation"));
    expect([...p.keywords].sort()).toEqual(["policy", "refund"]);
  });
  it("infers intents when the flow declares none", () => {
    const [bare] = toFlows("lf", "langflow", [{ id: "x", name: "Knowledge base search", description: "RAG over the wiki" }]);
    expect(buildFlowProfile(bare!).intents[0]).toBe("rag-retrieval");
  });
  it("detects general-purpose flows by name", () => {
    expect(looksGeneralPurpose({ name: "General Assistant" })).toBe(true);
    expect(looksGeneralPurpose({ name: "SQL helper" })).toBe(false);
  });
});
