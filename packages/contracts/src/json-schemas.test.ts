import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { generateJsonSchemas } from "./index.js";

const dir = fileURLToPath(new URL("../schemas/", import.meta.url));

describe("committed JSON Schemas", () => {
  const generated = generateJsonSchemas();

  it("has exactly one file per published schema", () => {
    const files = readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => f.replace(/\.json$/, "")).sort();
    expect(files).toEqual(Object.keys(generated).sort());
  });

  it.each(Object.keys(generated))("%s.json matches the zod schema (run `pnpm --filter @afw/contracts schemas` after changing a schema)", (name) => {
    const committed = JSON.parse(readFileSync(`${dir}${name}.json`, "utf8"));
    expect(committed).toEqual(generated[name as keyof typeof generated]);
  });

  it("the trace-event schema has one branch per event type", () => {
    const schema = generated["trace-event"] as { oneOf?: unknown[]; anyOf?: unknown[] };
    expect((schema.oneOf ?? schema.anyOf ?? []).length).toBeGreaterThanOrEqual(25);
  });
});
