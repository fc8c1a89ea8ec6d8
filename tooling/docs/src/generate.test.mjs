import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
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
    expect(rows[2].description).toContain('default "x"');
  });
});
