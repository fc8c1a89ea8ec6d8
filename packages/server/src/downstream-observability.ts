import type { Redactor } from "@afw/contracts";
import type { DownstreamManager, DownstreamServerState, DownstreamServerStatus } from "@afw/downstream";
import type { Logger } from "pino";

/** Logs each downstream server's state changes, one line each: a connection at `info` (a reconnection after failures says how many restarts it took), a
 * failed start or a crash at `warn` with the (redacted) reason and when the restart is due, and a server given up at `warn`. */
export function logDownstreamStates(manager: DownstreamManager, logger: Logger, redactor: Redactor): () => void {
  const last = new Map<string, DownstreamServerState>();
  return manager.onStatusChanged((status) => {
    const previous = last.get(status.name);
    if (previous === status.state) return;
    last.set(status.name, status.state);
    const error = status.lastError === undefined ? undefined : redactor.redact(status.lastError);
    const fields = { server: status.name, transport: status.transport, restarts: status.restarts };
    switch (status.state) {
      case "connected":
        logger.info({ downstream: { ...fields, tools: status.toolCount } }, status.restarts > 0 ? "downstream server reconnected" : "downstream server connected");
        break;
      case "backing-off": {
        const retryInMs = status.nextRestartAt === undefined ? undefined : Math.max(0, Date.parse(status.nextRestartAt) - Date.now());
        const what = previous === "connected" ? "downstream server crashed" : "downstream server failed to start";
        logger.warn({ downstream: { ...fields, consecutiveFailures: status.consecutiveFailures, error, retryInMs } }, `${what}, restarting`);
        break;
      }
      case "crashed":
        logger.warn({ downstream: { ...fields, consecutiveFailures: status.consecutiveFailures, error } }, "downstream server failed too often, not restarted");
        break;
      default:
        break;
    }
  });
}

/** Whether the server can serve calls now (a hot server connected, a cold one available for a connect on use). */
function isUp(status: DownstreamServerStatus): boolean {
  return status.state === "connected" || (status.mode === "cold" && status.available);
}

/** One `/readyz` check per downstream server (`downstream:<name>`, its state, and the redacted last error while it is not up). */
export function downstreamReadinessChecks(manager: DownstreamManager, redactor: Redactor): { name: string; ok: boolean; status: string; message?: string }[] {
  const required = new Set(manager.config.servers.filter((server) => server.required).map((server) => server.name));
  return manager.status().map((status) => {
    const up = isUp(status);
    const check = { name: `downstream:${status.name}`, ok: up || !required.has(status.name), status: status.state };
    if (up || status.lastError === undefined) return check;
    return { ...check, message: redactor.redact(status.lastError) };
  });
}
