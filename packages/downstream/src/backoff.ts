/** Exponential backoff with a cap and jitter (see {@link computeBackoffDelay}). */
export interface BackoffPolicy {
  /** Delay after the first failure. */
  initialDelayMs: number;
  /** Cap on any single delay. */
  maxDelayMs: number;
  /** Growth factor per consecutive failure (≥ 1). */
  multiplier: number;
  /** Fraction (0..1) of the delay that is randomised: the delay is drawn from `[base*(1-jitter), base]`. */
  jitter: number;
}

/**
 * The delay after `failureCount` consecutive failures (1-based):
 * `min(maxDelayMs, initialDelayMs * multiplier^(failureCount-1))`, then reduced by up to `jitter`
 * of itself at random so that many clients do not retry in lockstep. Never exceeds `maxDelayMs`.
 *
 * @param random - a source of numbers in [0, 1); injectable for deterministic tests.
 * @example
 * ```ts
 * computeBackoffDelay(3, { initialDelayMs: 100, maxDelayMs: 1000, multiplier: 2, jitter: 0 }) // 400
 * ```
 */
export function computeBackoffDelay(failureCount: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const exponent = Math.max(0, failureCount - 1);
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.multiplier ** exponent);
  const factor = 1 - policy.jitter + policy.jitter * Math.min(1, Math.max(0, random()));
  return Math.round(Math.min(policy.maxDelayMs, base * factor));
}
