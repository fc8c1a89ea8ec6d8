import type { SessionTurn } from "@afw/contracts";
import { positiveIntegerOption } from "./store-validation.js";

/** Bounds of the write-behind buffer of session turns (see {@link SessionWriteBuffer}). */
export interface SessionBufferOptions {
  /** Most turns held while the store is away; a turn beyond it is not kept (`saved: false`). @default 10000 */
  maxTurns?: number | undefined;
  /** Most bytes (UTF-16 length of the turns' JSON) held. @default 16777216 (16 MiB) */
  maxBytes?: number | undefined;
}

/** One turn waiting to be written. */
export interface PendingTurn {
  readonly sessionId: string;
  readonly tenant: string | undefined;
  /** Idempotency key: a replay of a turn that was written already is a no-op. */
  readonly id: string;
  readonly json: string;
  readonly turn: SessionTurn;
  /** When it was appended (epoch ms): the session's `updatedAt`. */
  readonly at: number;
}

/**
 * A bounded, ordered write-behind buffer of session turns: per session a FIFO queue, bounded in turns and bytes overall.
 */
export class SessionWriteBuffer {
  private readonly queues = new Map<string, PendingTurn[]>();
  private readonly maxTurns: number;
  private readonly maxBytes: number;
  private turns = 0;
  private bytes = 0;
  private draining: Promise<number> | undefined;

  /** @throws AfwError `CONFIG_INVALID` for a non-positive bound. */
  constructor(options: SessionBufferOptions = {}) {
    this.maxTurns = positiveIntegerOption(options.maxTurns, 10_000, "sessionBuffer.maxTurns");
    this.maxBytes = positiveIntegerOption(options.maxBytes, 16 * 1024 * 1024, "sessionBuffer.maxBytes");
  }

  /** Turns held. */
  get size(): number {
    return this.turns;
  }

  /** True when turns of this session wait (a new turn must queue behind them to keep the order). */
  holds(sessionId: string, tenant: string | undefined): boolean {
    return this.queues.has(queueKey(sessionId, tenant));
  }

  /** The turns of a session that wait, oldest first. */
  pending(sessionId: string, tenant: string | undefined): readonly PendingTurn[] {
    return this.queues.get(queueKey(sessionId, tenant)) ?? [];
  }

  /** Queues `entry` behind the session's other waiting turns; false when the buffer is full. */
  offer(entry: PendingTurn): boolean {
    if (this.turns + 1 > this.maxTurns || this.bytes + entry.json.length > this.maxBytes) return false;
    const key = queueKey(entry.sessionId, entry.tenant);
    const queue = this.queues.get(key);
    if (queue) queue.push(entry);
    else this.queues.set(key, [entry]);
    this.turns += 1;
    this.bytes += entry.json.length;
    return true;
  }

  /** Drops the waiting turns of a session (it was deleted). */
  discard(sessionId: string, tenant: string | undefined): void {
    const key = queueKey(sessionId, tenant);
    for (const entry of this.queues.get(key) ?? []) this.release(entry);
    this.queues.delete(key);
  }

  /**
   * Writes the waiting turns with `write` (true when written), queue by queue in order, up to `concurrency` sessions at
   * a time. One drain runs at a time; a call during a drain joins it.
   */
  drain(write: (entry: PendingTurn) => Promise<boolean>, concurrency = 8): Promise<number> {
    this.draining ??= this.drainOnce(write, concurrency).finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async drainOnce(write: (entry: PendingTurn) => Promise<boolean>, concurrency: number): Promise<number> {
    let written = 0;
    const keys = [...this.queues.keys()];
    const worker = async () => {
      for (let key = keys.shift(); key !== undefined; key = keys.shift()) {
        for (;;) {
          const queue = this.queues.get(key);
          const head = queue?.[0];
          if (!queue || !head) break;
          if (!(await write(head))) return; // the store failed again: leave the rest for later
          // The queue may have been discarded (session deleted) while the write was in flight.
          if (this.queues.get(key) === queue && queue[0] === head) {
            queue.shift();
            this.release(head);
            if (queue.length === 0) this.queues.delete(key);
          }
          written += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
    return written;
  }

  private release(entry: PendingTurn): void {
    this.turns -= 1;
    this.bytes -= entry.json.length;
  }
}

function queueKey(sessionId: string, tenant: string | undefined): string {
  return JSON.stringify([tenant ?? null, sessionId]);
}
