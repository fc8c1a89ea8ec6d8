import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { AfwError, parseOrThrow } from "@afw/contracts";

// The router's configuration files (flow registry, intent patterns, exemplars): YAML or JSON text validated by a zod
// schema, every failure an AfwError CONFIG_INVALID naming what was read.

/**
 * Parses YAML (JSON is YAML) `text` and validates it with `schema`; an empty document counts as `empty`.
 * @throws AfwError `CONFIG_INVALID` when the text is not YAML/JSON or does not fit the schema.
 */
export function parseConfigText<S extends z.ZodType>(text: string, schema: S, what: string, empty: unknown = {}): z.infer<S> {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new AfwError("CONFIG_INVALID", `${what}: not valid YAML or JSON`, { cause: error });
  }
  return parseOrThrow(schema, raw ?? empty, "CONFIG_INVALID", what);
}

/**
 * Reads a configuration file as text.
 * @throws AfwError `CONFIG_INVALID` when it cannot be read.
 */
export async function readConfigFile(path: string | URL, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new AfwError("CONFIG_INVALID", `cannot read ${what} ${String(path)}`, { cause: error });
  }
}
