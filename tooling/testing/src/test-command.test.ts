// `pnpm test` runs every package's tests through turbo. Two turbo defaults break tests whose outcome depends on the
// machine: cached results are replayed (a browser suite skipped for want of Chromium stays "skipped" once it is
// installed), and strict env mode hides every variable not listed (REDIS_URL, AFW_CHROMIUM_PATH... never arrive).
// This reads turbo's resolved configuration and the test sources, so a new variable a test reads fails here until
// turbo.json passes it through. A suite that skips itself must say so in the log: what is missing, how to enable it.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** Variables turbo hands every task in strict mode (https://turbo.build/repo/docs/crafting-your-repository/using-environment-variables). */
const ALWAYS_PASSED = new Set(["PATH", "HOME", "SHELL", "TMPDIR", "TEMP", "TMP", "USER", "LANG", "TZ", "CI", "NODE_OPTIONS"]);
/** Folders whose code runs as a child process with an environment its test builds. */
const SKIPPED_DIRS = new Set(["node_modules", "dist", ".turbo", ".git", "fixtures", "test-output", "coverage"]);
/** Code that test runs read besides `*.test.*` files: shared helpers and harnesses. */
const HELPER_DIRS = ["tooling/testing/src", "tooling/reliability/src/harness"];

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* sourceFiles(join(dir, entry.name));
    } else if (/\.(?:ts|mts|js|mjs)$/.test(entry.name)) yield join(dir, entry.name);
  }
}

function isTestCode(file: string): boolean {
  const path = relative(root, file).split(sep).join("/");
  return /\.test\.[mc]?[jt]s$/.test(path) || /(?:^|\/)test\//.test(path) || HELPER_DIRS.some((d) => path.startsWith(`${d}/`));
}

/** Test files of the repository (not helpers). */
function testFiles(): string[] {
  return ["apps", "packages", "tooling", "bench"].flatMap((top) => [...sourceFiles(join(root, top))]).filter((f) => /\.test\.[mc]?[jt]s$/.test(f));
}

/** Names the repository's test code reads from `process.env` (dot or bracket with a literal name), with one file reading each. */
function variablesReadByTests(): Map<string, string> {
  const found = new Map<string, string>();
  const reads = /process\.env(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*["'`]([A-Za-z_][A-Za-z0-9_]*)["'`]\s*\])/g;
  for (const top of ["apps", "packages", "tooling", "bench"]) {
    for (const file of sourceFiles(join(root, top))) {
      if (!isTestCode(file)) continue;
      for (const m of readFileSync(file, "utf8").matchAll(reads)) {
        const name = m[1] ?? m[2]!;
        if (!found.has(name)) found.set(name, relative(root, file));
      }
    }
  }
  return found;
}

/** Whether a turbo env pattern list (`NAME`, `PREFIX_*`, `!NAME`) lets `name` through. */
function passes(name: string, patterns: readonly string[]): boolean {
  const matches = (p: string) => (p.endsWith("*") ? name.startsWith(p.slice(0, -1)) : name === p);
  return patterns.some((p) => !p.startsWith("!") && matches(p)) && !patterns.some((p) => p.startsWith("!") && matches(p.slice(1)));
}

interface DryTask {
  taskId: string;
  task: string;
  resolvedTaskDefinition: { cache: boolean; passThroughEnv: string[] | null };
}

const dry = JSON.parse(
  execFileSync(join(root, "node_modules/.bin/turbo"), ["run", "test", "--dry=json"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }),
) as { globalCacheInputs: { environmentVariables: { specified: { passThroughEnv: string[] | null } } }; tasks: DryTask[] };
const testTasks = dry.tasks.filter((t) => t.task === "test");

describe("turbo runs the tests live, with the variables they read", () => {
  it("resolves a test task for the packages", () => {
    expect(testTasks.length).toBeGreaterThan(5);
  });

  it("never replays a test result from the cache", () => {
    expect(testTasks.filter((t) => t.resolvedTaskDefinition.cache !== false).map((t) => t.taskId)).toEqual([]);
  });

  it("passes through every environment variable the test code reads", () => {
    const read = variablesReadByTests();
    expect(read.has("REDIS_URL") && read.has("AFW_CHROMIUM_PATH") && read.has("AFW_SHARED_DATA")).toBe(true);
    const global = dry.globalCacheInputs.environmentVariables.specified.passThroughEnv ?? [];
    const missing = testTasks.flatMap((t) =>
      [...read]
        .filter(([name]) => !ALWAYS_PASSED.has(name) && !passes(name, [...global, ...(t.resolvedTaskDefinition.passThroughEnv ?? [])]))
        .map(([name, file]) => `${t.taskId}: ${name} (read in ${file})`),
    );
    expect(missing).toEqual([]);
  });

  it("matches turbo's wildcard and negated patterns", () => {
    expect(passes("AFW_SHARED_DATA", ["AFW_*"])).toBe(true);
    expect(passes("AFW_SECRET", ["AFW_*", "!AFW_SECRET"])).toBe(false);
    expect(passes("NEW_VARIABLE", ["AFW_*", "REDIS_URL"])).toBe(false);
  });
});

describe("a suite that skips says why", () => {
  it("prints a line next to every conditional skip", () => {
    const silent = testFiles()
      .map((file) => ({ file, text: readFileSync(file, "utf8") }))
      .filter(({ text }) => /\.(?:skipIf|runIf)\(/.test(text) && !/console\.(?:warn|log|info)\(/.test(text))
      .map(({ file }) => relative(root, file));
    expect(silent).toEqual([]);
  });
});
