import { createFlowiseBackend } from "./flowise-backend.js";
import { runBackendConformance } from "./testing/conformance.js";
import { startFlowiseServer } from "./testing/flowise-server.js";

runBackendConformance({ name: "flowise", createBackend: createFlowiseBackend, startServer: startFlowiseServer });
