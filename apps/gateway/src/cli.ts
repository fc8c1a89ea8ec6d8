/** The `afw` command line: serve the gateway, classify questions, search tools, explain routing, and run a self-contained demo. */
import { readFileSync } from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { processIo, type CommandIo } from "./commands/io.js";

type Values = Record<string, string | boolean | undefined>;

interface Command {
  /** First line(s) of the usage: the synopsis. */
  synopsis: string;
  /** One line for the command list. */
  summary: string;
  /** What the command does, and its options. */
  help: string;
  options?: ParseArgsConfig["options"];
  /** Refuse positional arguments. */
  noArguments?: true;
  run(values: Values, positionals: string[], io: CommandIo): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  serve: {
    summary: "Run the MCP gateway (HTTP on 127.0.0.1:8787, or --stdio).",
    synopsis: "serve [--config FILE] [--stdio | --http] [--host H] [--port N]",
    help: `Run the MCP gateway (default: Streamable HTTP on 127.0.0.1:8787, in-memory stores,
in-process index). Startup prints one line per backend and downstream server.
  --config FILE   YAML/JSON configuration (see examples/afw.yaml); env overrides it:
                  FLOWISE_BASE_URL, FLOWISE_API_KEY, LANGFLOW_BASE_URL, LANGFLOW_API_KEY,
                  REDIS_URL, CHROMA_URL, AFW_HTTP_PORT, AFW_AUTH_TOKENS
  --stdio         speak MCP on stdin/stdout (logs go to stderr)
  --http          speak Streamable HTTP (the default)
  --host H        address to bind (default 127.0.0.1)
  --port N        port to bind (default 8787; 0 picks a free port)`,
    options: { config: { type: "string" }, stdio: { type: "boolean" }, http: { type: "boolean" }, host: { type: "string" }, port: { type: "string" } },
    noArguments: true,
    async run(values, _positionals, io) {
      if (values["stdio"] && values["http"]) return io.fail("choose one of --stdio and --http");
      const { serveCommand } = await import("./commands/serve.js");
      return serveCommand(
        { config: str(values["config"]), transport: values["stdio"] ? "stdio" : "http", host: str(values["host"]), port: str(values["port"]) },
        io,
      );
    },
  },
  classify: {
    summary: "Classify one question (or JSON lines on stdin) into a routing intent.",
    synopsis: "classify [QUESTION] [--config FILE]",
    help: `Classify one question, or JSON lines {"id","question"} on stdin
-> JSON lines {"id","intent","confidence"} on stdout. Runs offline.
  --config FILE   intent-pattern file (YAML/JSON) replacing the default patterns`,
    options: { config: { type: "string" } },
    async run(values, positionals, io) {
      const { classifyCommand } = await import("./commands/classify.js");
      return classifyCommand({ question: positionals.length ? positionals.join(" ") : undefined, config: str(values["config"]) }, io);
    },
  },
  "tools search": {
    summary: "Search a tool catalog for the tools that fit each query on stdin.",
    synopsis: "tools search --catalog FILE [--mode hybrid|keyword|semantic] [--top-k K] [--embedding-cache FILE]",
    help: `Index a tool catalog ({ tools: [{ server, name, description, inputSchema }] }, e.g.
examples/tools-catalog.json) and answer JSON lines {"id","query"} on stdin with
{"id","results":["server/name", ...]} (best first).
  --catalog FILE          the tool catalog (required)
  --mode M                hybrid (default), keyword or semantic
  --top-k K               results per query, 1-50 (default 10)
  --embedding-cache FILE  where tool embeddings are cached between runs`,
    options: { catalog: { type: "string" }, mode: { type: "string", default: "hybrid" }, "top-k": { type: "string", default: "10" }, "embedding-cache": { type: "string" } },
    noArguments: true,
    async run(values, _positionals, io) {
      const catalog = str(values["catalog"]);
      if (!catalog) return io.fail("tools search needs --catalog FILE");
      const { toolsSearchCommand } = await import("./commands/tools-search.js");
      return toolsSearchCommand(
        { catalog, mode: str(values["mode"]) ?? "hybrid", topK: Number(values["top-k"]), embeddingCache: str(values["embedding-cache"]) },
        io,
      );
    },
  },
  route: {
    summary: "Show the routing decision for a question without running it.",
    synopsis: 'route --explain QUESTION [--config FILE]',
    help: `Show the routing decision for a question (intent, strategy, every candidate's score
breakdown) without running it.
  --explain       print the decision (the only mode)
  --config FILE   the gateway configuration whose backends and flows are ranked`,
    options: { explain: { type: "boolean" }, config: { type: "string" } },
    async run(values, positionals, io) {
      const question = positionals.join(" ").trim();
      if (!question) return io.fail('route needs a question: afw route --explain "..."');
      const { routeCommand } = await import("./commands/route.js");
      return routeCommand({ question, config: str(values["config"]) }, io);
    },
  },
  "export-training": {
    summary: "Export routing decisions, elicited answers and feedback as JSON lines (training data).",
    synopsis: "export-training [--config FILE] [--tenant T] [--from TIME] [--to TIME] [--limit N]",
    help: `Print one JSON line per question of the session history in the configured stores
(redis): question (secrets redacted), intent, flow, outcome, label_source
(elicitation | feedback | router), label_flow_id, feedback_score.
  --config FILE   the gateway configuration whose stores are read
  --tenant T      only this tenant's questions (default: those asked without a tenant)
  --from TIME     first included time (ISO 8601 or epoch ms)
  --to TIME       last included time (ISO 8601 or epoch ms)
  --limit N       most examples, newest first (default 10000)`,
    options: { config: { type: "string" }, tenant: { type: "string" }, from: { type: "string" }, to: { type: "string" }, limit: { type: "string" } },
    noArguments: true,
    async run(values, _positionals, io) {
      const { exportTrainingCommand } = await import("./commands/export-training.js");
      return exportTrainingCommand(
        { config: str(values["config"]), tenant: str(values["tenant"]), from: str(values["from"]), to: str(values["to"]), limit: str(values["limit"]) },
        io,
      );
    },
  },
  demo: {
    summary: "Walk through routing, fallback, cache and sessions against local sample backends.",
    synopsis: "demo",
    help: `Start local sample Flowise and Langflow servers and walk through routing, fallback,
cache hit and session resume. Needs no network and no configuration.`,
    noArguments: true,
    async run(_values, _positionals, io) {
      const { demoCommand } = await import("./commands/demo.js");
      return demoCommand(undefined, io);
    },
  },
  help: {
    summary: "Show this text, or the usage of one command.",
    synopsis: "help [COMMAND]",
    help: "Show the usage of afw, or of one command.",
    async run(_values, positionals, io) {
      const name = positionals.join(" ");
      if (!name) return usage(io);
      const command = COMMANDS[name] ?? COMMANDS[`${name} search`];
      if (!command) return io.fail(`unknown command '${name}'. Run 'afw help'.`);
      return commandHelp(command, io);
    },
  },
};

function str(value: string | boolean | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function version(): string {
  // dist/cli.js and src/cli.ts both sit one level below the package root.
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

function usage(io: CommandIo): number {
  const lines = Object.values(COMMANDS).map((c) => `  afw ${c.synopsis}\n      ${c.summary}`);
  io.stdout.write(`Usage: afw <command> [options]\n\nCommands:\n${lines.join("\n")}\n\nafw <command> --help shows a command's options; afw --version the version.\n`);
  return 0;
}

function commandHelp(command: Command, io: CommandIo): number {
  io.stdout.write(`Usage: afw ${command.synopsis}\n\n${command.help}\n  -h, --help      show this text\n`);
  return 0;
}

/** Runs the command line `argv` (without `node` and the script) and resolves with the exit code. */
async function main(argv: string[], io: CommandIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h") return usage(io);
  if (first === "--version" || first === "-v" || first === "version") {
    io.stdout.write(`${version()}\n`);
    return 0;
  }
  let name = first;
  let args = rest;
  if (first === "tools") {
    const [sub, ...subArgs] = rest;
    if (sub === undefined || sub === "--help" || sub === "-h") return commandHelp(COMMANDS["tools search"]!, io);
    if (sub !== "search") return io.fail(`unknown 'tools' subcommand '${sub}' (expected: search). Run 'afw tools search --help'.`);
    name = "tools search";
    args = subArgs;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) return io.fail(`unknown command '${first}'. Run 'afw help' for the list of commands.`);
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...command.options, help: { type: "boolean", short: "h" } },
  });
  const parsed = values as Values;
  if (parsed["help"]) return commandHelp(command, io);
  if (command.noArguments && positionals.length > 0) return io.fail(`${name} takes no arguments (got '${positionals[0]}'); see 'afw ${name} --help'`);
  return command.run(parsed, positionals, io);
}

const io = processIo();
main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    io.fail(message.split("\n")[0] ?? "failed");
    // Argument errors from parseArgs are usage errors (2); anything else failed at run time (1).
    process.exitCode = String((error as { code?: unknown })?.code ?? "").startsWith("ERR_PARSE_ARGS") ? 2 : 1;
  },
);
