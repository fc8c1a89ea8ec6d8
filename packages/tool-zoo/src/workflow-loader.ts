import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AfwError, WorkflowDescriptorSchema, type WorkflowDescriptor } from "@afw/contracts";
import { parse as parseYaml } from "yaml";

function issuePath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const part of path) out += typeof part === "number" ? `[${part}]` : `${out ? "." : ""}${String(part)}`;
  return out || "(root)";
}

/**
 * Validates workflow records read from `source` (a file name used in messages). Accepts one
 * workflow, an array of workflows, or `{ workflows: [...] }`.
 *
 * @example
 * ```ts
 * parseWorkflowCatalog({ workflows: [record] }, "catalog.yaml")
 * ```
 * @throws AfwError `CONFIG_INVALID` naming the source and the field, e.g.
 *   `catalog.yaml: workflows[2].steps[0].action: Invalid input: expected string, received undefined`.
 */
export function parseWorkflowCatalog(value: unknown, source: string): WorkflowDescriptor[] {
  let items: unknown[];
  let prefix: (index: number) => string;
  if (Array.isArray(value)) {
    items = value;
    prefix = (i) => `[${i}]`;
  } else if (typeof value === "object" && value !== null && Array.isArray((value as Record<string, unknown>)["workflows"])) {
    items = (value as { workflows: unknown[] }).workflows;
    prefix = (i) => `workflows[${i}]`;
  } else if (typeof value === "object" && value !== null) {
    items = [value];
    prefix = () => "";
  } else {
    throw new AfwError("CONFIG_INVALID", `${source}: expected a workflow, a list of workflows or { workflows: [...] }`, {
      details: { source },
    });
  }
  return items.map((item, index) => {
    const parsed = WorkflowDescriptorSchema.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issuePath(prefix(index), issue.path);
      throw new AfwError("CONFIG_INVALID", `${source}: ${field}: ${issue.message}`, { details: { source, field } });
    }
    return parsed.data;
  });
}

function filesOf(path: string): string[] {
  if (statSync(path).isDirectory()) {
    return readdirSync(path)
      .filter((name) => /\.(ya?ml|json)$/i.test(name))
      .sort()
      .map((name) => join(path, name));
  }
  return [path];
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
      files = filesOf(path);
    } catch (error) {
      throw new AfwError("CONFIG_INVALID", `${path}: cannot read workflow catalog`, { cause: error, details: { source: path } });
    }
    for (const file of files) {
      let value: unknown;
      try {
        const text = readFileSync(file, "utf8");
        value = extname(file).toLowerCase() === ".json" ? JSON.parse(text) : parseYaml(text);
      } catch (error) {
        throw new AfwError("CONFIG_INVALID", `${file}: cannot parse (${(error as Error).message.split("\n")[0]})`, {
          cause: error,
          details: { source: file },
        });
      }
      for (const workflow of parseWorkflowCatalog(value, file)) {
        const key = `${workflow.workflow_id}@${workflow.version}`;
        const previous = seen.get(key);
        if (previous) {
          throw new AfwError("CONFIG_INVALID", `${file}: workflow_id: duplicate ${key} (also in ${previous})`, {
            details: { source: file, field: "workflow_id" },
          });
        }
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
