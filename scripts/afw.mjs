#!/usr/bin/env node
// `pnpm afw <command>` in the repository: runs the built `afw` CLI (apps/gateway/dist/cli.js). On a
// fresh clone, builds the JavaScript of the gateway and its workspace dependencies first
// (`pnpm build:js`: tsup without type declarations, a few seconds), so no full build is needed.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "apps/gateway/dist/cli.js");
const built = [cli, ...readdirSync(join(root, "packages")).map((dir) => join(root, "packages", dir, "dist/index.js"))].every((file) => existsSync(file));
if (!built) {
  process.stderr.write("afw: building the gateway's JavaScript first (pnpm build:js)\n");
  // stdout stays clean for the command's own output (JSON lines, --version).
  execFileSync("pnpm", ["run", "--silent", "build:js"], { cwd: root, stdio: ["ignore", 2, 2] });
}
process.argv.splice(1, 1, cli);
await import(pathToFileURL(cli).href);
