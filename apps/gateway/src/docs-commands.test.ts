import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// Every `afw` command the README, the examples and the guides show, run as written from the
// repository root (`afw` on PATH is this build; `pnpm afw` is the root script).
const root = fileURLToPath(new URL("../../../", import.meta.url));
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const documents = ["README.md", "apps/gateway/README.md", "examples/README.md", ...readdirSync(join(root, "docs/guides")).map((f) => `docs/guides/${f}`)].filter((f) => f.endsWith(".md"));

/** Commands of the ```sh blocks whose program (after `VAR=value` assignments and a pipe) is `afw` or `pnpm afw`. */
function documentedCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const lines = block[1]!.replace(/\\\n\s*/g, "").split("\n");
    for (const raw of lines) {
      const line = raw.replace(/\s+#\s.*$/, "").trim();
      if (!line || line.startsWith("#")) continue;
      const last = line.split("|").at(-1)!.trim().replace(/^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+/, "");
      if (/^(?:pnpm\s+)?afw(?:\s|$)/.test(last)) commands.push(line);
    }
  }
  return commands;
}

const bin = mkdtempSync(join(tmpdir(), "afw-docs-bin-"));
writeFileSync(join(bin, "afw"), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
chmodSync(join(bin, "afw"), 0o755);
afterAll(() => rmSync(bin, { recursive: true, force: true }));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs one documented line in bash. `serve` runs until it says it is serving, then gets SIGTERM. */
function run(line: string): Promise<Run> {
  const serving = /\bafw serve\b/.test(line) && !/\s(?:-h|--help)\b/.test(line);
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", line], {
      cwd: root,
      // Port 0: never collide with a gateway already on 8787; no backend the docs name is running here.
      env: { ...process.env, PATH: `${bin}:${process.env["PATH"] ?? ""}`, AFW_HTTP_PORT: "0", FLOWISE_API_KEY: "", LANGFLOW_API_KEY: "" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: serving,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
      // The startup report comes after "serving"; stop once a backend line (or the "none" hint) is out.
      if (serving && /serving MCP on/.test(stderr) && /afw: (backend |no backend is configured)/.test(stderr)) process.kill(-child.pid!, "SIGTERM");
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const cases = documents.flatMap((file) => documentedCommands(readFileSync(join(root, file), "utf8")).map((line) => [file, line] as const));

describe("documented afw commands work as written", () => {
  it("finds the commands of the README, the examples and the guides", () => {
    expect(cases.filter(([file]) => file === "README.md").length).toBeGreaterThanOrEqual(3);
    expect(cases.filter(([file]) => file.startsWith("docs/guides/")).length).toBeGreaterThanOrEqual(5);
    expect(cases.some(([, line]) => line.includes("--config examples/afw.yaml"))).toBe(true);
    expect(cases.some(([, line]) => line.includes("--catalog examples/tools-catalog.json"))).toBe(true);
  });

  it("extracts commands after env assignments and pipes, and skips others", () => {
    const md = "```sh\n# comment\nA=1 B=2 \\\n  afw serve\necho '{}' | pnpm afw classify\nnpx other\nafw demo   # walk-through\n```\n";
    expect(documentedCommands(md)).toEqual(["A=1 B=2 afw serve", "echo '{}' | pnpm afw classify", "afw demo"]);
  });

  it.each(cases)("%s: %s", async (_file, line) => {
    const result = await run(line);
    const output = result.stdout + result.stderr;
    expect(output, line).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/); // no stack trace
    if (/\bafw serve\b/.test(line) && !/\s(?:-h|--help)\b/.test(line)) {
      // Serve: up, then one line per backend (or what to configure), then a clean stop.
      expect(result.stderr).toMatch(/serving MCP on http:\/\/127\.0\.0\.1:\d+\/mcp/);
      expect(result.stderr).toMatch(/afw: (backend \S+ \(\w+\): |no backend is configured: set FLOWISE_BASE_URL)/);
      // `afw serve` exits 0 on SIGTERM; a `pnpm afw serve` wrapper may itself end by the signal.
      if (result.code !== 0) expect({ line, signal: result.signal }).toEqual({ line: expect.stringMatching(/\bpnpm afw\b/), signal: "SIGTERM" });
      if (line.includes("examples/afw.yaml")) expect(result.stderr).toMatch(/backend flowise \(flowise\): unreachable \(.+\): start it, or fix FLOWISE_BASE_URL/);
      return;
    }
    expect(result.code, output).toBe(0);
    expect(result.stdout.trim(), line).not.toBe("");
    if (/\bclassify\b/.test(line)) expect(result.stdout).toMatch(/"intent":"[a-z-]+"/);
    if (/\btools search\b/.test(line)) expect(result.stdout).toMatch(/"results":\["[a-z-]+\/[a-z_-]+"/);
    if (/\bdemo\b/.test(line)) expect(result.stdout).toMatch(/cache hit\s+true/);
    if (/\broute --explain\b/.test(line)) expect(result.stdout).toMatch(/intent/);
  }, 120_000); // each line starts a process that loads the sentence encoder; generous on a loaded machine
});
