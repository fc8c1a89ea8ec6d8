#!/usr/bin/env node
// Reads a V8 CPU profile (`node --cpu-prof`, e.g. the ones `SERVER_BENCH_PROFILE_DIR=dir node bench/server.mjs` writes)
// and prints where the busy time went, idle excluded: self time by package and by function, inclusive time by package
// (a sample counts once for every package on its stack), or, with --subtree, the samples whose stack holds a matching
// frame, grouped by leaf function, leaf package, or the two frames that called the outermost match.
//
//   node bench/read-cpu-profile.mjs <file.cpuprofile | dir> [--from-ms N] [--to-ms N] [--top N]
//                                   [--subtree REGEX [--by leaf|package|caller]]
//
// A directory: its largest profile (a process's main thread). --from-ms / --to-ms: only samples in that time range,
// in ms since the profile started (e.g. to leave out start-up and warm-up). Frames are named
// `function package/file:line`; packages are read from pnpm's `node_modules/.pnpm/<name>@<version>` and `packages/<name>`.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { "from-ms": { type: "string" }, "to-ms": { type: "string" }, top: { type: "string" }, subtree: { type: "string" }, by: { type: "string" } },
});
const target = positionals[0];
if (!target) {
  console.error("usage: read-cpu-profile.mjs <file.cpuprofile | dir> [--from-ms N] [--to-ms N] [--top N] [--subtree REGEX [--by leaf|package|caller]]");
  process.exit(2);
}
const file = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((name) => name.endsWith(".cpuprofile"))
      .map((name) => `${target}/${name}`)
      .sort((a, b) => statSync(b).size - statSync(a).size)[0]
  : target;
const profile = JSON.parse(readFileSync(file, "utf8"));
const fromMs = Number(values["from-ms"] ?? 0);
const toMs = Number(values["to-ms"] ?? Infinity);
const top = Number(values.top ?? 40);

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

/** The package of a script URL: a pnpm dependency, a workspace package, node's own modules, or the file. */
function packageOf(url) {
  if (!url) return "(native)";
  const dependency = url.match(/node_modules\/\.pnpm\/((?:@[^+/]+\+)?[^@/]+)@/);
  if (dependency) return dependency[1].replace("+", "/");
  const workspace = url.match(/\/packages\/([^/]+)\//);
  if (workspace) return `@afw/${workspace[1]}`;
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
  return url.split("/").slice(-2).join("/");
}
const nameOf = (frame) => `${frame.functionName || "(anonymous)"} ${frame.url ? `${packageOf(frame.url)}/${frame.url.split("/").pop()}:${frame.lineNumber + 1}` : "(native)"}`;

const selfByPackage = new Map();
const selfByFunction = new Map();
const inclusiveByPackage = new Map();
const subtree = values.subtree ? new RegExp(values.subtree) : undefined;
const bySubtree = new Map();
let busy = 0;
let inSubtree = 0;
const add = (map, key, micros) => map.set(key, (map.get(key) ?? 0) + micros);

let clock = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  clock += profile.timeDeltas[i];
  const atMs = (clock - profile.startTime) / 1000;
  const micros = profile.timeDeltas[i + 1] ?? 0;
  const leaf = byId.get(profile.samples[i]);
  if (atMs < fromMs || atMs > toMs || leaf.callFrame.functionName === "(idle)") continue;
  busy += micros;
  add(selfByPackage, leaf.callFrame.url ? packageOf(leaf.callFrame.url) : leaf.callFrame.functionName || "(native)", micros);
  add(selfByFunction, nameOf(leaf.callFrame), micros);
  const stack = [];
  for (let id = leaf.id; id !== undefined; id = parent.get(id)) stack.push(byId.get(id).callFrame);
  for (const pkg of new Set(stack.filter((frame) => frame.url).map((frame) => packageOf(frame.url)))) add(inclusiveByPackage, pkg, micros);
  if (!subtree) continue;
  let outermost = -1;
  for (let j = stack.length - 1; j >= 0 && outermost < 0; j--) if (subtree.test(nameOf(stack[j]))) outermost = j;
  if (outermost < 0) continue;
  inSubtree += micros;
  const key =
    values.by === "package"
      ? leaf.callFrame.url
        ? packageOf(leaf.callFrame.url)
        : leaf.callFrame.functionName || "(native)"
      : values.by === "caller"
        ? stack.slice(outermost + 1, outermost + 3).map(nameOf).join(" < ") || "(root)"
        : nameOf(leaf.callFrame);
  add(bySubtree, key, micros);
}

const share = (micros) => `${((100 * micros) / busy).toFixed(2).padStart(6)}%`;
const print = (title, map) => {
  console.log(`\n== ${title}`);
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${share(micros)}  ${key}`);
};
console.log(`${file}: ${(busy / 1e6).toFixed(2)} s busy (idle left out) between ${fromMs} and ${toMs} ms`);
if (subtree) {
  console.log(`stacks holding /${values.subtree}/: ${share(inSubtree)} of the busy time`);
  print(`... by ${values.by ?? "leaf"}`, bySubtree);
} else {
  print("self time by package", selfByPackage);
  print("self time by function", selfByFunction);
  print("inclusive time by package", inclusiveByPackage);
}
