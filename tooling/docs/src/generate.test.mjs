import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadGatewayConfig } from "@afw/server";
import { generatedGuides } from "./generate.mjs";
import { propertyRows, typeLabel } from "./render.mjs";

describe("generated guides", () => {
  it.each(Object.entries(generatedGuides()))("docs/guides/%s is up to date (run `pnpm --filter @afw/docs-tooling generate`)", (file, text) => {
    const committed = readFileSync(fileURLToPath(new URL(`../../../docs/guides/${file}`, import.meta.url)), "utf8");
    expect(committed).toBe(text);
  });

  it("documents every trace event type", () => {
    const text = generatedGuides()["trace-events.md"];
    for (const type of ["query-received", "routing-decided", "cache-hit", "downstream-disconnected"]) expect(text).toContain(`### \`${type}\``);
  });

  it("documents every configuration section, list items and environment variables", () => {
    const text = generatedGuides()["configuration.md"];
    for (const key of ["backends[].baseURL", "backends[].flows[].cacheClass", "http.authTokens", "http.rateLimit.requestsPerMinute", "routing.weights.flow_match", "cache.ttlByClass", "sessions.contextTurns", "tools.catalogs", "trace.otlp.endpoint", "redis.url"]) {
      expect(text).toContain(`| \`${key}\` |`);
    }
    expect(text).toMatch(/\| `http\.port` \| integer \|  \| TCP port; 0 picks a free one\. — >= 0, <= 65535, default `8787` \|/);
    expect(text).toMatch(/\| `backends\[\]\.id` \| string \| yes \|/);
    expect(text).toContain("| `AFW_AUTH_TOKENS` |");
  });
});

describe("render", () => {
  it("labels types, enums, unions and arrays", () => {
    expect(typeLabel({ type: "string", enum: ["a", "b"] })).toBe("`a` \\| `b`");
    expect(typeLabel({ type: "array", items: { type: "number" } })).toBe("number[]");
    expect(typeLabel({ anyOf: [{ type: "boolean" }, { const: "semantic" }] })).toBe('boolean \\| `"semantic"`');
  });

  it("flattens nested objects and marks required fields", () => {
    const rows = propertyRows({
      type: "object",
      required: ["a"],
      properties: { a: { type: "object", required: ["b"], properties: { b: { type: "integer", minimum: 1 } } }, c: { type: "string", default: "x" } },
    });
    expect(rows.map((r) => [r.name, r.required])).toEqual([["a", true], ["a.b", true], ["c", false]]);
    expect(rows[1].description).toContain(">= 1");
    expect(rows[2].description).toContain('default `"x"`');
  });
});

describe("hand-written guides agree with the configuration defaults", () => {
  it("caching-and-sessions.md states the default TTLs, context turns and session lifetime", async () => {
    const guide = readFileSync(fileURLToPath(new URL("../../../docs/guides/caching-and-sessions.md", import.meta.url)), "utf8").replace(/\s+/g, " ");
    const { cache, sessions } = await loadGatewayConfig(undefined, {});
    const days = (seconds) => seconds / 86_400;
    expect(guide).toContain(`technical ${days(cache.ttlByClass.technical)} days, creative/strategic ${days(cache.ttlByClass.creative)} days`);
    expect(days(cache.ttlByClass.strategic)).toBe(days(cache.ttlByClass.creative));
    expect(guide).toContain(`volatile/document-QA ${days(cache.ttlByClass.volatile)} day`);
    expect(cache.ttlByClass["document-qa"]).toBe(cache.ttlByClass.volatile);
    expect(guide).toContain(`the last ${sessions.maxTurns} kept, the last ${sessions.contextTurns} sent to the backend`);
    expect(guide).toContain(`sliding ${days(sessions.ttlSeconds)}-day TTL`);
  });
});

describe("README commands", () => {
  const readme = readFileSync(fileURLToPath(new URL("../../../README.md", import.meta.url)), "utf8");
  const ci = readFileSync(fileURLToPath(new URL("../../../.ci/run", import.meta.url)), "utf8");
  const shBlocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trim());

  it(".ci/run's TEST_COMMAND is exactly the README's test command", () => {
    const command = /^TEST_COMMAND='([^']+)'$/m.exec(ci)?.[1];
    expect(command).toMatch(/ test$/);
    expect(shBlocks).toContain(command);
  });

  it("install commands need no global install or root (no `npm install -g`)", () => {
    const install = shBlocks.filter((block) => block.includes("install --frozen-lockfile"));
    expect(install.length).toBeGreaterThanOrEqual(2);
    for (const block of install) expect(block).not.toMatch(/npm (install|i) -g/);
  });
});
