import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AfwError } from "@afw/contracts";
import { afterAll, describe, expect, it } from "vitest";
import { loadToolCatalogFile, parseToolCatalog } from "./catalog-files.js";

const dir = mkdtempSync(join(tmpdir(), "afw-tc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configError(run: () => unknown): AfwError {
  try {
    run();
  } catch (error) {
    if (AfwError.isInstance(error) && error.code === "CONFIG_INVALID") return error;
    throw error;
  }
  throw new Error("expected CONFIG_INVALID");
}

describe("tool catalog loader", () => {
  it("parses the MCP catalog format into descriptors", () => {
    const tools = parseToolCatalog({
      version: 1,
      tools: [{ id: "git/git_add", server: "git", name: "git_add", description: "Stage files", inputSchema: { type: "object", properties: { files: { type: "array" } } } }],
    });
    expect(tools).toEqual([
      { server: "git", name: "git_add", description: "Stage files", inputSchema: { type: "object", properties: { files: { type: "array" } } }, tags: [] },
    ]);
  });

  it("names the source and the field of a bad tool", () => {
    const error = configError(() => parseToolCatalog({ tools: [{ server: "a", name: "b" }, { name: "c" }] }, "cat.json"));
    expect(error.message).toMatch(/^cat\.json: tools\[1\]\.server: /);
    expect(error.details).toMatchObject({ source: "cat.json", field: "tools[1].server" });
  });

  it("rejects inconsistent and duplicate ids", () => {
    expect(configError(() => parseToolCatalog({ tools: [{ id: "x/y", server: "a", name: "b" }] })).message).toMatch(/tools\[0\]\.id/);
    expect(configError(() => parseToolCatalog({ tools: [{ server: "a", name: "b" }, { server: "a", name: "b" }] })).message).toMatch(/duplicate tool id "a\/b"/);
  });

  it("reports unreadable and non-JSON files by path", () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{ nope");
    expect(configError(() => loadToolCatalogFile(bad)).message).toMatch(/bad\.json: not valid JSON/);
    expect(configError(() => loadToolCatalogFile(join(dir, "missing.json"))).message).toMatch(/missing\.json: cannot read/);
    const good = join(dir, "good.json");
    writeFileSync(good, JSON.stringify({ tools: [{ server: "s", name: "t" }] }));
    expect(loadToolCatalogFile(good).map((t) => `${t.server}/${t.name}`)).toEqual(["s/t"]);
  });
});
