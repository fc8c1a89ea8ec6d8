#!/usr/bin/env python3
"""Converts MCP-Bench (Accenture/mcp-bench, Apache-2.0) into the evaluation format of scripts/eval.mjs.

    python3 eval/prepare-mcp-bench.py <mcp-bench checkout> <out dir>

Tools are read statically from the servers' sources under mcp_servers/ (Python: functions decorated
with `@<app>.tool`, `Tool(name=..., description=...)`; TypeScript/JavaScript: `.tool("name",
"description"` and `{ name: "...", description: "..." }` objects), since running the servers needs
API keys. Tasks are the `fuzzy_description`s (requests without tool names); the needed tools are
the `Server:tool` references of the matching `task_description`, kept when the tool was found.
"""
import ast, json, os, re, sys

root, out_dir = sys.argv[1], sys.argv[2]
servers_dir = os.path.join(root, "mcp_servers")
commands = json.load(open(os.path.join(servers_dir, "commands.json")))
server_dirs = {name: os.path.normpath(os.path.join(servers_dir, "x", spec["cwd"])) for name, spec in commands.items()}


def python_tools(path):
    try:
        tree = ast.parse(open(path, encoding="utf8").read())
    except Exception:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                call = deco if isinstance(deco, ast.Call) else None
                func = call.func if call else deco
                if isinstance(func, ast.Attribute) and func.attr == "tool":
                    name, desc = node.name, ast.get_docstring(node) or ""
                    for kw in call.keywords if call else []:
                        if kw.arg == "name" and isinstance(kw.value, ast.Constant):
                            name = kw.value.value
                        if kw.arg == "description" and isinstance(kw.value, ast.Constant):
                            desc = kw.value.value
                    params = {a.arg: {"type": "string"} for a in node.args.args + node.args.kwonlyargs if a.arg not in ("self", "ctx", "context")}
                    found.append((name, desc, params))
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Tool":
            kws = {kw.arg: kw.value for kw in node.keywords}
            name = kws.get("name")
            desc = kws.get("description")
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                d = desc.value if isinstance(desc, ast.Constant) else ""
                params = {}
                schema = kws.get("inputSchema")
                if isinstance(schema, ast.Dict):
                    for k, v in zip(schema.keys, schema.values):
                        if isinstance(k, ast.Constant) and k.value == "properties" and isinstance(v, ast.Dict):
                            params = {pk.value: {"type": "string"} for pk in v.keys if isinstance(pk, ast.Constant)}
                found.append((name.value, d, params))
    return found


STRING = r"""(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`((?:[^`\\]|\\.)*)`)"""


def script_tools(path):
    text = open(path, encoding="utf8", errors="replace").read()
    found = []
    for m in re.finditer(r"\.(?:tool|registerTool)\(\s*" + STRING + r"\s*,\s*" + STRING, text):
        g = m.groups()
        found.append((g[0] or g[1] or g[2], g[3] or g[4] or g[5] or "", {}))
    for m in re.finditer(r"\bname\s*:\s*" + STRING + r"\s*,\s*(?:title\s*:\s*" + STRING + r"\s*,\s*)?description\s*:\s*" + STRING, text):
        g = m.groups()
        found.append((g[0] or g[1] or g[2], g[6] or g[7] or g[8] or "", {}))
    return found


def server_tools(directory):
    tools = {}
    for base, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if d not in ("node_modules", "tests", "test", "dist", ".git", "docs", "example_scripts")]
        for f in files:
            p = os.path.join(base, f)
            found = python_tools(p) if f.endswith(".py") else script_tools(p) if f.endswith((".ts", ".js")) and not f.endswith(".d.ts") else []
            for name, desc, params in found:
                if name not in tools or (desc and not tools[name]["description"]):
                    tools[name] = {"name": name, "description": desc.strip(), "inputSchema": {"type": "object", "properties": params}}
    return tools


slug = lambda s: re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")
catalog = {}
for server, directory in server_dirs.items():
    for name, tool in server_tools(directory).items():
        catalog[f"{slug(server)}/{name}"] = {"server": slug(server), **tool}

tasks = []
for file in ("mcpbench_tasks_single_runner_format.json", "mcpbench_tasks_multi_2server_runner_format.json", "mcpbench_tasks_multi_3server_runner_format.json"):
    data = json.load(open(os.path.join(root, "tasks", file)))
    for group in data["server_tasks"]:
        servers = group.get("servers") or [group["server_name"]]
        for task in group["tasks"]:
            text = task["task_description"]
            needed = []
            for server in servers:
                for name in re.findall(re.escape(server) + r":([A-Za-z0-9_\-]+)", text):
                    tid = f"{slug(server)}/{name}"
                    if tid in catalog and tid not in needed:
                        needed.append(tid)
            if len(servers) == 1 and not needed:
                for tid, tool in catalog.items():
                    if tool["server"] == slug(servers[0]) and re.search(r"\b" + re.escape(tool["name"]) + r"\b", text):
                        needed.append(tid)
            if needed and task.get("fuzzy_description"):
                tasks.append({"id": task["task_id"], "query": task["fuzzy_description"], "needed": needed, "kind": "multi" if len(needed) > 1 else "single"})

commit = os.popen(f"git -C {root} rev-parse HEAD 2>/dev/null").read().strip() or "09e52332b22428bf891be59047e01cb9adc063b4"
os.makedirs(out_dir, exist_ok=True)
json.dump(
    {"catalog": "mcp-bench", "source": {"repository": "https://github.com/Accenture/mcp-bench", "commit": commit, "licence": "Apache-2.0 (repository); servers under their own licences"},
     "tools": list(catalog.values()), "tasks": tasks},
    open(os.path.join(out_dir, "mcp-bench.json"), "w"))
empty = sum(1 for t in catalog.values() if not t["description"])
print(f"mcp-bench: {len(catalog)} tools ({empty} without description) of {len({t['server'] for t in catalog.values()})} servers, {len(tasks)} tasks, {sum(len(t['needed']) for t in tasks)/max(1,len(tasks)):.1f} needed tools each")
