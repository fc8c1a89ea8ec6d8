#!/usr/bin/env node
// Fails when a workspace package declares a dependency it does not use. Run: `node scripts/check-dependencies.mjs`
// (part of `pnpm lint:packages`, which `.ci/run` runs).
//
// For each package.json under packages/*, apps/* and tooling/*:
// - every `dependencies` / `peerDependencies` / `optionalDependencies` entry must be imported (static `import`/`export
//   ... from`, `import()`, `require()`, `require.resolve()`, bare name or subpath) by a file under the package's
//   `src/` (for a private package: used by any of its files in any of the ways below);
// - every `devDependencies` entry must be imported by any file of the package (src, tests, scripts, configs), or be
//   named in one of its package.json scripts (a CLI such as vitest), or have one of its bins or its folder
//   (`…/<name>/…` or `"<name>"`, as in a path to its entry file) named in a file, or be a `@types/x` whose `x` is used, or
//   `@types/node`.
// Files under node_modules/ and dist/ are not read. Exit code 1 with one line per unused dependency, else 0.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const codeFile = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/;
const specifierPattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bresolve\s*\(\s*|\bimport\s+)["']([^"'\n]{1,200})["']/g;

/** Lists the code files below `dir`, skipping node_modules and dist. */
function codeFiles(dir) {
  const files = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...codeFiles(path));
    else if (codeFile.test(name)) files.push(path);
  }
  return files;
}

/** The package names a set of files imports (`@scope/name/sub` → `@scope/name`, `name/sub` → `name`). */
function importedPackages(files) {
  const names = new Set();
  for (const file of files) {
    for (const match of readFileSync(file, "utf8").matchAll(specifierPattern)) {
      const specifier = match[1];
      if (specifier.startsWith(".") || specifier.startsWith("node:")) continue;
      const parts = specifier.split("/");
      names.add(specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]);
    }
  }
  return names;
}

/** The names of the executables a dependency installs, read from its package.json in the package's node_modules. */
function binsOf(dir, dependency) {
  const manifestPath = join(dir, "node_modules", dependency, "package.json");
  if (!existsSync(manifestPath)) return [];
  const { bin, name } = JSON.parse(readFileSync(manifestPath, "utf8"));
  if (typeof bin === "string") return [name.split("/").pop()];
  return Object.keys(bin ?? {});
}

const problems = [];
for (const group of ["packages", "apps", "tooling"]) {
  const groupDir = join(root, group);
  if (!existsSync(groupDir)) continue;
  for (const name of readdirSync(groupDir)) {
    const dir = join(groupDir, name);
    const manifestPath = join(dir, "package.json");
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    const srcDir = join(dir, "src");
    const usedBySource = existsSync(srcDir) ? importedPackages(codeFiles(srcDir)) : new Set();
    const allFiles = codeFiles(dir);
    const usedAnywhere = importedPackages(allFiles);
    const allText = allFiles.map((file) => readFileSync(file, "utf8")).join("\n");
    const scripts = Object.values(manifest.scripts ?? {}).join("\n");
    const where = relative(root, manifestPath);
    const runtime = { ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies };
    /** How a dev tool or a spawned server is used: imported, run by a script, or named by a path, bin or quoted name. */
    const usedAsTool = (dependency) => {
      const typed = dependency.startsWith("@types/") ? dependency.slice("@types/".length).replace(/^(.+)__(.+)$/, "@$1/$2") : undefined;
      return (
        usedAnywhere.has(dependency) ||
        scripts.includes(dependency.split("/").pop()) ||
        allText.includes(`/${dependency.split("/").pop()}/`) ||
        allText.includes(`"${dependency.split("/").pop()}"`) ||
        binsOf(dir, dependency).some((bin) => allText.includes(bin)) ||
        dependency === "@types/node" ||
        (typed !== undefined && (usedAnywhere.has(typed) || typed in runtime))
      );
    };
    for (const dependency of Object.keys(runtime)) {
      // A private package (an app, a test harness) is not installed by others: any of its files may be the user, in
      // any of the ways a dev dependency may be.
      const used = manifest.private === true ? usedAsTool(dependency) : usedBySource.has(dependency);
      if (!used) problems.push(`${where}: "${dependency}" is a dependency but nothing imports it (src/ for a published package)`);
    }
    for (const dependency of Object.keys(manifest.devDependencies ?? {})) {
      if (!usedAsTool(dependency)) problems.push(`${where}: "${dependency}" is a devDependency but no file or script of the package uses it`);
    }
  }
}
if (problems.length > 0) {
  console.error(`declared but not used (${problems.length}):\n${problems.join("\n")}`);
  process.exit(1);
}
console.log("every declared dependency is used");
