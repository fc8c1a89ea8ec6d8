import { createGatewayServer, loadGatewayConfig } from "@afw/server";
import { connectInProcess } from "../mcp-client.js";
import { writeJsonLine } from "../json-lines.js";
import type { CommandIo } from "./io.js";

/** Options of `afw route --explain`. */
export interface RouteOptions {
  question: string;
  config?: string | undefined;
}

/** `afw route --explain QUESTION`: builds the gateway from the config, discovers flows, and prints the routing decision
 * (intent, confidence, every candidate's score breakdown) as JSON, without running anything. */
export async function routeCommand(options: RouteOptions, io: CommandIo): Promise<number> {
  const gateway = await createGatewayServer(await loadGatewayConfig(options.config, process.env));
  try {
    await gateway.warmUp();
    const client = await connectInProcess(gateway);
    const answer = await client.call("explain_routing", { question: options.question });
    await client.close();
    await writeJsonLine(io.stdout, answer.body);
    return answer.isError ? 1 : 0;
  } finally {
    await gateway.close();
  }
}
