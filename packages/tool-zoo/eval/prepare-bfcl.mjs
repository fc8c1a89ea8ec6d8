#!/usr/bin/env node
// Converts the Berkeley Function Calling Leaderboard's data (ShishirPatil/gorilla, Apache-2.0) into
// the evaluation format of scripts/eval.mjs: { catalog, source, tools: [...], tasks: [{ id, query, needed }] }.
//   node eval/prepare-bfcl.mjs <gorilla checkout or git dir> <out dir>
// Reads berkeley-function-call-leaderboard/bfcl_eval/data/{BFCL_v4_multiple,BFCL_v4_parallel_multiple,
// BFCL_v4_live_multiple}.json and their possible answers. A function's server is the part of its
// name before the last dot ("math_toolkit.sum_of_multiples" → "math_toolkit"), else "functions".
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const [source, outDir] = process.argv.slice(2);
if (!source || !outDir) {
  console.error("usage: node eval/prepare-bfcl.mjs <gorilla checkout or bare git dir> <out dir>");
  process.exit(1);
}
const dataPath = "berkeley-function-call-leaderboard/bfcl_eval/data";
const read = (path) =>
  existsSync(join(source, path)) ? readFileSync(join(source, path), "utf8") : execFileSync("git", ["-C", source, "show", `HEAD:${path}`], { encoding: "utf8", maxBuffer: 64 << 20 });
const commit = existsSync(join(source, dataPath)) ? "working tree" : execFileSync("git", ["-C", source, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
const jsonl = (text) => text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));

function toTool(fn) {
  const at = fn.name.lastIndexOf(".");
  const server = at > 0 ? fn.name.slice(0, at) : "functions";
  const name = at > 0 ? fn.name.slice(at + 1) : fn.name;
  const schema = JSON.parse(JSON.stringify(fn.parameters ?? { type: "object" }).replaceAll('"type":"dict"', '"type":"object"'));
  return { server, name, description: fn.description ?? "", inputSchema: schema };
}
const idOf = (fnName) => {
  const at = fnName.lastIndexOf(".");
  return at > 0 ? `${fnName.slice(0, at)}/${fnName.slice(at + 1)}` : `functions/${fnName}`;
};

function convert(file, catalog, sample) {
  const questions = jsonl(read(`${dataPath}/${file}.json`));
  const answers = new Map(jsonl(read(`${dataPath}/possible_answer/${file}.json`)).map((a) => [a.id, a]));
  const tools = new Map();
  const tasks = [];
  for (const [i, item] of questions.entries()) {
    for (const fn of item.function) if (!tools.has(idOf(fn.name))) tools.set(idOf(fn.name), toTool(fn));
    if (sample && i % sample !== 0) continue;
    const answer = answers.get(item.id);
    if (!answer) continue;
    const needed = [...new Set(answer.ground_truth.flatMap((call) => Object.keys(call)).map(idOf))];
    const query = item.question.flat().filter((turn) => turn.role === "user").map((turn) => turn.content).join(" ");
    tasks.push({ id: item.id, query, needed });
  }
  return { tools, tasks };
}

mkdirSync(outDir, { recursive: true });
const repository = "https://github.com/ShishirPatil/gorilla";
// single-tool (multiple) and multi-tool (parallel_multiple) questions over one pooled catalog
const single = convert("BFCL_v4_multiple", "bfcl");
const multi = convert("BFCL_v4_parallel_multiple", "bfcl");
const pooled = new Map([...single.tools, ...multi.tools]);
writeFileSync(
  resolve(outDir, "bfcl.json"),
  JSON.stringify({
    catalog: "bfcl",
    source: { repository, commit, licence: "Apache-2.0", files: ["BFCL_v4_multiple.json", "BFCL_v4_parallel_multiple.json"] },
    tools: [...pooled.values()],
    tasks: [...single.tasks.map((t) => ({ ...t, kind: "single" })), ...multi.tasks.map((t) => ({ ...t, kind: "multi" }))],
  }),
);
// live: user-contributed functions; every second question
const live = convert("BFCL_v4_live_multiple", "bfcl-live", 2);
writeFileSync(
  resolve(outDir, "bfcl-live.json"),
  JSON.stringify({
    catalog: "bfcl-live",
    source: { repository, commit, licence: "Apache-2.0", files: ["BFCL_v4_live_multiple.json (every second question)"] },
    tools: [...live.tools.values()],
    tasks: live.tasks.map((t) => ({ ...t, kind: "single" })),
  }),
);
console.log(`bfcl: ${pooled.size} tools, ${single.tasks.length} single + ${multi.tasks.length} multi tasks; bfcl-live: ${live.tools.size} tools, ${live.tasks.length} tasks`);
