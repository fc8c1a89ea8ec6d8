// Writes the generated reference guides into docs/guides/.
import { writeFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { generateJsonSchemas } from "@afw/contracts";
import { CONFIG_ENV_VARIABLES, GatewayConfigSchema } from "@afw/server";
import { renderConfigReference, renderTraceEventReference } from "./render.mjs";

export function generatedGuides() {
  const schemas = generateJsonSchemas();
  return { "trace-events.md": renderTraceEventReference(schemas["trace-event"]), "configuration.md": renderConfigReference(GatewayConfigSchema.toJSONSchema({ io: "input", unrepresentable: "any" }), CONFIG_ENV_VARIABLES) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = fileURLToPath(new URL("../../../docs/guides/", import.meta.url));
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(generatedGuides())) {
    writeFileSync(dir + file, text);
    console.error(`wrote docs/guides/${file}`);
  }
}
