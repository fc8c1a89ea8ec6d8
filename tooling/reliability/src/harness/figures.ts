import { appendFileSync } from "node:fs";

/** True when the suites run at full size (`RELIABILITY_FULL=1`, set by `pnpm report`). */
export const FULL_SIZE = process.env["RELIABILITY_FULL"] === "1";

/**
 * A count or duration of a suite: `ci` by default, `full` under `RELIABILITY_FULL=1`, and the
 * environment variable `name` (a number) wins over both.
 */
export function sized(name: string, ci: number, full: number): number {
  const raw = process.env[name];
  if (raw !== undefined && raw !== "" && Number.isFinite(Number(raw))) return Number(raw);
  return FULL_SIZE ? full : ci;
}

/**
 * Records a measured figure: printed to stderr, and appended as one JSON line to the file named
 * by `RELIABILITY_FIGURES` (the report script collects them from there).
 */
export function recordFigure(suite: string, name: string, value: unknown): void {
  const line = JSON.stringify({ suite, name, value });
  process.stderr.write(`[figure] ${line}\n`);
  const file = process.env["RELIABILITY_FIGURES"];
  if (file) appendFileSync(file, `${line}\n`);
}
