#!/usr/bin/env python3
"""Converts RestBench (Yifan-Song793/RestGPT, MIT) into the evaluation format of scripts/eval.mjs.

    python3 eval/prepare-restbench.py <RestGPT checkout or bare git dir> <out dir>

Tools are the operations of the two real REST APIs' OpenAPI specs (`specs/tmdb_oas.json`: 54 TMDB endpoints,
`specs/spotify_oas.json`: 40 Spotify endpoints), one tool per method and path, named by its `operationId` (what an
OpenAPI-to-MCP bridge exposes), described by its summary and description, with its parameters (references resolved).
Tasks are the 157 human-written requests of `datasets/tmdb.json` and `datasets/spotify.json`; the needed tools are the
request's gold `solution` (the endpoints called in order, 2.3 on average). Deterministic: same input, same bytes.
"""
import json, os, re, subprocess, sys

root, out_dir = sys.argv[1], sys.argv[2]


def read(path):
    if os.path.exists(os.path.join(root, path)):
        return open(os.path.join(root, path), encoding="utf8").read()
    return subprocess.run(["git", "--git-dir", root, "show", f"HEAD:{path}"], check=True, capture_output=True, text=True).stdout


def commit():
    git_dir = root if not os.path.isdir(os.path.join(root, ".git")) else os.path.join(root, ".git")
    return subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


def resolve(spec, node):
    while isinstance(node, dict) and "$ref" in node:
        for part in node["$ref"].lstrip("#/").split("/"):
            spec = spec[part] if part in spec else {}
        node, spec = spec, SPECS[CURRENT[0]]
    return node


SPECS = {}
CURRENT = [""]


def clean(text):
    return re.sub(r"\s+", " ", (text or "").strip())


tools, by_endpoint = [], {}
for server, path in (("tmdb", "specs/tmdb_oas.json"), ("spotify", "specs/spotify_oas.json")):
    spec = json.loads(read(path))
    SPECS[server] = spec
    CURRENT[0] = server
    for route, item in spec["paths"].items():
        shared = item.get("parameters", [])
        for method in ("get", "post", "put", "delete", "patch"):
            op = item.get(method)
            if not op:
                continue
            name = re.sub(r"[^A-Za-z0-9_-]+", "_", op.get("operationId") or f"{method}_{route}").strip("_")
            summary, description = clean(op.get("summary")), clean(op.get("description"))
            text = description if summary.lower() in description.lower() else f"{summary}. {description}".strip(". ")
            properties, required = {}, []
            for param in shared + op.get("parameters", []):
                param = resolve(spec, param)
                if not param.get("name"):
                    continue
                schema = resolve(spec, param.get("schema", {}))
                prop = {"type": schema.get("type", "string"), "description": clean(param.get("description"))[:300]}
                if isinstance(schema.get("enum"), list):
                    prop["enum"] = schema["enum"][:20]
                properties[param["name"]] = prop
                if param.get("required"):
                    required.append(param["name"])
            body = resolve(spec, op.get("requestBody", {})).get("content", {}).get("application/json", {}).get("schema", {})
            for key, value in (resolve(spec, body).get("properties") or {}).items():
                value = resolve(spec, value)
                properties.setdefault(key, {"type": value.get("type", "string"), "description": clean(value.get("description"))[:300]})
            tool = {"server": server, "name": name, "description": text, "inputSchema": {"type": "object", "properties": properties, "required": required}}
            tools.append(tool)
            by_endpoint[(server, f"{method.upper()} {route}")] = f"{server}/{name}"

tasks = []
for server, path in (("tmdb", "datasets/tmdb.json"), ("spotify", "datasets/spotify.json")):
    for i, item in enumerate(json.loads(read(path))):
        needed = []
        for endpoint in item["solution"]:
            tool_id = by_endpoint.get((server, endpoint.strip()))
            if tool_id is None:
                print(f"{server} {i}: no tool for {endpoint}", file=sys.stderr)
            elif tool_id not in needed:
                needed.append(tool_id)
        if needed:
            tasks.append({"id": f"{server}-{i}", "query": item["query"].strip(), "needed": needed, "kind": "multi" if len(needed) > 1 else "single"})

out = {
    "catalog": "restbench",
    "source": {"repository": "https://github.com/Yifan-Song793/RestGPT", "commit": commit(), "licence": "MIT"},
    "tools": tools,
    "tasks": tasks,
}
os.makedirs(out_dir, exist_ok=True)
with open(os.path.join(out_dir, "restbench.json"), "w", encoding="utf8") as f:
    json.dump(out, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(f"{len(tools)} tools, {len(tasks)} tasks ({sum(t['kind'] == 'multi' for t in tasks)} multi)", file=sys.stderr)
