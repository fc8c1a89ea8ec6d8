import { z } from "zod";
import { CONFIG_ENV_VARIABLES } from "./config-loader.js";
import { GatewayConfigSchema } from "./config-schema.js";

type JsonSchema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  format?: string;
  minimum?: number;
  maximum?: number;
  pattern?: string;
};

/** One row of the configuration reference. */
export interface ConfigReferenceRow {
  /** Dotted key, with `[]` for list items and `<key>` for map entries, e.g. `backends[].flows[].intents`. */
  key: string;
  /** Readable type, e.g. `string (uri)`, `integer 0..65535`, `"a" \| "b"`. */
  type: string;
  /** Whether the key must be present (in its parent). */
  required: boolean;
  /** Default as JSON, when there is one. */
  default?: string;
  /** Description from the schema. */
  description: string;
}

function typeOf(schema: JsonSchema): string {
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.map(typeOf).join(" \\| ");
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" \\| ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const type = Array.isArray(schema.type) ? schema.type.join(" \\| ") : (schema.type ?? "any");
  if (type === "array") return `list of ${schema.items ? typeOf(schema.items) : "any"}`;
  if (type === "object" && !schema.properties && schema.additionalProperties && typeof schema.additionalProperties === "object") {
    const keys = schema.propertyNames?.enum ? `${schema.propertyNames.enum.map((v) => JSON.stringify(v)).join("/")} → ` : "";
    return `map ${keys}${typeOf(schema.additionalProperties)}`;
  }
  let text = type;
  if (schema.format) text += ` (${schema.format})`;
  if (schema.minimum !== undefined || schema.maximum !== undefined) text += ` ${schema.minimum ?? ""}..${schema.maximum ?? ""}`;
  return text;
}

function walk(schema: JsonSchema, key: string, required: boolean, rows: ConfigReferenceRow[]): void {
  if (key) {
    rows.push({
      key,
      type: typeOf(schema),
      required,
      ...(schema.default === undefined ? {} : { default: JSON.stringify(schema.default) }),
      description: schema.description ?? "",
    });
  }
  const objects: JsonSchema[] = [];
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) objects.push(...variants.filter((v) => v.properties));
  if (schema.properties) objects.push(schema);
  for (const object of objects) {
    for (const [name, child] of Object.entries(object.properties ?? {})) {
      walk(child, key ? `${key}.${name}` : name, object.required?.includes(name) ?? false, rows);
    }
  }
  const items = schema.items ?? variants?.find((v) => v.items)?.items;
  if (items) {
    const itemObjects = [items, ...(items.anyOf ?? items.oneOf ?? [])].filter((v) => v.properties);
    for (const object of itemObjects) {
      for (const [name, child] of Object.entries(object.properties ?? {})) {
        walk(child, `${key}[].${name}`, object.required?.includes(name) ?? false, rows);
      }
    }
  }
}

/** The rows of the configuration reference, derived from {@link GatewayConfigSchema} (so the docs can never drift from the validator). */
export function configReferenceRows(): ConfigReferenceRow[] {
  const schema = z.toJSONSchema(GatewayConfigSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const rows: ConfigReferenceRow[] = [];
  walk(schema, "", false, rows);
  return rows;
}

const escapeCell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/**
 * Renders the Markdown configuration reference of the gateway's YAML file: one table of every
 * key (type, default, description) generated from {@link GatewayConfigSchema}, and the
 * environment variables that override it.
 *
 * @example
 * ```ts
 * await writeFile("docs/configuration.md", renderConfigReference());
 * ```
 */
export function renderConfigReference(): string {
  const rows = configReferenceRows();
  const lines = [
    "# Gateway configuration reference",
    "",
    "Generated from `GatewayConfigSchema` (`@afw/server`); do not edit by hand.",
    "Every section is optional. Strings may use `${VAR}` or `${VAR:-default}` to read the environment.",
    "",
    "| Key | Type | Required | Default | Description |",
    "| --- | --- | --- | --- | --- |",
    ...rows.map(
      (row) =>
        `| \`${row.key}\` | ${row.type.replace(/(?<!\\)\|/g, "\\|")} | ${row.required ? "yes" : ""} | ${
          row.default === undefined ? "" : `\`${escapeCell(row.default)}\``
        } | ${escapeCell(row.description)} |`,
    ),
    "",
    "## Environment overrides",
    "",
    "| Variable | Overrides |",
    "| --- | --- |",
    ...Object.entries(CONFIG_ENV_VARIABLES).map(([name, what]) => `| \`${name}\` | ${escapeCell(what)} |`),
    "",
  ];
  return lines.join("\n");
}
