#!/usr/bin/env node
// Starts the local Flowise and Langflow reproductions with the demo flow catalog, for demos and
// manual testing. Runs until Ctrl-C.
//
//   node packages/backends/scripts/serve-platforms.mjs [--flowise-port 3000] [--langflow-port 7860]
//        [--api-key KEY] [--token-delay-ms 20] [--latency-ms 0] [--error-rate 0]
import { parseArgs } from "node:util";
import { demoFlows, startFlowiseServer, startLangflowServer } from "../dist/test-servers.js";

const { values } = parseArgs({
  options: {
    "flowise-port": { type: "string", default: "0" },
    "langflow-port": { type: "string", default: "0" },
    "api-key": { type: "string" },
    "token-delay-ms": { type: "string", default: "20" },
    "latency-ms": { type: "string", default: "0" },
    "error-rate": { type: "string", default: "0" },
  },
});
const errorRate = Number(values["error-rate"]);
const common = {
  apiKey: values["api-key"],
  tokenDelayMs: Number(values["token-delay-ms"]),
  latencyMs: Number(values["latency-ms"]),
  faults: errorRate > 0 ? [{ route: "run", status: 503, probability: errorRate }] : [],
};
const flowise = await startFlowiseServer({ ...common, port: Number(values["flowise-port"]), flows: demoFlows("f") });
const langflow = await startLangflowServer({ ...common, port: Number(values["langflow-port"]), flows: demoFlows("a") });
console.log(`FLOWISE_BASE_URL=${flowise.url}`);
console.log(`LANGFLOW_BASE_URL=${langflow.url}`);
if (values["api-key"]) console.log(`FLOWISE_API_KEY=${values["api-key"]}\nLANGFLOW_API_KEY=${values["api-key"]}`);
const stop = async () => {
  await Promise.all([flowise.close(), langflow.close()]);
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
