#!/usr/bin/env node
// Size figures of the codebase, the ones issue 17 sets targets for. Run: `node scripts/code-stats.mjs [--json]`.
//
// - Source lines: every line (as `wc -l` counts them) of the git-tracked non-test source files:
//   `src/**` of packages/*, apps/* and tooling/*, plus packages/dashboard/assets/**, with the extensions
//   .ts .js .mjs .css .html. Left out: tests (`*.test.*`) and test helpers (files named `test.ts`, anything
//   under a `testing/` folder, which includes the tooling/testing package). The same count with the test
//   helpers included is printed too, for comparison with older figures.
// - Files over 600 lines among those source files (the project's limit for one source file).
// - Exported names: for each packages/<name>/src/index.ts, the exports the TypeScript checker sees
//   (values and types, re-exports followed), summed over the packages.
//
// It reads the working tree; it writes nothing. Exit code 0 always: the figures are for reading, not a gate.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";

const root = resolve(import.meta.dirname, "..");
const sourcePattern = /^(packages|apps|tooling)\/[^/]+\/src\/|^packages\/dashboard\/assets\//;
const extensionPattern = /\.(ts|js|mjs|css|html)$/;
const testPattern = /\.test\./;
const helperPattern = /(^|\/)test\.ts$|(^|\/)testing\//;

const tracked = execFileSync("git", ["ls-files", "-z", "--", "packages", "apps", "tooling"], { cwd: root, encoding: "utf8" })
  .split("\0")
  .filter((path) => sourcePattern.test(path) && extensionPattern.test(path) && !testPattern.test(path))
  .filter((path) => existsSync(join(root, path)));

const countLines = (path) => {
  const text = readFileSync(join(root, path), "utf8");
  if (text.length === 0) return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
};
const withHelpers = tracked.map((path) => ({ path, lines: countLines(path) }));
const source = withHelpers.filter((file) => !helperPattern.test(file.path));
const sum = (files) => files.reduce((total, file) => total + file.lines, 0);
const oversized = source.filter((file) => file.lines > 600).sort((a, b) => b.lines - a.lines);

const packagesDir = join(root, "packages");
const entries = readdirSync(packagesDir)
  .map((name) => ({ name, entry: join(packagesDir, name, "src", "index.ts") }))
  .filter(({ entry }) => existsSync(entry));
const program = ts.createProgram(
  entries.map(({ entry }) => entry),
  {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowJs: false,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  },
);
const checker = program.getTypeChecker();
const exportsPerPackage = {};
for (const { name, entry } of entries) {
  const sourceFile = program.getSourceFile(entry);
  const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile);
  exportsPerPackage[name] = moduleSymbol ? checker.getExportsOfModule(moduleSymbol).length : 0;
}
const exportedNames = Object.values(exportsPerPackage).reduce((total, count) => total + count, 0);

const figures = {
  sourceLines: sum(source),
  sourceFiles: source.length,
  sourceLinesWithTestHelpers: sum(withHelpers),
  sourceFilesWithTestHelpers: withHelpers.length,
  filesOver600: oversized.map((file) => `${file.path} (${file.lines})`),
  exportedNames,
  exportsPerPackage,
};
if (process.argv.includes("--json")) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  console.log(`source lines: ${figures.sourceLines} in ${figures.sourceFiles} files (non-test, without test helpers)`);
  console.log(`  with test helpers: ${figures.sourceLinesWithTestHelpers} in ${figures.sourceFilesWithTestHelpers} files`);
  console.log(`files over 600 lines: ${oversized.length}`);
  for (const line of figures.filesOver600) console.log(`  ${line}`);
  console.log(`exported names: ${exportedNames}`);
  for (const [name, count] of Object.entries(exportsPerPackage)) console.log(`  @afw/${name}: ${count}`);
}
