import { readFileSync } from "node:fs";
import { AfwError, ToolDescriptorSchema, type ToolDescriptor } from "@afw/contracts";
import { z } from "zod";

const CatalogToolSchema = z.object({
  id: z.string().optional(),
  server: z.string().min(1),
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().default(""),
  inputSchema: z.record(z.string(), z.unknown()).default({ type: "object" }),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.string()).default([]),
});

const ToolCatalogSchema = z.object({ tools: z.array(CatalogToolSchema) });

/**
 * Parses an MCP tool catalog (`{ "tools": [{ id?, server, name, description, inputSchema, tags? }] }`,
 * the format of `tools-catalog.json`) into tool descriptors. `source` names the file in errors.
 *
 * @example
 * ```ts
 * parseToolCatalog({ tools: [{ server: "git", name: "git_add", description: "Stage files" }] })
 * ```
 * @throws AfwError `CONFIG_INVALID` naming the source and the field (`tools[3].server`), or a
 *   duplicate or inconsistent id.
 */
export function parseToolCatalog(value: unknown, source = "tool catalog"): ToolDescriptor[] {
  const parsed = ToolCatalogSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("").replace(/^\./, "");
    throw new AfwError("CONFIG_INVALID", `${source}: ${path || "(root)"}: ${issue.message}`, {
      details: { source, field: path },
    });
  }
  const seen = new Set<string>();
  return parsed.data.tools.map((tool, index) => {
    const id = `${tool.server}/${tool.name}`;
    if (tool.id !== undefined && tool.id !== id) {
      throw new AfwError("CONFIG_INVALID", `${source}: tools[${index}].id: "${tool.id}" is not server/name ("${id}")`, {
        details: { source, field: `tools[${index}].id` },
      });
    }
    if (seen.has(id)) {
      throw new AfwError("CONFIG_INVALID", `${source}: tools[${index}]: duplicate tool id "${id}"`, {
        details: { source, field: `tools[${index}]` },
      });
    }
    seen.add(id);
    const { id: _id, ...descriptor } = tool;
    return ToolDescriptorSchema.parse(descriptor);
  });
}

/**
 * Reads and parses an MCP tool catalog JSON file (see {@link parseToolCatalog}).
 *
 * @example
 * ```ts
 * const tools = loadToolCatalogFile("../shared/data/tools-catalog.json");
 * await index.add(tools);
 * ```
 * @throws AfwError `CONFIG_INVALID` when the file cannot be read, is not JSON, or is invalid.
 */
export function loadToolCatalogFile(path: string): ToolDescriptor[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new AfwError("CONFIG_INVALID", `${path}: cannot read the tool catalog`, { cause: error, details: { source: path } });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AfwError("CONFIG_INVALID", `${path}: not valid JSON (${(error as Error).message})`, { cause: error, details: { source: path } });
  }
  return parseToolCatalog(json, path);
}
