import { createGatewayServer, type GatewayServer } from "@afw/server";
import { demoFlows, startFlowiseServer, startLangflowServer } from "@afw/backends/test/servers";
import { connectInProcess, type ToolAnswer } from "../mcp-client.js";
import type { CommandIo } from "./io.js";

type Metadata = Record<string, unknown>;

function describe(answer: ToolAnswer): string {
  if (answer.isError) return `error ${String(answer.body["code"])}: ${String(answer.body["error"])}`;
  const m = (answer.body["_mcp_metadata"] ?? {}) as Metadata;
  const text = String(answer.body["result"] ?? "").replace(/\s+/g, " ");
  return [
    `  intent      ${String(m["intent_classified"])} (confidence ${Number(m["intent_confidence"]).toFixed(2)})`,
    `  routed to   ${String(m["backend_used"])} / ${String(m["flow_name"])}  score ${Number(m["routing_score"]).toFixed(3)}`,
    `  attempts    ${String(m["attempt"])}  fallback ${String(m["fallback_used"])}  tried ${JSON.stringify(m["backends_tried"] ?? [])}`,
    `  cache hit   ${String(m["cache_hit"])}  time ${Number(m["execution_time_ms"]).toFixed(1)} ms`,
    `  answer      ${text.length > 100 ? `${text.slice(0, 100)}…` : text}`,
  ].join("\n");
}

/** The demo's setup: sample Flowise and Langflow servers and a warmed-up gateway routing between them; `close` stops all three. */
export async function startDemoGateway(sampleOptions: { tokenDelayMs?: number } = {}) {
  const flowise = await startFlowiseServer({ flows: demoFlows("f"), ...sampleOptions });
  const langflow = await startLangflowServer({ flows: demoFlows("l"), ...sampleOptions });
  let gateway: GatewayServer | undefined;
  const close = async () => {
    await gateway?.close();
    await Promise.all([flowise.close(), langflow.close()]);
  };
  try {
    const backends = [
      { id: "flowise", kind: "flowise", baseURL: flowise.url },
      { id: "langflow", kind: "langflow", baseURL: langflow.url },
    ];
    gateway = await createGatewayServer({ backends, logging: { level: "warn" } } as never);
    await gateway.warmUp();
    return { flowise, langflow, gateway, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `afw demo`: starts local Flowise- and Langflow-compatible sample servers, runs the gateway against them in-process, and
 * walks through routing, fallback, a cache hit and a session resume, printing what happened. */
export async function demoCommand(_options: unknown, io: CommandIo): Promise<number> {
  const say = (line = "") => io.stdout.write(`${line}\n`);
  const demo = await startDemoGateway({ tokenDelayMs: 0 });
  const { flowise, langflow, gateway } = demo;
  try {
    say(`Sample Flowise at ${flowise.url}, sample Langflow at ${langflow.url}`);
    const client = await connectInProcess(gateway);
    const flows = await client.call("list_flows", {});
    say(`Discovered flows: ${JSON.stringify((flows.body["flows"] as Array<{ name: string }> | undefined)?.map((f) => f.name) ?? flows.body)}`);
    say("\n1. Routing by intent");
    const questions = [
      "My Node service crashes with 'TypeError: cannot read properties of undefined' after the upgrade — how do I debug it?",
      "What does our travel policy say about booking business class? Please cite the document.",
      "Turn this CSV of orders into JSON grouped by customer and sum the totals.",
    ];
    const first: ToolAnswer[] = [];
    for (const question of questions) {
      say(`\n> ${question}`);
      const answer = await client.call("universal_query", { question });
      first.push(answer);
      say(describe(answer));
    }
    say("\n2. Cache hit: the first question again");
    say(describe(await client.call("universal_query", { question: questions[0] })));
    const chosen = String(((first[0]?.body["_mcp_metadata"] ?? {}) as Metadata)["backend_used"] ?? "flowise");
    const failing = chosen === "langflow" ? langflow : flowise;
    say(`\n3. Fallback: the sample ${chosen} now answers every run with HTTP 503`);
    failing.setFaults([{ route: "run", status: 503, message: "upstream model overloaded" }]);
    say("\n> Why does my Python script raise KeyError when reading the config dict?");
    say(describe(await client.call("universal_query", { question: "Why does my Python script raise KeyError when reading the config dict?" })));
    failing.clearFaults();
    say("\n4. Session memory: two turns, then resume");
    await client.call("universal_query", { question: "Let's plan a short story about a lighthouse keeper.", session_id: "demo-session" });
    const resumed = await client.call("universal_query", { question: "Continue from where we left off.", session_id: "demo-session" });
    say(describe(resumed));
    const session = await client.call("get_session", { session_id: "demo-session" });
    say(`  get_session: ${String(session.body["turns"])} turns remembered for demo-session`);
    const lastRun = [...flowise.runs, ...langflow.runs].filter((run) => run.sessionId === "demo-session").at(-1);
    if (lastRun) say(`  the backend received session id '${lastRun.sessionId}' and ${lastRun.history.length} history messages`);
    await client.close();
    say("\nDone. Run `afw serve` to start the gateway for real.");
    return 0;
  } finally {
    await demo.close();
  }
}
