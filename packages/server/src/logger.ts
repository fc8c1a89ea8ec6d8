import { pino, type DestinationStream, type Logger } from "pino";
import type { Redactor } from "@afw/contracts";

/** Options of {@link createGatewayLogger}. */
export interface GatewayLoggerOptions {
  /** Minimum level. @default "info" */
  level?: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Applied to every serialised log line before it is written. */
  redactor?: Redactor;
  /** Where lines go. @default stderr (file descriptor 2): stdout belongs to the stdio transport. */
  destination?: DestinationStream;
  /** `name` field of every line. @default "afw-gateway" */
  name?: string;
}

/** Creates the gateway's structured JSON logger (pino). */
export function createGatewayLogger(options: GatewayLoggerOptions = {}): Logger {
  const redactor = options.redactor;
  return pino(
    {
      name: options.name ?? "afw-gateway",
      level: options.level ?? "info",
      ...(redactor ? { hooks: { streamWrite: (line: string) => redactor.redact(line) } } : {}),
    },
    options.destination ?? pino.destination({ fd: 2, sync: false }),
  );
}
