import type { MockFlowDefinition } from "./mock-server.js";

/**
 * A small catalog of flows for demos and benchmarks: one per routing intent (plus a general chat
 * flow and an agentflow), with deterministic answers that name the flow, echo the question and
 * count the session's turns, so a demo shows which flow answered and that memory works. Ids are
 * stable UUIDs; `prefix` (one hex digit) keeps the Flowise and Langflow catalogs apart.
 *
 * @example
 * ```ts
 * const flowise = await startFlowiseServer({ flows: demoFlows("f"), tokenDelayMs: 15 });
 * const langflow = await startLangflowServer({ flows: demoFlows("a"), tokenDelayMs: 15 });
 * ```
 */
export function demoFlows(prefix = "f"): MockFlowDefinition[] {
  const digit = /^[0-9a-f]$/.test(prefix) ? prefix : "f";
  const id = (n: number) => `${digit}0000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  const reply = (flowName: string, style: string) => (input: { question: string; history: Array<{ role: string }> }) =>
    `[${flowName}] ${style} "${input.question}" (turn ${input.history.filter((message) => message.role === "user").length + 1}).`;
  const llm = (nodeId: string) => [{ id: nodeId, label: "ChatOpenAI", name: "chatOpenAI", category: "Chat Models", params: { temperature: 0.7, maxTokens: 512 } }];
  return [
    { id: id(1), name: "General Chat", description: "Friendly everyday conversation", tags: ["chat", "general"], nodes: llm("chatOpenAI_0"), answer: reply("General Chat", "Happy to help with") },
    {
      id: id(2),
      name: "Docs QA",
      description: "Answers from the product documentation and knowledge base, with sources",
      tags: ["rag", "docs"],
      nodes: [...llm("chatOpenAI_0"), { id: "memoryVectorStore_0", label: "In-Memory Vector Store", name: "memoryVectorStore", category: "Vector Stores", params: { topK: 4 } }],
      sources: [{ pageContent: "The gateway routes each question to the best flow.", metadata: { source: "https://docs.example.test/routing", title: "Routing" } }],
      answer: reply("Docs QA", "According to the documentation, here is what I found about"),
    },
    { id: id(3), name: "Code Assistant", description: "Debugging, code review and API usage", tags: ["code", "debug"], nodes: llm("chatOpenAI_0"), answer: reply("Code Assistant", "Let's debug") },
    { id: id(4), name: "System Design Architect", description: "Architecture, system design and planning", tags: ["architecture", "design"], nodes: llm("chatOpenAI_0"), answer: reply("Architect", "A structure for") },
    { id: id(5), name: "Creative Writer", description: "Stories, brainstorming and vision", tags: ["creative", "writing"], nodes: llm("chatOpenAI_0"), answer: reply("Creative Writer", "Imagine") },
    { id: id(6), name: "Data Wrangler", description: "CSV/JSON transformation, SQL and ETL", tags: ["data", "etl", "sql"], nodes: llm("chatOpenAI_0"), streaming: false, answer: reply("Data Wrangler", "Transformed") },
    { id: id(7), name: "Research Agent", description: "Multi-step research with tools", type: "AGENTFLOW", tags: ["agent", "research"], answer: reply("Research Agent", "After researching,") },
  ];
}
