/** Exponential backoff with a cap (see {@link computeBackoffDelay}). */
export interface BackoffPolicy {
  /** Delay after the first failure. */
  initialDelayMs: number;
  /** Cap on any single delay. */
  maxDelayMs: number;
}

/** Growth per consecutive failure. */
const MULTIPLIER = 2;
/** Fraction of the delay that is randomised, so that many clients do not retry in lockstep. */
const JITTER = 0.2;

/**
 * The delay after `failureCount` consecutive failures (1-based): `min(maxDelayMs, initialDelayMs * 2^(failureCount-1))`,
 * then reduced by up to a fifth of itself at random (drawn from `[0.8*base, base]`).
 * @param random - a source of numbers in [0, 1); injectable for deterministic tests (`() => 1`: no jitter).
 * @example
 * ```ts
 * computeBackoffDelay(3, { initialDelayMs: 100, maxDelayMs: 1000 }, () => 1) // 400
 * ```
 */
export function computeBackoffDelay(failureCount: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const exponent = Math.max(0, failureCount - 1);
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * MULTIPLIER ** exponent);
  const factor = 1 - JITTER + JITTER * Math.min(1, Math.max(0, random()));
  return Math.round(Math.min(policy.maxDelayMs, base * factor));
}
