import { describe, expect, it } from "vitest";
import { inferFlowIntents } from "./flow-inference.js";

describe("inferFlowIntents", () => {
  it("infers intents from the name, tags and description", () => {
    expect(inferFlowIntents({ name: "Docs QA", tags: ["rag"] }).intents[0]).toBe("rag-retrieval");
    expect(inferFlowIntents({ name: "Code Reviewer", description: "debug TypeScript errors" }).intents[0]).toBe("technical-analysis");
    expect(inferFlowIntents({ name: "System Design Coach" }).intents[0]).toBe("structural-thinking");
    expect(inferFlowIntents({ name: "Story Writer" }).intents[0]).toBe("creative-orientation");
    expect(inferFlowIntents({ name: "CSV Cleaner", tags: ["etl"] }).intents[0]).toBe("data-processing");
  });

  it("splits camelCase and punctuation", () => {
    expect(inferFlowIntents({ name: "pdfKnowledgeBot" }).intents).toContain("rag-retrieval");
  });

  it("falls back to a general-purpose conversation flow", () => {
    const inference = inferFlowIntents({ name: "Untitled 7" });
    expect(inference.intents).toEqual(["conversation"]);
    expect(inference.generalPurpose).toBe(true);
    expect(inferFlowIntents({ name: "Docs QA" }).generalPurpose).toBe(false);
  });

  it("marks a flow that names itself a catch-all as general-purpose, whatever else it names", () => {
    expect(inferFlowIntents({ name: "Default RAG" }).generalPurpose).toBe(true);
    expect(inferFlowIntents({ name: "docs-qa", tags: ["catch-all"] }).generalPurpose).toBe(true);
    expect(inferFlowIntents({ name: "Coding Assistant" }).generalPurpose).toBe(false);
    expect(inferFlowIntents({ name: "Catch up on sales data" }).generalPurpose).toBe(false);
  });

  it("derives capabilities from flow type and node hints", () => {
    expect(inferFlowIntents({ name: "x", flowType: "AGENTFLOW" }).capabilities).toContain("agent");
    expect(inferFlowIntents({ name: "x", flowType: "ASSISTANT" }).capabilities).toEqual(expect.arrayContaining(["agent", "tools"]));
    const hinted = inferFlowIntents({ name: "Helper", nodeHints: ["Vector Stores", "Memory", "Tools"] });
    expect(hinted.capabilities).toEqual(expect.arrayContaining(["rag", "memory", "tools"]));
    expect(hinted.intents).toContain("rag-retrieval");
  });

  it("ranks the strongest signal first", () => {
    const inference = inferFlowIntents({ name: "SQL report builder", description: "chat about data" });
    expect(inference.intents[0]).toBe("data-processing");
    expect(inference.keywords).toEqual(expect.arrayContaining(["sql", "report"]));
  });
});
