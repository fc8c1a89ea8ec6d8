import { pino, type DestinationStream, type Logger } from "pino";
import type { Redactor } from "@afw/contracts";

/** Creates the gateway's structured JSON logger (pino, `name: afw-gateway`): every line redacted, written to `destination` (default stderr,
 * file descriptor 2: stdout belongs to the stdio transport). */
export function createGatewayLogger(options: { level: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent"; redactor: Redactor; destination?: DestinationStream }): Logger {
  const { redactor } = options;
  return pino(
    { name: "afw-gateway", level: options.level, hooks: { streamWrite: (line: string) => redactor.redact(line) } },
    options.destination ?? pino.destination({ fd: 2, sync: false }),
  );
}
