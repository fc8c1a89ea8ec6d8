import { PassThrough, Readable } from "node:stream";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CommandIo } from "./io.js";
import { toolsSearchCommand } from "./tools-search.js";
import { GatewayConfigSchema } from "@afw/server";
import { classifyCommand } from "./classify.js";
import { exportTrainingCommand } from "./export-training.js";

function testIo(input: string): CommandIo & { output(): unknown[]; errors: string[] } {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on("data", (c: Buffer) => chunks.push(c));
  const errors: string[] = [];
  return {
    stdin: Readable.from([input]),
    stdout,
    errors,
    log: () => {},
    fail: (message) => {
      errors.push(message);
      return 2;
    },
    output: () =>
      Buffer.concat(chunks)
        .toString("utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
}

const catalog = {
  tools: [
    { id: "github/merge_pull_request", server: "github", name: "merge_pull_request", description: "Merge a pull request in a GitHub repository", inputSchema: { type: "object", properties: { owner: { type: "string" }, pullNumber: { type: "number" } } } },
    { id: "slack/slack_post_message", server: "slack", name: "slack_post_message", description: "Post a new message to a Slack channel", inputSchema: { type: "object", properties: { channel_id: { type: "string" }, text: { type: "string" } } } },
    { id: "time/get_current_time", server: "time", name: "get_current_time", description: "Get current time in a specific timezone", inputSchema: { type: "object", properties: { timezone: { type: "string" } } } },
  ],
};

describe("afw tools search", () => {
  const dir = mkdtempSync(join(tmpdir(), "afw-cli-"));
  const file = join(dir, "catalog.json");
  writeFileSync(file, JSON.stringify(catalog));

  it("answers each JSON line with ranked tool ids, and keeps going after bad lines", async () => {
    const io = testIo(
      [
        JSON.stringify({ id: "a", query: "merge PR 12 of my repo" }),
        "not json",
        JSON.stringify({ id: "b", query: "" }),
        JSON.stringify({ id: "c", query: "tell the team in the slack channel that we shipped" }),
      ].join("\n"),
    );
    const code = await toolsSearchCommand({ catalog: file, mode: "keyword", topK: 2, embeddingCache: join(dir, "cache.json") }, io);
    expect(code).toBe(0);
    const out = io.output() as Array<{ id: unknown; results?: string[]; error?: string }>;
    expect(out).toHaveLength(4);
    expect(out[0]).toMatchObject({ id: "a" });
    expect(out[0]!.results![0]).toBe("github/merge_pull_request");
    expect(out[0]!.results!.length).toBeLessThanOrEqual(2);
    expect(out[1]!.error).toMatch(/not valid JSON/);
    expect(out[2]).toMatchObject({ id: "b" });
    expect(out[2]!.error).toMatch(/query/);
    expect(out[3]!.results![0]).toBe("slack/slack_post_message");
  });

  it("rejects a bad mode, top-k or missing catalog with a usage error", async () => {
    expect(await toolsSearchCommand({ catalog: file, mode: "fuzzy", topK: 5 }, testIo(""))).toBe(2);
    expect(await toolsSearchCommand({ catalog: file, mode: "keyword", topK: 0 }, testIo(""))).toBe(2);
    const io = testIo("");
    expect(await toolsSearchCommand({ catalog: join(dir, "missing.json"), mode: "keyword", topK: 5 }, io)).toBe(2);
    expect(io.errors[0]).toMatch(/not found/);
  });
});

describe("afw classify", () => {
  it("classifies JSON lines and reports bad lines without stopping", async () => {
    const io = testIo(
      [
        JSON.stringify({ id: 1, question: "My Python script throws a KeyError traceback when I read the config dict, how do I debug it?" }),
        JSON.stringify({ id: 2 }),
        JSON.stringify({ id: 3, question: "Convert this CSV export to JSON and drop rows with empty emails" }),
      ].join("\n"),
    );
    expect(await classifyCommand({}, io)).toBe(0);
    const out = io.output() as Array<{ id: unknown; intent?: string; confidence?: number; error?: string }>;
    expect(out.map((o) => o.id)).toEqual([1, 2, 3]);
    expect(out[0]!.intent).toBe("technical-analysis");
    expect(out[0]!.confidence).toBeGreaterThan(0);
    expect(out[0]!.confidence).toBeLessThanOrEqual(1);
    expect(out[1]!.error).toMatch(/question/);
    expect(out[2]!.intent).toBe("data-processing");
  });

  it("classifies one question as the gateway does by default: with the cascade where onnxruntime-node is installed (as here)", { timeout: 60_000 }, async () => {
    const io = testIo("");
    expect(await classifyCommand({ question: "hmm what about the thing from before" }, io)).toBe(0);
    const [out] = io.output() as Array<{ intent: string; cascade?: string }>;
    expect(GatewayConfigSchema.parse({}).routing.classifierEmbedder).toBe("cascade");
    // the static model is unsure of this one: the second model, loaded before the question, answers
    expect(out!.cascade).toBe("escalated");
  });

  it("rejects an empty single question", async () => {
    const io = testIo("");
    expect(await classifyCommand({ question: "   " }, io)).toBe(2);
    expect(io.errors[0]).toMatch(/empty/);
  });
});

describe("afw export-training", () => {
  it("rejects bad options with a usage error naming the option", async () => {
    for (const [options, option] of [[{ limit: "0" }, "--limit"], [{ from: "yesterday" }, "--from"], [{ tenant: "" }, "--tenant"]] as const) {
      const io = testIo("");
      expect(await exportTrainingCommand(options, io)).toBe(2);
      expect(io.errors[0]).toContain(option);
    }
  });

  it("prints nothing but succeeds on in-memory stores (nothing kept yet)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "afw-export-"));
    const config = join(dir, "afw.json");
    writeFileSync(config, JSON.stringify({ logging: { level: "silent" }, routing: { health: { intervalMs: 0 } } }));
    const io = testIo("");
    expect(await exportTrainingCommand({ config, limit: "5" }, io)).toBe(0);
    expect(io.output()).toEqual([]);
  });
});
