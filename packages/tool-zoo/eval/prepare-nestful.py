#!/usr/bin/env python3
"""Converts NESTFUL (IBM/NESTFUL, Apache-2.0) into the evaluation format of scripts/eval.mjs.

    python3 eval/prepare-nestful.py <NESTFUL checkout or bare git dir> <out dir>

NESTFUL's released evaluation data (`data/`) holds 300 requests, each with the nested sequence of API calls that
answers it, over three tool sets, written here as three catalogs (`nestful-rapidapi.json`, `nestful-sgd.json`,
`nestful-glaive.json`): the sets were built independently and overlap in what they do (flight, hotel, restaurant and
news search in each), so a pooled catalog would mark a right tool of another set as a miss.

- `executable/`: 85 requests over 39 real RapidAPI endpoints; a tool's server is the first label of its RapidAPI
  host without trailing digits (`tripadvisor16.p.rapidapi.com` -> `tripadvisor`, `last10k-company-v1` -> `last10k-company`);
- `non-executable/*-sgd-*`: 46 requests over 30 intents of the Schema-Guided Dialogue services; the server is the
  part of the name before the dot (`RentalCars.ReserveCar` -> `RentalCars` / `ReserveCar`);
- `non-executable/*-glaive-*`: 169 requests over 64 Glaive function-calling functions (70 entries, 6 repeated), which name no service: server
  `functions` (as `prepare-bfcl.mjs` does for undotted names).

The needed tools of a request are the distinct tools of its gold call sequence (the final `var_result` is the
answer, not a call); 10 Glaive requests that call one of 7 functions missing from the spec are dropped. A task is `multi` when
it needs two or more tools. Deterministic: same input, same bytes.
"""
import json, os, re, subprocess, sys

root, out_dir = sys.argv[1], sys.argv[2]
PARTS = (
    ("executable", "data/executable/executable-data.json", "data/executable/executable-spec.json"),
    ("sgd", "data/non-executable/non-executable-sgd-data.json", "data/non-executable/non-executable-sgd-spec.json"),
    ("glaive", "data/non-executable/non-executable-glaive-data.json", "data/non-executable/non-executable-glaive-spec.json"),
)


def read(path):
    if os.path.exists(os.path.join(root, path)):
        return open(os.path.join(root, path), encoding="utf8").read()
    return subprocess.run(["git", "--git-dir", root, "show", f"HEAD:{path}"], check=True, capture_output=True, text=True).stdout


def commit():
    git_dir = root if not os.path.isdir(os.path.join(root, ".git")) else os.path.join(root, ".git")
    return subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


def clean(text):
    return re.sub(r"\s+", " ", str(text or "").strip())


JSON_TYPES = {"string": "string", "str": "string", "number": "number", "float": "number", "integer": "integer",
              "int": "integer", "boolean": "boolean", "bool": "boolean", "array": "array", "list": "array",
              "object": "object", "dict": "object"}


def schema(parameters):
    properties, required = {}, []
    for name, spec in parameters.items():
        prop = {"type": JSON_TYPES.get(str(spec.get("type", "string")).lower(), "string"), "description": clean(spec.get("description"))}
        values = spec.get("enum") or spec.get("allowed_values")
        if values:
            prop["enum"] = [str(v) for v in values]
        properties[name] = prop
        if spec.get("required"):
            required.append(name)
    return {"type": "object", "properties": properties, "required": required}


def to_tool(part, spec):
    name = spec["name"]
    if part == "executable":
        server = re.sub(r"(-v)?\d+$", "", spec["host"].split(".")[0])
        parameters = {**spec.get("path_parameters", {}), **spec.get("query_parameters", {})}
    elif part == "sgd":
        server, name = name.split(".", 1)
        parameters = spec.get("arguments", {})
    else:
        server = "functions"
        parameters = spec.get("query_parameters") or spec.get("parameters") or {}
    return {"server": server, "name": name, "description": clean(spec.get("description")), "inputSchema": schema(parameters)}


CATALOG = {"executable": "nestful-rapidapi", "sgd": "nestful-sgd", "glaive": "nestful-glaive"}
os.makedirs(out_dir, exist_ok=True)
for part, data_path, spec_path in PARTS:
    tools, tasks, dropped, ids = [], [], 0, {}
    for spec in json.loads(read(spec_path)):
        if spec["name"] in ids:
            continue  # the Glaive spec repeats 5 functions (6 times in all), the same text each time
        tool = to_tool(part, spec)
        ids[spec["name"]] = f"{tool['server']}/{tool['name']}"
        tools.append(tool)
    for i, item in enumerate(json.loads(read(data_path))):
        calls = [call["name"] for call in item["output"] if call["name"] != "var_result"]
        if any(call not in ids for call in calls):
            dropped += 1
            continue
        needed = list(dict.fromkeys(ids[call] for call in calls))
        tasks.append({"id": f"{part}-{i}", "query": clean(item["input"]), "needed": needed, "kind": "multi" if len(needed) > 1 else "single"})
    with open(os.path.join(out_dir, f"{CATALOG[part]}.json"), "w", encoding="utf8") as out:
        json.dump({
            "catalog": CATALOG[part],
            "source": {"repository": "https://github.com/IBM/NESTFUL", "commit": commit(), "licence": "Apache-2.0", "files": [data_path, spec_path]},
            "tools": tools,
            "tasks": tasks,
        }, out, ensure_ascii=False)
    multi = sum(task["kind"] == "multi" for task in tasks)
    print(f"{CATALOG[part]}: {len(tools)} tools of {len({t['server'] for t in tools})} servers, {multi} multi + {len(tasks) - multi} single tasks"
          + (f" ({dropped} dropped: a call missing from the spec)" if dropped else ""))
