/**
 * The `afw` command line: serve the gateway, classify questions, search tools, explain routing,
 * and run a self-contained demo. Every subcommand answers bad input with a one-line message on
 * stderr and exit code 2 — never a stack trace.
 */
import { parseArgs } from "node:util";
import { processIo, type CommandIo } from "./commands/io.js";

const USAGE = `Usage: afw <command> [options]

Commands:
  serve [--config FILE] [--stdio | --http] [--host H] [--port N]
                                  Run the MCP gateway (default: HTTP on 127.0.0.1:8787,
                                  in-memory stores, in-process index).
  classify [QUESTION]             Classify one question, or JSON lines {"id","question"} on stdin
                                  -> JSON lines {"id","intent","confidence"} on stdout.
  tools search --catalog FILE [--mode hybrid|keyword|semantic] [--top-k K]
                                  Index a tool catalog, answer JSON lines {"id","query"} on stdin
                                  with {"id","results":["server/name", ...]}.
  route --explain QUESTION [--config FILE]
                                  Show the routing decision for a question without running it.
  demo                            Start local sample Flowise and Langflow servers and walk
                                  through routing, fallback, cache hit and session resume.
  help                            Show this text.
`;

async function main(argv: string[], io: CommandIo): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case "help":
    case "--help":
    case "-h":
      io.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    case "classify": {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { config: { type: "string" } } });
      const { classifyCommand } = await import("./commands/classify.js");
      return classifyCommand({ question: positionals.length ? positionals.join(" ") : undefined, config: values.config }, io);
    }
    case "tools": {
      const [sub, ...args] = rest;
      if (sub !== "search") return io.fail(`unknown 'tools' subcommand '${sub ?? ""}' (expected: search)`);
      const { values } = parseArgs({
        args,
        options: {
          catalog: { type: "string" },
          mode: { type: "string", default: "hybrid" },
          "top-k": { type: "string", default: "10" },
          "embedding-cache": { type: "string" },
        },
      });
      if (!values.catalog) return io.fail("tools search needs --catalog FILE");
      const { toolsSearchCommand } = await import("./commands/tools-search.js");
      return toolsSearchCommand(
        { catalog: values.catalog, mode: values.mode ?? "hybrid", topK: Number(values["top-k"]), embeddingCache: values["embedding-cache"] },
        io,
      );
    }
    case "serve": {
      const { values } = parseArgs({
        args: rest,
        options: {
          config: { type: "string" },
          stdio: { type: "boolean", default: false },
          http: { type: "boolean", default: false },
          host: { type: "string" },
          port: { type: "string" },
        },
      });
      if (values.stdio && values.http) return io.fail("choose one of --stdio and --http");
      const { serveCommand } = await import("./commands/serve.js");
      return serveCommand({ config: values.config, transport: values.stdio ? "stdio" : "http", host: values.host, port: values.port }, io);
    }
    case "route": {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { explain: { type: "boolean", default: false }, config: { type: "string" } },
      });
      const question = positionals.join(" ").trim();
      if (!question) return io.fail('route needs a question: afw route --explain "..."');
      const { routeCommand } = await import("./commands/route.js");
      return routeCommand({ question, config: values.config }, io);
    }
    case "demo": {
      const { demoCommand } = await import("./commands/demo.js");
      return demoCommand(undefined, io);
    }
    default:
      return io.fail(`unknown command '${command}'. Run 'afw help'.`);
  }
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
