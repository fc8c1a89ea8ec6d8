#!/usr/bin/env node
// Release smoke test: packs every publishable @afw package (packages/* and the `afw` CLI in
// apps/gateway) with `pnpm pack`, installs the tarballs into a fresh project outside the workspace
// (no registry fetch for @afw/*), imports each package's main export and runs one call through it,
// then runs the CLI installed from its tarball the way users run it, `npx --yes @afw/gateway`:
// `--version` and routed answers (`afw demo`). (`npx <tarball>` itself would fetch the @afw/*
// dependencies from the registry, where this version is not published yet.) Fails (exit 1) on the first problem. Used by .ci/run.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "afw-pack-"));
const tarballs = join(work, "tarballs");
const project = join(work, "project");
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });

const packages = [...readdirSync(join(root, "packages")).map((dir) => join(root, "packages", dir)), join(root, "apps", "gateway")]
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
  .filter(({ manifest }) => !manifest.private);
if (!packages.some(({ manifest }) => manifest.name === "@afw/gateway")) throw new Error("@afw/gateway must be publishable");

try {
  for (const { dir, manifest } of packages) {
    run("pnpm", ["pack", "--pack-destination", tarballs], dir);
    console.error(`packed ${manifest.name}`);
  }
  const files = readdirSync(tarballs).filter((f) => f.endsWith(".tgz"));
  // Map every @afw dependency to its tarball so the install never reaches for unpublished versions.
  const overrides = Object.fromEntries(
    packages.map(({ manifest }) => {
      const file = files.find((f) => f.startsWith(manifest.name.replace("@", "").replace("/", "-") + "-"));
      return [manifest.name, `file:${join(tarballs, file)}`];
    }),
  );
  run("mkdir", ["-p", project], root);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "afw-pack-smoke", private: true, type: "module", dependencies: { ...overrides, zod: "4.6.7" }, pnpm: { overrides, onlyBuiltDependencies: [] } }, null, 2),
  );
  writeFileSync(join(project, "pnpm-workspace.yaml"), "overrides:\n  chromadb-js-bindings-linux-x64-gnu: 1.0.5\n");
  run("pnpm", ["install", "--prefer-offline", "--ignore-workspace", "--config.confirmModulesPurge=false"], project);
  writeFileSync(join(project, "smoke.mjs"), readFileSync(join(root, "scripts", "pack-smoke-consumer.mjs"), "utf8"));
  process.stdout.write(run("node", ["smoke.mjs"], project));

  // The CLI as a user runs it; npx finds @afw/gateway installed from its tarball (offline).
  const gateway = overrides["@afw/gateway"].slice("file:".length);
  const npx = (...args) => run("npx", ["--yes", "--offline", "@afw/gateway", ...args], project);
  const version = npx("--version").trim();
  if (version !== packages.find(({ manifest }) => manifest.name === "@afw/gateway").manifest.version) throw new Error(`afw --version printed '${version}'`);
  console.log(`ok npx @afw/gateway --version -> ${version} (from ${basename(gateway)})`);
  const demo = npx("demo");
  for (const expected of [/routed to\s+(flowise|langflow) \//, /cache hit\s+true/, /fallback true/]) {
    if (!expected.test(demo)) throw new Error(`afw demo: no line matching ${expected} in:\n${demo}`);
  }
  console.log("ok npx afw demo: routed answers, a cache hit and a fallback");
  console.log(`pack smoke: ${packages.length} packages packed, installed outside the workspace and imported; the afw CLI ran from its tarball`);
} finally {
  if (!process.env.AFW_KEEP_PACK) rmSync(work, { recursive: true, force: true });
}
