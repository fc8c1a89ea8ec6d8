import { ERROR_CODES } from "@afw/contracts";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { parseResult, startTestGateway } from "../test/helpers.js";

// Property-based fuzzing of every MCP tool's arguments through a real MCP client (in-memory
// linked transports). Whatever the arguments, a call answers either a legitimate success or an
// isError result with a typed code — INVALID_INPUT whenever the tool's schema refuses them — and
// never an INTERNAL error, an unhandled rejection, an uncaught exception or a hang.

const RUNS_PER_TOOL = Number(process.env["AFW_FUZZ_RUNS"] ?? 40);
const CALL_TIMEOUT_MS = 20_000;

type Started = Awaited<ReturnType<typeof startTestGateway>>;
let started: Started;
let tools: Tool[];
const unexpected: unknown[] = [];
const onUnexpected = (error: unknown) => unexpected.push(error);

beforeAll(async () => {
  process.on("unhandledRejection", onUnexpected);
  process.on("uncaughtException", onUnexpected);
  started = await startTestGateway({
    backends: [
      createFakeBackend({ id: "flowise-a", kind: "flowise", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] }),
      createFakeBackend({ id: "langflow-b", kind: "langflow", flows: [{ id: "rag", intents: ["rag-retrieval"] }] }),
    ],
    config: { routing: { classifierEmbedder: "hashing" } },
  });
  tools = (await started.client.listTools()).tools;
});
afterAll(async () => {
  await started.close();
  process.off("unhandledRejection", onUnexpected);
  process.off("uncaughtException", onUnexpected);
});

/** Any JSON value, small. */
const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.string({ maxLength: 40 }),
    fc.string({ unit: "grapheme", maxLength: 20 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 12 }), tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** Strings that mean something to the gateway (ids, kinds, globs, intents) mixed with noise. */
const plausibleString = fc.oneof(
  fc.constantFrom("flowise", "langflow", "flowise-a", "langflow-b", "flowise-a:chat", "chat", "*", "team-*", "conversation", "rag-retrieval", "auto", "shared", "session", "s-1", "1.0.0", ""),
  fc.string({ maxLength: 60 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }),
  fc.constantFrom("<script>alert(1)</script>", "'; DROP TABLE flows; --", "../../etc/passwd", "\u0000\uFFFF\uD800", "${HOME}", "http://169.254.169.254/latest"),
);

type JsonSchema = { type?: string | string[]; enum?: unknown[]; items?: JsonSchema; properties?: Record<string, JsonSchema>; anyOf?: JsonSchema[]; minimum?: number; maximum?: number };

/** A value shaped by a property's JSON Schema most of the time, anything some of the time. */
function valueFor(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 2) return anyJson;
  const typed: fc.Arbitrary<unknown>[] = [];
  if (schema.enum) typed.push(fc.constantFrom(...schema.enum));
  for (const option of schema.anyOf ?? []) typed.push(valueFor(option, depth + 1));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  for (const type of types) {
    if (type === "string") typed.push(plausibleString, plausibleString, plausibleString);
    else if (type === "integer") typed.push(fc.integer({ min: -5, max: 300 }), fc.integer());
    else if (type === "number") typed.push(fc.double({ min: -1, max: 200, noNaN: true }), fc.double());
    else if (type === "boolean") typed.push(fc.boolean());
    else if (type === "array") typed.push(fc.array(valueFor(schema.items, depth + 1), { maxLength: 4 }));
    else if (type === "object") typed.push(argumentsFor(schema, depth + 1));
  }
  return typed.length === 0 ? anyJson : fc.oneof({ weight: 12, arbitrary: fc.oneof(...typed) }, { weight: 1, arbitrary: anyJson });
}

/** Arguments for a tool: its required and some optional properties (mostly typed), rarely extra keys. */
function argumentsFor(schema: JsonSchema & { required?: string[] }, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    const value = valueFor(property, depth);
    // A required property is left out 1 time in 10.
    record[name] = required.has(name) ? fc.oneof({ weight: 9, arbitrary: value }, { weight: 1, arbitrary: fc.constant(OMIT) }) : value;
  }
  const declared = Object.keys(record).length > 0 ? fc.record(record, { requiredKeys: [...required].filter((k) => k in record) }) : fc.constant({});
  const extra = fc.oneof({ weight: 8, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), anyJson, { minKeys: 1, maxKeys: 2 }) });
  return fc.tuple(declared, extra).map(([known, unknown]) => {
    const args: Record<string, unknown> = { ...unknown };
    for (const [key, value] of Object.entries(known)) if (value !== OMIT) args[key] = value;
    return args;
  });
}

const OMIT = Symbol("omit");

/** Arguments that are mostly valid, per tool, so the fuzzer gets past validation into the tools. */
const question = fc.oneof(fc.string({ minLength: 1, maxLength: 200 }), fc.string({ unit: "grapheme", minLength: 1, maxLength: 80 }), plausibleString).filter((q) => q.trim().length > 0);
const sessionId = fc.stringMatching(/^[A-Za-z0-9._:@-]{1,40}$/);
const intent = fc.constantFrom("auto", "conversation", "rag-retrieval", "technical-analysis");
const backend = fc.constantFrom("auto", "flowise", "langflow", "flowise-a", "langflow-b", "nope");
const VALID: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  universal_query: fc.record(
    {
      question,
      session_id: sessionId,
      intent,
      backend,
      flow_id: fc.constantFrom("chat", "flowise-a:chat", "langflow-b:rag", "missing"),
      parameters: fc.record({ temperature: fc.double({ min: 0, max: 2, noNaN: true }), max_tokens: fc.integer({ min: 1, max: 1000 }), stream: fc.boolean() }, { requiredKeys: [] }),
      timeout: fc.integer({ min: 1, max: 120 }),
    },
    { requiredKeys: ["question"] },
  ),
  flowise_query: fc.record({ question, chatflow_id: fc.constantFrom("chat", "flowise-a:chat", "x"), session_id: sessionId }, { requiredKeys: ["question"] }),
  explain_routing: fc.record({ question, intent, backend }, { requiredKeys: ["question"] }),
  list_sessions: fc.record({ pattern: fc.constantFrom("*", "s-*", "?", "[", "**"), limit: fc.integer({ min: 1, max: 100 }) }, { requiredKeys: [] }),
  get_session: fc.record({ session_id: sessionId, turns: fc.integer({ min: 1, max: 10 }) }, { requiredKeys: ["session_id"] }),
  clear_cache: fc.oneof(fc.record({ flow_id: fc.constantFrom("flowise-a:chat", "x") }), fc.record({ session_id: sessionId }), fc.record({ scope: fc.constantFrom("shared", "session") }), fc.constant({ all: true })),
  search_tools: fc.record({ query: question, top_k: fc.integer({ min: 1, max: 50 }), mode: fc.constantFrom("hybrid", "keyword", "semantic") }, { requiredKeys: ["query"] }),
  search_workflow_catalog: fc.record({ query: question }),
  backend_connect: fc.record({
    id: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
    kind: fc.constantFrom("flowise", "langflow"),
    baseURL: fc.constantFrom("http://169.254.169.254", "http://10.0.0.1", "https://example.com", "http://[::1]:3000", "http://2130706433"),
  }),
  record_feedback: fc.record({ session_id: sessionId, rating: fc.double({ min: -1, max: 1, noNaN: true }), turn: fc.integer({ min: 1, max: 5 }) }, { requiredKeys: ["session_id", "rating"] }),
};

export const outcomes: Record<string, number> = {};
async function callAndCheck(name: string, args: unknown): Promise<void> {
  const result = await started.client.callTool({ name, arguments: args as Record<string, unknown> }, undefined, { timeout: CALL_TIMEOUT_MS });
  const parsed = parseResult(result);
  const key = `${name}:${parsed.isError ? String(parsed.body["code"]) : "ok"}`;
  outcomes[key] = (outcomes[key] ?? 0) + 1;
  if (process.env["AFW_FUZZ_REPORT"] && parsed.isError && outcomes[key] <= 3) console.log(key, parsed.text.slice(0, 300));
  if (!parsed.isError) return;
  const code = parsed.body["code"];
  expect(ERROR_CODES, `${name}: ${parsed.text.slice(0, 300)}`).toContain(code);
  expect(code, `${name}: ${parsed.text.slice(0, 300)}`).not.toBe("INTERNAL");
  const gatewayTool = started.gateway.tools.find((t) => t.name === name);
  if (gatewayTool && !gatewayTool.schema.safeParse(args ?? {}).success) expect(code, `${name} refused by its schema`).toBe("INVALID_INPUT");
}

describe("fuzzing every MCP tool's arguments", () => {
  it("lists the tools to fuzz", () => {
    expect(tools.length).toBeGreaterThanOrEqual(14);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["universal_query", "backend_connect", "clear_cache", "explain_routing", "search_tools"]));
  });

  it("answers typed results for schema-shaped and random arguments of every tool", { timeout: 600_000 }, async () => {
    for (const tool of tools) {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            { weight: 4, arbitrary: VALID[tool.name] ?? argumentsFor(tool.inputSchema as JsonSchema) },
            { weight: 4, arbitrary: argumentsFor(tool.inputSchema as JsonSchema) },
            { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 3 }) },
          ),
          (args) =>
          callAndCheck(tool.name, args),
        ),
        { numRuns: RUNS_PER_TOOL, seed: Number(process.env["AFW_FUZZ_SEED"] ?? 20261122), endOnFailure: true },
      );
    }
    if (process.env["AFW_FUZZ_REPORT"]) console.log(outcomes);
    expect(unexpected).toEqual([]);
  });

  it("answers TOOL_NOT_FOUND for unknown tool names, -32602 for non-object arguments", { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (name) => {
        fc.pre(!tools.some((t) => t.name === name));
        const parsed = parseResult(await started.client.callTool({ name, arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS }));
        expect(parsed.isError).toBe(true);
        expect(parsed.body["code"]).toBe("TOOL_NOT_FOUND");
        expect(parsed.text.length).toBeLessThan(2_000);
      }),
      { numRuns: 40, seed: 7 },
    );
    for (const tool of tools) {
      for (const args of [[], "text", 42, null]) {
        const error = await started.client.callTool({ name: tool.name, arguments: args as never }, undefined, { timeout: CALL_TIMEOUT_MS }).then(
          () => undefined,
          (e: unknown) => e as { code?: number; message?: string },
        );
        expect(error?.code, `${tool.name}(${JSON.stringify(args)})`).toBe(-32602);
        expect(error?.message).toBe(`MCP error -32602: Invalid arguments for tool ${tool.name}: "arguments" must be an object`);
      }
    }
    expect(unexpected).toEqual([]);
  });

  it("refuses huge and deeply nested arguments with INVALID_INPUT (limits before work)", { timeout: 120_000 }, async () => {
    const huge = "q".repeat(10 * 1024 * 1024);
    let deep: unknown = "bottom";
    for (let i = 0; i < 5_000; i++) deep = { nested: [deep] };
    for (const tool of tools) {
      for (const args of [{ question: huge, query: huge, pattern: huge, session_id: huge, flow_id: huge }, { question: "q", parameters: deep, filters: deep, labels: deep }]) {
        const parsed = parseResult(await started.client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS }));
        expect(parsed.isError, tool.name).toBe(true);
        expect(parsed.body["code"], `${tool.name}: ${parsed.text.slice(0, 200)}`).toBe("INVALID_INPUT");
        expect(parsed.text.length, tool.name).toBeLessThan(20_000); // the huge value is not echoed back
      }
    }
    expect(unexpected).toEqual([]);
  });
});
