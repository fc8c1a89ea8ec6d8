#!/usr/bin/env node
// Writes examples/tools-catalog.json: the tools of the official MCP reference servers installed from
// npm (the versions pinned in packages/downstream), listed by starting each server over stdio and
// calling tools/list. Descriptions and input schemas are kept as the servers wrote them.
// Run: node scripts/examples-tool-catalog.mjs
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(join(root, "packages/downstream/package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const scratch = mkdtempSync(join(tmpdir(), "afw-catalog-"));
const servers = [
  { server: "everything", pkg: "@modelcontextprotocol/server-everything", args: ["stdio"] },
  { server: "filesystem", pkg: "@modelcontextprotocol/server-filesystem", args: [scratch] },
  { server: "memory", pkg: "@modelcontextprotocol/server-memory", args: [], env: { MEMORY_FILE_PATH: join(scratch, "memory.jsonl") } },
];

const sources = [];
const tools = [];
try {
  for (const { server, pkg, args, env } of servers) {
    const manifestPath = require.resolve(`${pkg}/package.json`);
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    const bin = join(dirname(manifestPath), Object.values(manifest.bin)[0]);
    const client = new Client({ name: "afw-examples", version: "1" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, ...args], env: { PATH: process.env.PATH ?? "", ...env }, stderr: "ignore" }));
    const listed = (await client.listTools()).tools;
    await client.close();
    sources.push({ server, package: `${pkg}@${manifest.version}`, repository: "https://github.com/modelcontextprotocol/servers", license: "MIT", tools: listed.length });
    for (const t of listed) tools.push({ id: `${server}/${t.name}`, server, name: t.name, description: t.description ?? "", inputSchema: t.inputSchema });
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const catalog = { version: 1, description: "Tools of the official MCP reference servers (npm), as their tools/list returns them.", sources, tools };
writeFileSync(join(root, "examples/tools-catalog.json"), `${JSON.stringify(catalog, null, 1)}\n`);
console.error(`wrote examples/tools-catalog.json: ${tools.length} tools from ${sources.length} servers`);
