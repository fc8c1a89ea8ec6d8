/**
 * The time source and timers of a downstream manager. Injectable so tests can drive time; the default
 * (`systemClock`) uses the real clock and unreferenced timers (they never keep the process alive on their own).
 */
export interface DownstreamClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Schedules `callback` after `delayMs`; returns a handle for {@link DownstreamClock.clearTimeout}. */
  setTimeout(callback: () => void, delayMs: number): unknown;
  /** Cancels a timer scheduled with {@link DownstreamClock.setTimeout}. */
  clearTimeout(handle: unknown): void;
}

/** The real clock: `Date.now()` and unreferenced `setTimeout` timers. */
export const systemClock: DownstreamClock = Object.freeze({
  now: () => Date.now(),
  setTimeout(callback: () => void, delayMs: number): unknown {
    const timer = setTimeout(callback, delayMs);
    timer.unref?.();
    return timer;
  },
  clearTimeout(handle: unknown): void {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
});
