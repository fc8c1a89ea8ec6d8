// Regenerates packages/contracts/schemas/*.json from the built package (run `pnpm build` first).
import { writeFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { generateJsonSchemas } from "../dist/index.js";

const dir = fileURLToPath(new URL("../schemas/", import.meta.url));
mkdirSync(dir, { recursive: true });
for (const file of readdirSync(dir)) if (file.endsWith(".json")) rmSync(dir + file);
const schemas = generateJsonSchemas();
for (const [name, schema] of Object.entries(schemas)) {
  writeFileSync(`${dir}${name}.json`, JSON.stringify(schema, null, 2) + "\n");
}
console.error(`wrote ${Object.keys(schemas).length} schemas to ${dir}`);
