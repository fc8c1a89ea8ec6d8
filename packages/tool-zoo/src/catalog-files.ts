import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AfwError, ToolDescriptorSchema, WorkflowDescriptorSchema, type ToolDescriptor, type WorkflowDescriptor } from "@afw/contracts";
import { parse as parseYaml } from "yaml";
import { z } from "zod";

// Tool and workflow catalogs read from files, with errors naming the file and the field.

/** A catalog's tools: tool descriptors, each with an optional `id` that must be `server/name`. */
const ToolCatalogSchema = z.object({ tools: z.array(ToolDescriptorSchema.extend({ id: z.string().optional() })) });

/** A field path as `workflows[2].steps[0].action`, after `prefix`. */
function fieldPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const part of path) out += typeof part === "number" ? `[${part}]` : `${out ? "." : ""}${String(part)}`;
  return out || "(root)";
}

function configError(source: string, field: string | undefined, message: string, cause?: unknown): AfwError {
  return new AfwError("CONFIG_INVALID", `${source}: ${field ? `${field}: ` : ""}${message}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { source, ...(field ? { field } : {}) },
  });
}

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
    throw configError(source, fieldPath("", issue.path), issue.message);
  }
  const seen = new Set<string>();
  return parsed.data.tools.map((tool, index) => {
    const id = `${tool.server}/${tool.name}`;
    if (tool.id !== undefined && tool.id !== id) throw configError(source, `tools[${index}].id`, `"${tool.id}" is not server/name ("${id}")`);
    if (seen.has(id)) throw configError(source, `tools[${index}]`, `duplicate tool id "${id}"`);
    seen.add(id);
    const { id: _id, ...descriptor } = tool;
    return descriptor;
  });
}

/**
 * Reads and parses an MCP tool catalog JSON file (see {@link parseToolCatalog}).
 *
 * @example
 * ```ts
 * await index.add(loadToolCatalogFile("../shared/data/tools-catalog.json"));
 * ```
 * @throws AfwError `CONFIG_INVALID` when the file cannot be read, is not JSON, or is invalid.
 */
export function loadToolCatalogFile(path: string): ToolDescriptor[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw configError(path, undefined, "cannot read the tool catalog", error);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw configError(path, undefined, `not valid JSON (${(error as Error).message})`, error);
  }
  return parseToolCatalog(json, path);
}

/** Validates one workflow, a list of them or `{ workflows: [...] }` read from `source`. */
function parseWorkflowCatalog(value: unknown, source: string): WorkflowDescriptor[] {
  const list = Array.isArray(value) ? value : (value as { workflows?: unknown } | null)?.workflows;
  const items = Array.isArray(list) ? list : typeof value === "object" && value !== null ? [value] : undefined;
  if (!items) throw configError(source, undefined, "expected a workflow, a list of workflows or { workflows: [...] }");
  const prefix = (i: number) => (Array.isArray(value) ? `[${i}]` : Array.isArray(list) ? `workflows[${i}]` : "");
  return items.map((item, index) => {
    const parsed = WorkflowDescriptorSchema.safeParse(item);
    if (!parsed.success) throw configError(source, fieldPath(prefix(index), parsed.error.issues[0]!.path), parsed.error.issues[0]!.message);
    return parsed.data;
  });
}

/**
 * Loads workflows from YAML or JSON files (or directories of them, read in name order), validating
 * each record and rejecting duplicate `workflow_id@version` pairs.
 *
 * @example
 * ```ts
 * const workflows = loadWorkflowCatalog([exampleCatalogDir()]);
 * ```
 * @throws AfwError `CONFIG_INVALID` naming the file and field on any invalid record, unreadable
 *   file or duplicate.
 */
export function loadWorkflowCatalog(paths: readonly string[]): WorkflowDescriptor[] {
  const out: WorkflowDescriptor[] = [];
  const seen = new Map<string, string>();
  for (const path of paths) {
    let files: string[];
    try {
      files = statSync(path).isDirectory()
        ? readdirSync(path)
            .filter((name) => /\.(ya?ml|json)$/i.test(name))
            .sort()
            .map((name) => join(path, name))
        : [path];
    } catch (error) {
      throw configError(path, undefined, "cannot read workflow catalog", error);
    }
    for (const file of files) {
      let value: unknown;
      try {
        const text = readFileSync(file, "utf8");
        value = extname(file).toLowerCase() === ".json" ? JSON.parse(text) : parseYaml(text);
      } catch (error) {
        throw configError(file, undefined, `cannot parse (${(error as Error).message.split("\n")[0]})`, error);
      }
      for (const workflow of parseWorkflowCatalog(value, file)) {
        const key = `${workflow.workflow_id}@${workflow.version}`;
        const previous = seen.get(key);
        if (previous) throw configError(file, "workflow_id", `duplicate ${key} (also in ${previous})`);
        seen.set(key, file);
        out.push(workflow);
      }
    }
  }
  return out;
}

/**
 * The directory of the example catalog shipped with the package: Kubernetes remediation
 * playbooks (OOMKilled, CrashLoopBackOff, ImagePullBackOff, node pressure, certificate expiry, …).
 *
 * @example
 * ```ts
 * const catalog = await createWorkflowCatalog({ embedder, workflows: loadWorkflowCatalog([exampleCatalogDir()]) });
 * ```
 */
export function exampleCatalogDir(): string {
  return fileURLToPath(new URL("../catalog/", import.meta.url));
}
