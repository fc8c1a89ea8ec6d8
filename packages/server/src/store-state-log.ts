import type { CacheStoreEvent, CacheStoreEventHandler } from "@afw/cache";
import type { Logger } from "pino";

/** Options of {@link createStoreStateLog}: one summary line per `summaryIntervalMs` (30 s) while Redis stays unavailable. */
export interface StoreStateLogOptions {
  summaryIntervalMs?: number;
  now?: () => number;
}

/** A new outage within this time of the last announced one is folded into the summaries (a flapping Redis). */
const FLAP_WINDOW_MS = 5_000;

/** The one place that logs the shared stores' state: a line when Redis becomes unavailable, a summary every `summaryIntervalMs` while it stays so (operations
 * failed, session turns buffered, dropped), a line when it recovers and when the buffered session turns have all been replayed. */
export function createStoreStateLog(logger: Logger, options: StoreStateLogOptions = {}): CacheStoreEventHandler {
  const interval = options.summaryIntervalMs ?? 30_000;
  const now = options.now ?? Date.now;
  let lastAnnounced = -Infinity;
  let lastReplayLine = -Infinity;
  let down = false;
  let loud = false; // the current outage was announced (its recovery is logged too)
  let since = 0;
  let lastLine = -Infinity;
  let counts = { failedOperations: 0, turnsBuffered: 0, turnsDropped: 0, turnsReplayed: 0, outages: 0 };
  const line = (level: "warn" | "info", fields: object, message: string) => {
    lastLine = now();
    logger[level]({ redis: { ...fields, ...counts } }, message);
    counts = { failedOperations: 0, turnsBuffered: 0, turnsDropped: 0, turnsReplayed: 0, outages: 0 };
  };
  return (event: CacheStoreEvent) => {
    switch (event.type) {
      case "cache-unavailable":
        counts.failedOperations += 1;
        if (!down) {
          down = true;
          since = now();
          counts.outages += 1;
          loud = since - lastAnnounced >= FLAP_WINDOW_MS;
          if (loud) {
            lastAnnounced = since;
            line("warn", { store: event.store, operation: event.operation, error: event.message }, "Redis unavailable: stores degrade to misses, session turns are buffered for replay");
            return;
          }
        }
        break;
      case "session-turn-buffered":
        counts.turnsBuffered += 1;
        break;
      case "session-turn-dropped":
        counts.turnsDropped += 1;
        break;
      case "session-turns-replayed":
        counts.turnsReplayed += event.turns;
        if (event.buffered === 0 && !down && now() - lastReplayLine >= FLAP_WINDOW_MS) {
          lastReplayLine = now();
          line("info", { stillBuffered: 0 }, "Redis: buffered session turns replayed");
        }
        return;
      case "cache-recovered":
        if (!down) return;
        down = false;
        if (loud) line("info", { downForMs: now() - since }, "Redis recovered");
        return;
      default:
        return;
    }
    if (now() - lastLine >= interval) line("warn", { downForMs: down ? now() - since : 0, stillDown: down }, "Redis degraded (summary)");
  };
}
