import { createLangflowBackend } from "./langflow-backend.js";
import { runBackendConformance } from "./testing/conformance.js";
import { startLangflowServer } from "./testing/langflow-server.js";

runBackendConformance({ name: "langflow", createBackend: createLangflowBackend, startServer: startLangflowServer, supportsSources: false });
